#!/usr/bin/env bash
# The tests that read material kept beside the project (../shared: the
# official Lua suite, the real libraries' sources) skip when it is missing,
# saying what is missing and where to get it, and fail when CI is set
# (tests/shared_missing.sh).  Each script runs here with a folder that
# does not exist: it must exit 77 with its message, and 1 with CI=1.
#
# usage: shared_suites_skip.sh BIN_DIR TESTS_DIR
set -u
[ $# -eq 2 ] || { echo "usage: $0 BIN_DIR TESTS_DIR" >&2; exit 2; }
bin=$1
tests=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-skip.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT
missing=$tmp/no-such-folder
failed=0

# check NAME WANT_TEXT CMD...: the skip, then the failure under CI
check() {
  local name=$1 want=$2 st
  shift 2
  env -u CI "$@" >"$tmp/out" 2>&1; st=$?
  if [ $st -ne 77 ] || ! grep -q "SKIP" "$tmp/out" || ! grep -qF "$want" "$tmp/out"; then
    echo "FAIL $name: without CI: status $st (want 77, SKIP and '$want')"
    sed 's/^/  | /' "$tmp/out"
    failed=$((failed + 1))
  else
    echo "ok   $name skips:"
    sed 's/^/  | /' "$tmp/out"
  fi
  CI=1 "$@" >"$tmp/out" 2>&1; st=$?
  if [ $st -ne 1 ] || ! grep -q "FAIL" "$tmp/out" || ! grep -qF "$want" "$tmp/out"; then
    echo "FAIL $name: with CI=1: status $st (want 1, FAIL and '$want')"
    sed 's/^/  | /' "$tmp/out"
    failed=$((failed + 1))
  else
    echo "ok   $name fails with CI=1"
  fi
}

check official "lua-5.4.4-tests.tar.gz" \
  bash "$tests/official/run.sh" "$bin" "$missing" lua5.4
check real_penlight_tests "github.com/lunarmodules/Penlight" \
  bash "$tests/real/penlight_tests.sh" "$bin/luaprof" "$missing"
check real_busted_penlight "github.com/lunarmodules/Penlight" \
  bash "$tests/real/busted_specs.sh" "$bin/luaprof" "$missing" penlight-1.13.1 pl
check real_busted_luassert "github.com/lunarmodules/luassert" \
  bash "$tests/real/busted_specs.sh" "$bin/luaprof" "$missing" luassert-1.9.0 luassert
# The same scripts for the other Luas (when their luaprof5.N is built).
if [ -x "$bin/luaprof5.3" ]; then
  check official_53 "lua-5.3.6-tests" \
    bash "$tests/official/run.sh" "$bin" "$missing" lua5.3
  check real_busted_luassert_lua53 "github.com/lunarmodules/luassert" \
    bash "$tests/real/busted_specs.sh" "$bin/luaprof5.3" "$missing" luassert-1.9.0 luassert lua5.3
fi
if [ -x "$bin/luaprof5.1" ]; then
  check real_penlight_tests_lua51 "github.com/lunarmodules/Penlight" \
    bash "$tests/real/penlight_tests.sh" "$bin/luaprof5.1" "$missing" lua5.1
  check real_busted_penlight_lua51 "github.com/lunarmodules/Penlight" \
    bash "$tests/real/busted_specs.sh" "$bin/luaprof5.1" "$missing" penlight-1.13.1 pl lua5.1
fi
if [ -x "$bin/luaprofjit" ]; then
  check luajit_suite "LuaJIT-test-cleanup" \
    bash "$tests/luajit/suite.sh" "$bin/luaprofjit" "$missing"
fi
[ $failed -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
echo "all skip without the material, fail under CI"
