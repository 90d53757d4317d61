#!/usr/bin/env bash
# suite.sh LUAPROFJIT SUITE -- LuaJIT's own test suite under luaprofjit.
#
# SUITE is the folder holding LuaJIT's test suite (test/ and bench/ of
# LuaJIT/LuaJIT-test-cleanup; CI keeps it as ../shared/luajit-tests).  Its
# test/ is copied to a scratch folder (the original is never written) and
# run there twice, as its README says (`luajit test.lua` in test/):
#   stock     luajit test.lua
#   profiled  LUAPROFJIT [LI_LUAPROF_FLAGS] -f json -o REPORT test.lua
# so the runner, every test file it loads and every chunk the tests load
# are instrumented.  The two runs must end alike: the same summary line
# ("N passed, M failed"), the same exit status, the same failing tests
# (number and name), each failing with the same first line of its message
# (addresses aside); and the profiled run must have written a report that
# names the runner's functions (with --memory: memory measured).  Nothing
# is compared with figures written down here: stock luajit is the baseline.
#
# A missing SUITE or luajit skips (exit 77), saying what is missing and
# where to get it, or fails when CI is set (tests/shared_missing.sh).
# LI_KEEP=1 keeps the scratch folder (its path is printed).
set -u
prog=suite.sh
[ $# -eq 2 ] || { echo "usage: $0 LUAPROFJIT SUITE" >&2; exit 2; }
luaprof=$1
suite=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
flags=${LI_LUAPROF_FLAGS:-}

if [ ! -f "$suite/test/test.lua" ]; then
  . "$here/../shared_missing.sh"
  shared_missing "$prog" "LuaJIT's test suite is not at '$suite' (no test/test.lua)" \
    "It is test/ and bench/ of github.com/LuaJIT/LuaJIT-test-cleanup (commit 014708b)," \
    "kept as ../shared/luajit-tests beside the project (where CI keeps it), or" \
    "in the folder given by -DLI_LUAJIT_SUITE=/path."
fi
if ! command -v luajit > /dev/null 2>&1; then
  . "$here/../shared_missing.sh"
  shared_missing "$prog" "no luajit on the PATH (the stock run is the baseline)" \
    "Install Debian's package luajit."
fi
[ -x "$luaprof" ] || { echo "$prog: FAIL: no luaprofjit at '$luaprof'" >&2; exit 1; }
luaprof=$(cd "$(dirname "$luaprof")" && pwd)/$(basename "$luaprof")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-luajit-suite.XXXXXX") || exit 2
if [ "${LI_KEEP:-0}" = 1 ]; then
  echo "$prog: keeping $tmp"
else
  trap 'rm -rf -- "$tmp"' EXIT
fi
cp -R "$suite/test" "$tmp/test" || exit 2
chmod -R u+w "$tmp/test"

# run NAME CMD...: run in the copy of test/, stdout+stderr to $tmp/NAME.out,
# exit status to $tmp/NAME.status; stdout line-buffered, so that after a
# crash the last line names the test that was running
run() {
  local name=$1 st
  shift
  (cd "$tmp/test" && timeout 600 stdbuf -oL "$@" < /dev/null > "$tmp/$name.out" 2>&1); st=$?
  echo "$st" > "$tmp/$name.status"
}

# The failing tests of a run's output, one per line:
#   NUMBER<TAB>FILE --- NAME<TAB>first line of the message, addresses as 0x?
# The runner prints "[i/n] file --- name" before each test and the error
# after a failing one; the last line lists the failing numbers.
failures() {
  awk '
    /^\[ *[0-9]+\/[0-9]+\] / {
      cur = $0; sub(/^\[ */, "", cur); num = cur; sub(/\/.*/, "", num)
      name[num] = cur; sub(/^[^]]*\] /, "", name[num]); after[num] = ""; last = num; next
    }
    /^to run just failing tests, pass command line arguments: / {
      sub(/^[^:]*: /, ""); n = split($0, nums, " ")
      for (i = 1; i <= n; i++) print nums[i] "\t" name[nums[i]] "\t" first[nums[i]]
      next
    }
    last != "" && !(last in first) { line = $0; gsub(/0x[0-9a-fA-F]+/, "0x?", line); first[last] = line }
  ' "$1"
}

summary() { grep -E '^[0-9]+ passed' "$1" | tail -n 1; }

run stock luajit test.lua
# shellcheck disable=SC2086
run profiled "$luaprof" $flags -f json -o "$tmp/report.json" test.lua

failed=0
fail() { echo "$prog: FAIL: $*"; failed=1; }

s_stock=$(summary "$tmp/stock.out")
s_prof=$(summary "$tmp/profiled.out")
echo "stock luajit:  ${s_stock:-no summary} (exit $(cat "$tmp/stock.status"))"
echo "luaprofjit${flags:+ $flags}: ${s_prof:-no summary} (exit $(cat "$tmp/profiled.status"))"
[ -n "$s_stock" ] || fail "the stock run printed no summary (its end: $(tail -n 1 "$tmp/stock.out"))"
# (a crash leaves the test that caused it as the last line, the README says)
[ -n "$s_prof" ] || fail "luaprofjit's run printed no summary; its end:
$(tail -n 3 "$tmp/profiled.out" | sed 's/^/  | /')"
[ "$s_stock" = "$s_prof" ] || fail "summaries differ"
[ "$(cat "$tmp/stock.status")" = "$(cat "$tmp/profiled.status")" ] || fail "exit statuses differ"
failures "$tmp/stock.out" > "$tmp/stock.fail"
failures "$tmp/profiled.out" > "$tmp/profiled.fail"
if ! diff "$tmp/stock.fail" "$tmp/profiled.fail" > "$tmp/fail.diff"; then
  fail "failing tests differ (< stock, > luaprofjit):"
  sed 's/^/  | /' "$tmp/fail.diff"
else
  echo "failing tests, the same in both:"
  sed 's/^/  | /' "$tmp/stock.fail"
fi
# The report: written, naming the runner's functions as the rewriter names them.
if [ ! -s "$tmp/report.json" ]; then
  fail "luaprofjit wrote no report"
elif ! grep -q '"name": "local execute_plan"' "$tmp/report.json"; then
  fail "the report does not name test.lua's execute_plan"
fi
case " $flags " in
  *" --memory "*)
    [ ! -s "$tmp/report.json" ] || grep -q '"memory": true' "$tmp/report.json" ||
      fail "--memory given but the report says memory was not measured" ;;
esac
[ $failed -eq 0 ] || exit 1
echo "same result under luaprofjit as under luajit"
