#!/usr/bin/env bash
# run.sh -- install luainstr into a scratch prefix and use it as an outside
# user would:
#   1. cmake --install BUILD --prefix TMP/prefix
#   2. build samples/host with find_package(luainstr) (CMAKE_PREFIX_PATH)
#      and with pkg-config (PKG_CONFIG_PATH, samples/host/Makefile), run
#      both, and check that the profile names the sample's culprit;
#   3. a stock lua5.4 requires the installed luainstr.so (LUA_CPATH) and
#      profiles a chunk loaded after it;
#   4. the installed luaprof profiles the sample script.
#
#   run.sh [BUILD_DIR]   BUILD_DIR: an already built tree; without it the
#                        project is configured and built in a scratch dir.
# Exits 0 when everything passed, 1 at the first failure.
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/luainstr-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CULPRIT='Enemy:find_path'
GAME=$SRC/samples/host/game.lua

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

# The first row of a text report: the function with the most self time.
top_function() { awk 'h && NF { print; exit } /^ *self%/ { h = 1 }'; }

# Checks a profile ($1: what made it, $2: the report) has CULPRIT on top.
check_profile() {
  local top
  grep -q "$CULPRIT" <<<"$2" || { echo "$2" >&2; fail "$1: no $CULPRIT in the profile"; }
  top=$(top_function <<<"$2")
  grep -q "$CULPRIT" <<<"$top" || { echo "$2" >&2; fail "$1: $CULPRIT is not the top row"; }
  echo "ok: $1: $top"
}

# --- 1. the build and its installation ------------------------------------
if [[ $# -ge 1 ]]; then
  BUILD=$(cd "$1" && pwd)
else
  BUILD=$WORK/build
  step "configure and build into $BUILD"
  cmake -S "$SRC" -B "$BUILD" -DBUILD_TESTING=OFF >"$WORK/configure.log" 2>&1 \
    || { cat "$WORK/configure.log" >&2; fail "configure"; }
  cmake --build "$BUILD" -j"$(nproc)" >"$WORK/build.log" 2>&1 \
    || { cat "$WORK/build.log" >&2; fail "build"; }
fi

PREFIX=$WORK/prefix
# shellcheck source=prefix.sh
. "$SRC/tests/install/prefix.sh"
install_prefix "$BUILD" "$PREFIX" "$WORK/install.log"
for f in "$PREFIX/include/luainstr.h" "$LIBDIR/libluainstr.a" \
         "$LIBDIR/libluainstr.so" "$LIBDIR/lua/5.4/luainstr.so" \
         "$LIBDIR/cmake/luainstr/luainstrConfig.cmake" \
         "$LIBDIR/cmake/luainstr/luainstrConfigVersion.cmake" \
         "$LIBDIR/cmake/luainstr/luainstrTargets.cmake" \
         "$PREFIX/bin/luainstr" "$PREFIX/bin/luaprof"; do
  [[ -e $f ]] || fail "not installed: ${f#"$PREFIX"/}"
done
echo "ok: installed files (libdir ${LIBDIR#"$PREFIX"/})"
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# --- 2a. the sample host through find_package(luainstr) -------------------
step "samples/host with CMake (CMAKE_PREFIX_PATH=$PREFIX)"
HC=$WORK/host-cmake
build_with_package samples/host "$SRC/samples/host" "$HC" "$WORK/host-cmake.log"
uses_prefix "$HC/host"
out=$("$HC/host" "$GAME" 2>&1) || { echo "$out" >&2; fail "host (CMake) exited $?"; }
check_profile "host (CMake, luainstr::luainstr)" "$out"
out=$("$HC/host_static" "$GAME" 2>&1) || { echo "$out" >&2; fail "host_static exited $?"; }
check_profile "host_static (CMake, luainstr::luainstr_static)" "$out"

# --- 2b. the sample host through pkg-config -------------------------------
step "samples/host with pkg-config (PKG_CONFIG_PATH=$(dirname "$PCFILE"))"
HP=$WORK/host-pkgconfig
mkdir -p "$HP"
PKG_CONFIG_PATH=$(dirname "$PCFILE") make -C "$HP" -f "$SRC/samples/host/Makefile" \
  >"$WORK/host-pc.log" 2>&1 \
  || { cat "$WORK/host-pc.log" >&2; fail "build samples/host (pkg-config)"; }
uses_prefix "$HP/host"
out=$("$HP/host" "$GAME" 2>&1) || { echo "$out" >&2; fail "host (pkg-config) exited $?"; }
check_profile "host (pkg-config)" "$out"

# --- 3. a stock lua5.4 requires the installed module ----------------------
step "lua5.4 require \"luainstr\" from $LIBDIR/lua/5.4"
MOD="$LIBDIR/lua/5.4/?.so"
out=$(LUA_CPATH_5_4="$MOD" LUA_CPATH="$MOD" lua5.4 - 2>&1 <<'LUA'
local p = require "luainstr"
local where = package.searchpath("luainstr", package.cpath)
print("module: " .. tostring(where))
p.start()
local chunk = assert(load([[
local function slow_culprit(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end
local function quick() return 1 end
for _ = 1, 5 do slow_culprit(300000); quick() end
]], "=chunk"))
chunk()
p.stop()
print(p.dump())
LUA
) || { echo "$out" >&2; fail "lua5.4 with the installed module"; }
grep -q "^module: $(realpath "$LIBDIR")/lua/5.4/luainstr.so\$\|^module: $LIBDIR/lua/5.4/luainstr.so\$" <<<"$out" \
  || { echo "$out" >&2; fail "lua5.4 did not load the installed luainstr.so"; }
CULPRIT='local slow_culprit' check_profile "lua5.4 + require \"luainstr\"" "$out"

# The script itself, from the command line: lua5.4 -l luainstr.run.
step "lua5.4 -l luainstr.run from $LIBDIR/lua/5.4"
out=$(cd "$(dirname "$GAME")" && LUA_CPATH_5_4="$MOD" LUA_CPATH="$MOD" \
      lua5.4 -l luainstr.run "$GAME" 2>&1) || { echo "$out" >&2; fail "lua5.4 -l luainstr.run exited $?"; }
check_profile "lua5.4 -l luainstr.run" "$out"

# --- 4. the installed luaprof ---------------------------------------------
step "installed luaprof"
out=$("$PREFIX/bin/luaprof" "$GAME" 2>&1) || { echo "$out" >&2; fail "luaprof exited $?"; }
check_profile "luaprof" "$out"

echo "PASS: install, find_package, pkg-config, Lua module, luaprof"
