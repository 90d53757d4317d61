#!/usr/bin/env bash
# ljsyscall's own test suite (Debian's lua-ljsyscall 0.12: Unix system
# calls for LuaJIT, some 20,000 lines of Lua over the FFI: ffi.cdef of the
# kernel's structures, metatypes, cdata everywhere), under luajit and
# under luaprofjit (the library, the tests and their luaunit all
# instrumented).  stdout (luaunit's per-test lines, failures with their
# tracebacks, the summary), stderr and the exit status must be the same;
# the report must name functions of the library and of the tests.
#
# The sources are those of Debian's source package (tests/real/
# ljsyscall_source.sh fetches them into CACHE once): test/test.lua reads
# only the tree it runs in (package.path = "./?.lua;").  Both sides run,
# from the root of a fresh copy of the tree (the same path for both), as
#   LUA                        test/test.lua CLASS...
#   LUAPROF -f csv -o REPORT   test/test.lua CLASS...
# (as nobody, below)
# with the test classes named in sorted order: without names luaunit runs
# them in the order of pairs(_G), which LuaJIT's string hash seed changes
# from run to run.  The names are those a first plain run printed.
#
# Run as root, the suite would unshare namespaces and set up bridges,
# routes and mounts; the tests run as `nobody` instead (setpriv), which
# makes the suite drop its root tests, as it does for any other user.
# stdout is unbuffered (stdbuf -o0): the tests fork, and a child that
# exits through stdio writes out again what the parent had buffered (luaunit
# writes a test's name, runs it, then writes its verdict on the same line),
# at a time that varies; with nothing buffered there is nothing to repeat.
#
# One test is left out on both sides, by naming its class's other tests
# one by one (class:method) in place of the class:
#   test_mmap:test_mlockall  mlockall("current") locks every mapped page
#       and the test skips itself on ENOMEM: under the default 8 MiB
#       RLIMIT_MEMLOCK luajit fits (7 MB at most over the suite) and
#       luaprofjit, with the profile of the suite in memory (11 MB), does
#       not; the limit cannot be raised without CAP_SYS_RESOURCE.
# Nothing is normalised but what common.sh's run_side does.
#
# luaprof runs with --no-preempt: test_seccomp's child allows getpid,
# exit_group, mprotect, mmap and brk only and is killed by any other system
# call, and a probe that sees a long step (the child preempted on a busy
# machine) reads /proc/thread-self/schedstat.  The program then reads its
# waits for a CPU as its own time, as it would under any profiler; it does
# nothing else.
#
# usage: ljsyscall.sh LUAPROF_BIN CACHE [LUA]
#   CACHE  where ljsyscall_source.sh keeps the tree (build-src/)
#   LUA    the stock luajit LUAPROF_BIN is built for (default luajit)
# (LI_LUAPROF_FLAGS: more luaprof options, split at spaces: --memory;
# LI_LUA_FLAGS: interpreter options for both sides: -joff.)
#
# ctest runs it with the JIT off on both sides: with it on, LuaJIT's own
# recorder bug (tests/real/luajit_newindex_bug.lua) makes a struct field
# store now and then call the type's __newindex instead, and ljsyscall's
# __newindex then fails ("invalid index l_len"); instrumented code forms
# other traces and meets it in about one run in four, plain luajit seldom.
set -u
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 LUAPROF_BIN CACHE [LUA]" >&2; exit 2; }
# shellcheck source=tests/real/common.sh
. "$here/common.sh"
real_init ljsyscall.sh "$1" "$2" "${3:-luajit}"

if ! src=$(bash "$here/ljsyscall_source.sh" "$suites") || ! src=$(cd "$src" && pwd); then
  . "$here/../shared_missing.sh"
  shared_missing "$prog" "no sources of ljsyscall 0.12 in '$suites' and none fetched" \
    "tests/real/ljsyscall_source.sh fetches them from Debian's source package" \
    "lua-ljsyscall (it needs a deb-src entry: scripts/lua-source.sh adds one)."
fi

# As nobody when root: the scratch folder must be open to it.
as=()
if [ "$(id -u)" -eq 0 ]; then
  need_tool setpriv
  as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  chmod 755 "$tmp"
fi
as+=(stdbuf -o0)
# (stdbuf preloads its library, which then comes before AddressSanitizer's
# runtime in a sanitized build: ASan refuses to start unless told not to
# check the order; nothing of stdbuf's is intercepted)
if [ -n "${ASAN_OPTIONS:-}" ]; then
  export ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0"
fi
run=$tmp/run/ljsyscall
out=$tmp/out
report=$out/report.csv
mkdir -p "$out/list"
chmod 777 "$out"

# The class and test names, from a first plain run.
fresh_copy "$src" "$run" && chmod -R a+rwX "$tmp/run"
cd "$run" || exit 2
run_side "$out/list" ref "${as[@]}" "$lua" test/test.lua
cd "$tmp" || exit 2
mapfile -t classes < <(grep -aE '^[Tt]est[A-Za-z0-9_]*$' "$out/list/ref.stdout" | sort -u)
if [ ${#classes[@]} -eq 0 ]; then
  echo "$prog: FAIL: test/test.lua under $lua listed no test class" >&2
  head -n 20 "$out/list/ref.stdout" "$out/list/ref.stderr" >&2
  exit 1
fi
left_out=(test_mmap:test_mlockall)
names=()
for c in "${classes[@]}"; do
  if printf '%s\n' "${left_out[@]}" | grep -q "^$c:"; then
    mapfile -t ms < <(grep -aoE "^  \[$c:[A-Za-z0-9_]+\]" "$out/list/ref.stdout" |
                      sed -E 's/^  \[(.*)\]$/\1/' | sort -u)
    for m in "${ms[@]}"; do
      printf '%s\n' "${left_out[@]}" | grep -qx "$m" || names+=("$m")
    done
  else
    names+=("$c")
  fi
done

for side in ref prof; do
  fresh_copy "$src" "$run" && chmod -R a+rwX "$tmp/run"
  if [ $side = ref ]; then cmd=("$lua" ${LI_LUA_FLAGS:-})
  else cmd=("$prof" --no-preempt ${LI_LUAPROF_FLAGS:-} -f csv -o "$report" ${LI_LUA_FLAGS:-}); fi
  cd "$run" || exit 2
  timed_side "$out" $side "${as[@]}" "${cmd[@]}" test/test.lua "${names[@]}"
  cd "$tmp" || exit 2
done

summary=$(grep -a '^Success' "$out/ref.stdout" | tail -n 1)
msgs=$(differs "$out"
       report_lacks "$report" "ljsyscall:/syscall/" "its tests:/test/(test|linux)\.lua")
[ -n "$summary" ] || msgs+=$'\n'"  test/test.lua under $lua printed no summary"

echo "ljsyscall: ${#classes[@]} test classes (less ${left_out[*]})," \
     "${summary:-no summary} under $lua" \
     "(compared all the same), exit status $(cat "$out/ref.status")"
echo "run time: $lua ${ms_ref} ms, $(basename "$prof") ${ms_prof} ms"
if [ -z "$msgs" ]; then
  echo "ok   ljsyscall: stdout, stderr and exit status identical; report written"
  exit 0
fi
echo "FAIL ljsyscall"
printf '%s\n' "$msgs"
exit 1
