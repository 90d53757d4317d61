#!/usr/bin/env bash
# An official Lua test suite (5.4.4's, or 5.3.6's under luaprof5.3),
# instrumented, in these modes:
#
#   luaprof  every chunk instrumented as it loads, with the real runtime:
#            `luaprof -e "_U=true" all.lua`, and each file alone as
#            `luaprof -e "_U=true _soft=true _port=true _nomsg=true" F.lua`;
#   offline  every .lua file of the copy rewritten in place by `luainstr`
#            (`--lua 5.N`), then the same runs under the stock interpreter
#            (fallback probe).
#   memory   as luaprof, with memory mode and frame mode on (`luaprof
#            --memory --frames`: the state's allocator wrapped), the
#            luaprof entries of the lists applied.
#
#   self     (a check of this harness) every listed assertion rewritten,
#            nothing instrumented, the stock interpreter: each listed
#            assertion must be evaluated and pass, each run end as the
#            reference.
#
# The stock interpreter (lua5.4, or lua5.3) says which Lua: its _VERSION
# picks luaprof (5.4) or luaprof5.N and the lists (below).  It first runs
# the same commands on an unchanged copy (the reference: it must pass, and
# its last line of stdout is what each other run must end with).  Each run
# gets a fresh copy.
#
# Assertions that check an inherent, documented difference are listed in
# disabled.txt (5.4; disabled-5.N.txt for 5.N); those that fail because of
# a defect being fixed are listed, temporarily, in pending.txt
# (pending-5.N.txt).  disable.lua rewrites each listed assertion of the
# copy into a call of the recorder (recorder.lua, run with `-e` first),
# which still evaluates it, lets the file go on, and logs the outcome.
# The test fails when
#   - a run exits non-zero, times out, or does not end with the reference's
#     last line of stdout (an assertion that is not listed failed);
#   - a listed assertion passes or is never evaluated in a run that went
#     through its file (the list is stale);
#   - a pending assertion fails (a known defect is still there), unless
#     LI_OFFICIAL_PENDING=allow.
#
# usage: run.sh BIN_DIR SUITE_DIR [INTERP]
#   BIN_DIR    the build's bin/ (luaprof or luaprof5.N, luainstr)
#   SUITE_DIR  the official suite (lua-5.4.4-tests, lua-5.3.6-tests),
#              never written to
#   INTERP     the stock interpreter (default lua5.4; lua5.3)
# SUITE_DIR missing: exits 77, a skip for ctest (1 when CI is set).
#
# Environment:
#   LI_OFFICIAL_MODES="self luaprof offline memory"  the modes to run
#   LI_OFFICIAL_ONLY=GLOB   the files run alone (all.lua is `all.lua`)
#   LI_OFFICIAL_PENDING=apply|allow|off  the pending list applied and its
#                   failures fail the test (apply, the default), applied
#                   but tolerated (allow: shows whether the rest is clean),
#                   or not applied (off: each defect stops its file, as
#                   without this harness)
#   LI_OFFICIAL_DISABLED=off  do not apply the disabled list either
#   LI_OFFICIAL_LIFT=dump  the build lifts by a dump (no Lua headers; or
#                   LUAINSTR_LIFT=dump): disabled-dumplift.txt applies too
#   LI_TIMEOUT=S    seconds per run (default 300)
#   LI_KEEP=1       keep the temporary directory (logs, outputs, copies)
set -u
set -o pipefail

usage() { echo "usage: $0 BIN_DIR SUITE_DIR [INTERP]" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
bin=$1
suite=$2
interp=${3:-lua5.4}
modes=${LI_OFFICIAL_MODES:-self luaprof offline memory}
only=${LI_OFFICIAL_ONLY:-*}
pending=${LI_OFFICIAL_PENDING:-apply}
tmo=${LI_TIMEOUT:-300}

. "$here/../behaviour/common.sh"

# The Lua the suite is for, by the interpreter's name (the interpreter
# itself is asked below): what a missing suite's message names.
case $interp in
  *5.3*) ver=5.3 ;;
  *) ver=5.4 ;;
esac

# Not in this repository: missing, the test skips (fails with CI set).
if [ ! -f "$suite/all.lua" ]; then
  . "$here/../shared_missing.sh"
  if [ $ver = 5.3 ]; then
    shared_missing run_official "the official Lua 5.3.6 test suite is not at '$suite'" \
      "It is the testes/ folder of the Lua 5.3.6 release: tag v5.3.6 of" \
      "https://github.com/lua/lua.  Copy it as ../shared/lua-5.3.6-tests beside" \
      "the project (where CI keeps it), or configure with" \
      "-DLI_OFFICIAL_SUITE_53=/path/to/lua-5.3.6-tests (the folder holding all.lua)."
  else
    shared_missing run_official "the official Lua 5.4.4 test suite is not at '$suite'" \
      "It is the testes/ folder of lua-5.4.4-tests.tar.gz, published by lua.org" \
      "(https://www.lua.org/tests/).  Unpack it as ../shared/lua-5.4.4-tests beside" \
      "the project (where CI keeps it), or configure with" \
      "-DLI_OFFICIAL_SUITE=/path/to/lua-5.4.4-tests (the folder holding all.lua)."
  fi
fi
suite=$(cd "$suite" && pwd)
bin=$(cd "$bin" && pwd) || exit 2
need_command run.sh interpreter "$interp"
interp=$(command -v "$interp")
got_ver=$("$interp" -e 'io.write((_VERSION:gsub("^Lua ", "")))') || exit 2
if [ "$got_ver" != "$ver" ]; then
  echo "run_official: $interp is Lua $got_ver; this harness knows lua5.4 and lua5.3" >&2
  exit 2
fi
# 5.4: luaprof, disabled.txt, pending.txt; 5.N: luaprof5.N, the -5.N lists.
if [ $ver = 5.4 ]; then
  luaprof=$bin/luaprof
  disabled=$here/disabled.txt
  pendings=$here/pending.txt
else
  luaprof=$bin/luaprof$ver
  disabled=$here/disabled-$ver.txt
  pendings=$here/pending-$ver.txt
fi
need_command run.sh luaprof "$luaprof"
need_command run.sh luainstr "$bin/luainstr"
case $pending in apply|allow|off) ;; *) usage ;; esac

clean_lua_env
setup_run run_official li-official

# (without its comment lines: lua takes no -e argument that starts with -)
recorder=$(grep -v '^--' "$here/recorder.lua") || exit 2
lists=()
[ "${LI_OFFICIAL_DISABLED:-on}" = off ] || lists+=("$disabled")
# (what fails only where the loader lifts by a dump: disabled-dumplift.txt)
if [ "${LI_OFFICIAL_DISABLED:-on}" != off ] && [ $ver = 5.4 ] &&
   { [ "${LUAINSTR_LIFT:-}" = dump ] || [ "${LI_OFFICIAL_LIFT:-}" = dump ]; }; then
  lists+=("$here/disabled-dumplift.txt")
fi
[ "$pending" = off ] || lists+=("$pendings")

# The runs: all.lua as the README's plain command, then every file alone,
# but heavy.lua (all.lua never runs it: it exhausts memory on purpose) and
# big.lua (all.lua runs it only without _soft, which _U=true sets).
all_flags='_U=true'
alone_flags='_U=true _soft=true _port=true _nomsg=true'
files=()
for f in "$suite"/*.lua; do
  f=$(basename "$f")
  case $f in all.lua|heavy.lua|big.lua) continue ;; esac
  files+=("$f")
done
runs=()
# shellcheck disable=SC2053
[[ all.lua == $only ]] && runs+=(all.lua)
for f in "${files[@]}"; do
  # shellcheck disable=SC2053
  [[ $f == $only ]] && runs+=("$f")
done

# last_line FILE: the last non-empty line of a run's stdout.
last_line() { grep -v '^[[:space:]]*$' -- "$1" | tail -n 1; }

# run_one COPY RUN OUTDIR: one run of "${cmd[@]}" in a fresh copy; sets rc.
run_one() {
  local copy=$1 r=$2 out=$3 flags=$alone_flags
  [ "$r" = all.lua ] && flags=$all_flags
  rm -rf -- "$copy.run" && cp -r -- "$copy" "$copy.run" || exit 2
  (cd "$copy.run" && LI_OFFICIAL_LOG="$out/$r.log" \
     "${run_timeout[@]}" "${cmd[@]}" -e "$recorder" -e "$flags" "$r" \
       > "$out/$r.out" 2> "$out/$r.err" < /dev/null)
  rc=$?
  rm -rf -- "$copy.run"
}

# The reference: the stock interpreter, unchanged copy.
mkdir -p "$tmp/ref/out"
cp -r -- "$suite" "$tmp/ref/copy" || exit 2
declare -A want
cmd=("$interp")
for r in "${runs[@]}"; do
  run_one "$tmp/ref/copy" "$r" "$tmp/ref/out"
  want[$r]=$(last_line "$tmp/ref/out/$r.out")
  if [ $rc -ne 0 ]; then
    echo "run_official: the stock $interp fails $r (exit $rc): not a usable suite" >&2
    excerpt "$tmp/ref/out/$r.err" 10 >&2
    exit 1
  fi
done

failed=0
pending_failed=0
passed=0
for mode in $modes; do
  case $mode in
    luaprof) cmd=("$luaprof" -o /dev/null) ;;
    memory) cmd=("$luaprof" --memory --frames -o /dev/null) ;;
    offline|self) cmd=("$interp") ;;
    *) echo "run_official: unknown mode $mode" >&2; exit 2 ;;
  esac
  d=$tmp/$mode
  mkdir -p "$d/out"
  cp -r -- "$suite" "$d/copy" || exit 2
  : > "$d/applied.tsv"
  if [ ${#lists[@]} -gt 0 ]; then
    listmode=$mode
    [ "$mode" = memory ] && listmode=luaprof
    "$interp" "$here/disable.lua" apply "$listmode" "$d/copy" "${lists[@]}" \
      > "$d/applied.tsv" || exit 1
  fi
  if [ "$mode" = offline ]; then
    while IFS= read -r -d '' f; do
      "$bin/luainstr" --lua "$ver" -o "$f" "$f" || { echo "run_official: luainstr failed on $f" >&2; exit 1; }
    done < <(find "$d/copy" -name '*.lua' -print0)
  fi
  for r in "${runs[@]}"; do
    run_one "$d/copy" "$r" "$d/out"
    why=()
    [ $rc -eq 0 ] || why+=("exit status $rc$([ $rc -ge 124 ] && echo ' (timeout or signal)')")
    got=$(last_line "$d/out/$r.out")
    [ "$got" = "${want[$r]}" ] || why+=("ends with '${got:0:60}', not '${want[$r]:0:60}'")
    covered=("$r")
    [ "$r" = all.lua ] && covered=("${files[@]}")
    check=check
    [ "$mode" = self ] && check=check-pass
    "$interp" "$here/disable.lua" $check "$d/applied.tsv" "$d/out/$r.log" \
      "${covered[@]}" > "$d/out/$r.check"
    grep -q '^\(PASSES\|UNREACHED\)' "$d/out/$r.check" && why+=("listed assertions that no longer fail")
    grep -q '^FAILS' "$d/out/$r.check" && why+=("listed assertions that fail without instrumentation")
    npend=$(grep -c '^failed .*pending[-0-9.]*\.txt' "$d/out/$r.check")
    ndis=$(grep -c '^failed .*disabled[-0-9.]*\.txt' "$d/out/$r.check")
    if [ $npend -gt 0 ]; then
      pending_failed=$((pending_failed + 1))
      [ "$pending" = allow ] || why+=("$npend pending assertion(s) still fail (known defects)")
    fi
    if [ ${#why[@]} -eq 0 ]; then
      passed=$((passed + 1))
      [ "$mode" = self ] && ndis=$(grep -c '^passed ' "$d/out/$r.check")
    printf 'ok    %-8s %-15s (%d disabled%s)\n' "$mode" "$r" "$ndis" \
        "$([ $npend -gt 0 ] && echo ", $npend pending")"
    else
      failed=$((failed + 1))
      printf 'FAIL  %-8s %-15s %s\n' "$mode" "$r" "$(IFS=';'; echo "${why[*]}")"
      grep -v '^\(failed .*disabled[-0-9.]*\.txt\|passed \)' "$d/out/$r.check" | sed 's/^/    /'
      [ $rc -eq 0 ] || tail -n 14 -- "$d/out/$r.err" | cut -c1-160 | sed 's/^/    /'
    fi
  done
done

echo "$passed passed, $failed failed$([ $pending_failed -gt 0 ] && echo " ($pending_failed with pending defects)")"
[ $failed -eq 0 ]
