#!/usr/bin/env bash
# sanitize.sh -- the sanitizer builds (docs/testing.md, "Sanitizer builds"):
#   asan  build-asan/ with -DLUAINSTR_SANITIZE=address,undefined, and the
#         ctest suite in it (less what covers no C code the rest does
#         not, below):
#         AddressSanitizer, LeakSanitizer (on, in
#         our programs and in the lua5.4 that loads luainstr.so) and
#         UndefinedBehaviorSanitizer (fatal).  The tree has the runtime of
#         every Lua installed (5.4, and 5.3, 5.2, 5.1 and LuaJIT as
#         pkg-config finds them), each with its direct path or, for
#         LuaJIT, its headers (scripts/lua-internals.sh), so the suite's
#         per-version tests (luaprof5.N and luaprofjit over the behaviour
#         programs, allocfail_lua5N and allocfail_luajit ...) run sanitized
#         too.  LuaJIT itself is Debian's, not sanitized: its own code and
#         its machine code are not checked, nor its memory (lj_alloc maps
#         its own, which LeakSanitizer does not see); every call the
#         runtime makes into it and every byte of the runtime's own is.
#   tsan  build-tsan/ with -DLUAINSTR_SANITIZE=thread, and the test of two
#         profiled states in two threads (test_threads, and
#         test_threads_lua5N and test_threads_luajit for the other Luas)
#         and the live view's ring between two threads (test_live_ring),
#         and the live view's client tests (live_*: the server's thread,
#         the Lua threads, multistate's several states) in it
#
# usage: scripts/sanitize.sh [asan|tsan|all]      (default: all)
# Installs what is missing (scripts/deps.sh), prints each part's time, and
# exits 0 when every part passed, 1 otherwise (2 on a usage error).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

what=${1:-all}
case $what in
  asan|tsan|all) ;;
  *) echo "usage: $0 [asan|tsan|all]" >&2; exit 2 ;;
esac

bash scripts/deps.sh
# every Lua's headers (Debian's sources): each runtime's direct path
lua_opts=$(bash scripts/lua-internals.sh)
read -r -a lua_opts <<<"$lua_opts"

# part NAME DIR SANITIZERS BUILD_TARGET CTEST_ARGS...: configure, build and
# test one sanitizer build; returns ctest's status.
part() {
  local name=$1 dir=$2 sanitizers=$3 target=$4; shift 4
  local start=$SECONDS st=0
  echo "== sanitize.sh $name: $dir, -DLUAINSTR_SANITIZE=$sanitizers"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DLUAINSTR_SANITIZE="$sanitizers" "${lua_opts[@]}" >/dev/null &&
    cmake --build "$dir" -j2 --target "$target" &&
    ctest --test-dir "$dir" --output-on-failure -j2 "$@" || st=$?
  echo "== sanitize.sh $name: $([ $st -eq 0 ] && echo passed || echo FAILED)" \
       "in $((SECONDS - start)) s"
  return $st
}

status=0
if [ "$what" != tsan ]; then
  # Not every test: CI's 45 minutes hold the whole suite once unsanitized
  # and, here, every test that reaches C code no other sanitized test
  # reaches.  Left out, each for what covers its code sanitized:
  #   - the same C code over more data: the probe's variants over every
  #     behaviour program (probe_variants_deep_* run: the CallInfos of deep
  #     recursion), the rewriter over the Debian corpus and LuaJIT's suite,
  #     the lift's references (corpus, luajit_rewrite, bytecode_lift*,
  #     lift_identity, rewrite_reject_corpus: the rewriter and the lift are
  #     what fuzz.sh's targets run under ASan and UBSan, and bytecode_lift
  #     garbles dumps through an ASan driver in every unsanitized run), the
  #     real suites but penlight's and luassert's on 5.4, the official
  #     suites but 5.4's through the fast probe, luaprof over the
  #     behaviour programs on 5.1-5.3 (the version layer: their known
  #     answers, allocfail, heap_behaviour and 5.1's luaprof_cli run), and
  #     5.4's plainly (in memory mode it runs, and lua5.4 runs them
  #     offline), LuaJIT's with the JIT off, the hostile heaps (fuzz_heap
  #     builds random heaps under ASan; heap_behaviour_* run here), the
  #     snapshot at exit and with frames on 5.1-5.3, the known limits (the
  #     behaviour programs' code), merge_reports (the readers and the merge:
  #     fuzz_readjson and fuzz_report), readers_hostile (which measures
  #     peak memory, what ASan's shadow and quarantine change; the same
  #     readers' bounds: fuzz_readjson, fuzz_report, fuzz_heapread);
  #   - what runs no C of ours that the rest does not: installs, rocks,
  #     man pages, docs, benchmarks (callgrind cannot run under ASan),
  #     consumers of our files (go tool pprof, speedscope, DevTools' loader
  #     in node), the pages in Chromium (the game and the server they drive
  #     are sanitized by the live view's client tests, live_*, which run).
  skip=(heap_devtools 'heap_exit_.*' 'heap_hostile_.*' behaviour_known_limits
        merge_reports readers_hostile
        'heap_behaviour_lua5[123]_frames_memory' 'live_page_.*'
        'report_html.*chromium' 'probe_variants(_5\.[0-9])?' 'bytecode_lift'
        bytecode_lift_reference_jit lift_identity corpus luajit_rewrite
        rewrite_reject_corpus 'bench_.*' 'install.*' version_installed
        man_pages 'rocks_.*' 'docs_links.*' 'real_.*_(memory|lua51|lua53|luajit)'
        real_busted_penlight 'real_(ldoc|markdown|luacheck|ljsyscall|luajit_tools).*'
        'lua53_official_suite.*' lua_official_suite_probe_api
        'luaprof_behaviour_lua5[123].*' 'luainstr_run_behaviour_lua5[123]'
        luaprof_behaviour_lua54 luaprof_behaviour_luajit_joff
        'luaprof_cli_lua5[23]' pprof_go pprof_speedscope)
  part asan build-asan address,undefined all \
    -E "^($(IFS='|'; echo "${skip[*]}"))\$" || status=1
fi
if [ "$what" != asan ]; then
  # Only test_threads, on every Lua: Criterion cannot start under TSan,
  # and the rest of the suite runs one thread (the ASan build covers it).
  # (and the live view's ring, test_live_ring: a producer and a consumer
  # thread, built with test_threads_all)
  # (and the live view's client tests: the server's thread with one or
  # several Lua threads, about 20 s; their hosts are built with it too;
  # not the live page's browser tests, which install a full build)
  part tsan build-tsan thread test_threads_all -R '^(test_threads(_lua5[0-9]|_luajit)?|test_live_ring|live_.*)$' \
    -E '^(live_page_.*|live_not_linked)$' || status=1
fi
exit $status
