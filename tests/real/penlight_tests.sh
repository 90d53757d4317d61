#!/usr/bin/env bash
# Penlight 1.13.1's classic tests (tests/*.lua, one script each) against
# Debian's installed penlight: every script must give the same stdout,
# stderr and exit status under `lua5.4 tests/T.lua` and under
# `luaprof -f csv -o REPORT tests/T.lua` (or lua5.N and luaprof5.N: Debian
# installs penlight for 5.1 to 5.4, and luajit and luaprofjit read the
# 5.1 one), run from the root of a fresh copy
# of the suite's tests/ (the same path for both sides: some tests write files, and
# messages hold paths).  Nothing is normalised but the address in
# LuaJIT's tracebacks (common.sh, run_side).  Scripts that fail plainly
# (test-dir.lua and test-path.lua expect penlight's source tree) are
# compared all the same: they must fail the same way (so must
# test-compat.lua on 5.1, which expects a 5.2 `load`).  Each report must
# name the script's own chunk and some penlight function.
#
# usage: penlight_tests.sh LUAPROF_BIN SUITES_DIR [LUA]
#   LUA  the stock interpreter LUAPROF_BIN is built for (default lua5.4)
# Environment: LI_ONLY=GLOB (scripts to run), LI_KEEP=1, LI_TIMEOUT=S,
# LI_LUAPROF_FLAGS (more luaprof options, split at spaces: --memory).
# Prints one line per script, the run times, `N passed, N failed`.
set -u
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 LUAPROF_BIN SUITES_DIR [LUA]" >&2; exit 2; }
# shellcheck source=tests/real/common.sh
. "$here/common.sh"
real_init penlight_tests.sh "$1" "$2" "${3:-lua5.4}"

need_suite penlight-1.13.1
[ -d "$src/tests" ] || { echo "$prog: FAIL: no $src/tests" >&2; exit 1; }
run=$tmp/run/penlight-1.13.1
only=${LI_ONLY:-*}
passed=0
failed=0
plain_fail=()

for t in "$src"/tests/*.lua; do
  name=$(basename "$t")
  # shellcheck disable=SC2053
  [[ $name == $only ]] || continue
  out=$tmp/out/${name%.lua}
  mkdir -p "$out"
  report=$out/report.csv
  for side in ref prof; do
    fresh_copy "$src/tests" "$run/tests"   # the scripts read nothing else
    if [ $side = ref ]; then cmd=("$lua"); else cmd=("$prof" ${LI_LUAPROF_FLAGS:-} -f csv -o "$report"); fi
    cd "$run" || exit 2
    timed_side "$out" $side "${cmd[@]}" "tests/$name"
    cd "$tmp" || exit 2
  done
  [ "$(cat "$out/ref.status")" = 0 ] || plain_fail+=("$name")
  msgs=$(differs "$out"
         report_lacks "$report" "tests/$name:tests/$name" "penlight:/pl/")
  if [ -z "$msgs" ]; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    printf '%s\n' "$msgs"
    failed=$((failed + 1))
  fi
done

echo "failing plainly too (compared all the same): ${plain_fail[*]:-none}"
echo "run time: $lua ${ms_ref} ms, $(basename "$prof") ${ms_prof} ms (all scripts)"
echo "$passed passed, $failed failed"
[ $((passed + failed)) -gt 0 ] && [ "$failed" -eq 0 ]
