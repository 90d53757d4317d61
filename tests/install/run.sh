#!/usr/bin/env bash
# run.sh -- install luainstr into a scratch prefix and use it as an outside
# user would:
#   1. cmake --install BUILD --prefix TMP/prefix
#   2. build samples/host with find_package(luainstr) (CMAKE_PREFIX_PATH)
#      and with pkg-config (PKG_CONFIG_PATH, samples/host/Makefile), run
#      both, and check that the profile names the sample's culprit;
#   3. a stock lua5.4 requires the installed luainstr.so (LUA_CPATH) and
#      profiles a chunk loaded after it;
#   4. the installed luaprof profiles the sample script;
#   5. for every Lua the package was built for (5.1 to 5.4, LuaJIT):
#      tests/install/host (luaL_dofile, a coroutine resumed from C, through
#      luainstr_wrap.h with that Lua's API) built with pkg-config
#      luainstr5.N (luainstrjit) and with find_package's
#      luainstr::luainstr5.N (luainstr::luainstrjit), and its controls
#      without the header; lua5.N (luajit) requires the installed module
#      from the folder the .pc file names (cmoddir: lib/lua/5.1 for
#      LuaJIT, where 5.1's module, if installed, opens LuaJIT's beside it)
#      and runs `lua5.N -l luainstr.run`; luaprof5.N (luaprofjit) runs a
#      script;
#   6. an install under DESTDIR: luaprof5.4 is a link to luaprof there too.
#
#   run.sh [BUILD_DIR]   BUILD_DIR: an already built tree; without it the
#                        project is configured and built in a scratch dir,
#                        for the Luas LI_INSTALL_LUAS names if it is set
#                        (LUAINSTR_LUA_VERSIONS, spaces for ';', e.g.
#                        "5.4 jit": LuaJIT's module alone in lib/lua/5.1).
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
  cmake -S "$SRC" -B "$BUILD" -DBUILD_TESTING=OFF \
        ${LI_INSTALL_LUAS:+"-DLUAINSTR_LUA_VERSIONS=${LI_INSTALL_LUAS// /;}"} >"$WORK/configure.log" 2>&1 \
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

# --- 5. every Lua ---------------------------------------------------------
HOST_SRC=$SRC/tests/install/host
HOST_LUA=$HOST_SRC/host.lua

# Checks the reports of tests/install/host ($1: what ran, $2: the text
# report; $2.csv beside it): step 8 calls, task 1, and no note that a
# load or a resume bypassed the profiler.
check_host() {
  local what=$1 rep=$2 calls
  [[ -s $rep && -s $rep.csv ]] || fail "$what: no report"
  calls=$(awk -F, '$1 == "local step" { s = $5 } $1 == "task" { t = $5 }
                   END { print s "/" t }' "$rep.csv")
  [[ $calls == 8/1 ]] \
    || { cat "$rep.csv" >&2; fail "$what: step/task called $calls times, not 8/1"; }
  if grep -q "luainstr_wrap.h" "$rep"; then
    cat "$rep" >&2; fail "$what: the report says a load or a resume bypassed the profiler"
  fi
  echo "ok: $what: step 8 calls, task 1 (resumed from C), no bypass"
}
# The controls: the report must say what bypassed the profiler ($3).
check_control() {
  local what=$1 rep=$2 note=$3
  grep -q "$note" "$rep" || { cat "$rep" >&2; fail "$what: the report does not say '$note'"; }
  echo "ok: $what (control): '$note'"
}
# Runs host program $1 (of what $2 names) on host.lua, its report $3.
run_host() {
  "$1" "$HOST_LUA" "$3" >/dev/null || fail "$2: $(basename "$1") exited $?"
}
# The calls of `local step` in csv report $1 ($2: what made it), which
# must be $3.
step_calls() {
  local calls
  calls=$(awk -F, '$1 == "local step" { print $5 }' "$1" 2>/dev/null)
  [[ $calls == "$3" ]] || { cat "$1" >&2; fail "$2: step called ${calls:-no} times, not $3"; }
  echo "ok: $2: a report, step $3 calls"
}
# Runs a command with the installed module of Lua $V first on the C path
# (the folder the .pc file names: $cmod).
with_module() {
  local mod="$cmod/?.so"
  LUA_CPATH=$mod LUA_CPATH_5_2=$mod LUA_CPATH_5_3=$mod LUA_CPATH_5_4=$mod "$@"
}
BYPASS_LOAD="no chunk went through the profiler's loader"
BYPASS_RESUME="Lua ran 4 times on a thread the profiler was not told of"
# LuaJIT's FFI probe (the JIT on, its default) sees a coroutine resumed
# behind its back only from the first boundary the coroutine passes
# (docs/luajit.md): its count of such runs is not the C probe's, which the
# control of LuaJIT also runs under, exactly.
BYPASS_RESUME_ANY="Lua ran [0-9][0-9]* times on a thread the profiler was not told of"
# noresume_controls WHAT DIR: host_noresume of DIR run and checked
noresume_controls() {
  run_host "$2/host_noresume" "$1" "$2/noresume.txt"
  if [[ $V == jit ]]; then
    check_control "host_noresume ($1)" "$2/noresume.txt" "$BYPASS_RESUME_ANY"
    LUAINSTR_PROBE=api run_host "$2/host_noresume" "$1, probe api" "$2/noresume-api.txt"
    check_control "host_noresume ($1, probe api)" "$2/noresume-api.txt" "$BYPASS_RESUME"
  else
    check_control "host_noresume ($1)" "$2/noresume.txt" "$BYPASS_RESUME"
  fi
}

for V in 5.1 5.2 5.3 5.4 jit; do
  if [[ $V == 5.4 ]]; then pc=luainstr lib=libluainstr prof=luaprof
  else pc=luainstr$V lib=libluainstr$V prof=luaprof$V; fi
  [[ -f $LIBDIR/pkgconfig/$pc.pc ]] || { echo "-- no Lua $V in the package"; continue; }
  # LuaJIT's module: lib/lua/5.1, as luainstr_jit.so beside 5.1's
  ABI=$V INTERP=lua$V MODFILE=$LIBDIR/lua/$V/luainstr.so
  if [[ $V == jit ]]; then
    ABI=5.1 INTERP=luajit MODFILE=$LIBDIR/lua/5.1/luainstr.so
    [[ -f $LIBDIR/pkgconfig/luainstr5.1.pc ]] && MODFILE=$LIBDIR/lua/5.1/luainstr_jit.so
  fi
  for f in "$LIBDIR/$lib.a" "$LIBDIR/$lib.so" "$MODFILE" "$PREFIX/bin/$prof"; do
    [[ -e $f ]] || fail "not installed: ${f#"$PREFIX"/}"
  done

  step "Lua $V: tests/install/host with pkg-config $pc"
  HV=$WORK/host$V-pc
  mkdir -p "$HV"
  pcq() { PKG_CONFIG_PATH=$(dirname "$PCFILE") pkg-config "$@" "$pc"; }
  flags=$(pcq --cflags --libs) || fail "pkg-config $pc"
  [[ " $flags " == *" -l${lib#lib} "* && " $flags " == *"lua$V"* ]] \
    || fail "pkg-config $pc: $flags (not -l${lib#lib} and Lua $V)"
  cmod=$(pcq --variable=cmoddir)
  [[ $(pcq --variable=lua_version) == "$ABI" && $(pcq --variable=interpreter) == "$INTERP" &&
     $(realpath "$cmod") == $(realpath "$LIBDIR/lua/$ABI") && -f $cmod/luainstr.so ]] \
    || fail "pkg-config $pc: lua_version, interpreter or cmoddir ($cmod) is not Lua $V's"
  for variant in host:-DLI_WRAP host_nowrap:-DLI_NO_WRAP host_noresume:-DLI_NO_WRAP_RESUME; do
    # shellcheck disable=SC2086
    cc -O2 -Wall -Wextra -Werror "${variant#*:}" -o "$HV/${variant%:*}" "$HOST_SRC/host.c" \
      $flags >"$WORK/host$V.log" 2>&1 \
      || { cat "$WORK/host$V.log" >&2; fail "build ${variant%:*} for Lua $V"; }
  done
  uses_prefix "$HV/host" "$lib"
  run_host "$HV/host" "Lua $V, pkg-config" "$HV/rep.txt"
  check_host "host (Lua $V, pkg-config $pc)" "$HV/rep.txt"
  run_host "$HV/host_nowrap" "Lua $V, pkg-config" "$HV/nowrap.txt"
  check_control "host_nowrap (Lua $V)" "$HV/nowrap.txt" "$BYPASS_LOAD"
  noresume_controls "Lua $V" "$HV"

  step "Lua $V: tests/install/host with find_package (luainstr::${pc})"
  HV=$WORK/host$V-cmake
  build_with_package "tests/install/host (Lua $V)" "$HOST_SRC" "$HV" \
    "$WORK/host$V-cmake.log" -DLUA="$V"
  uses_prefix "$HV/host" "$lib"
  run_host "$HV/host" "Lua $V, find_package" "$HV/rep.txt"
  check_host "host (Lua $V, find_package)" "$HV/rep.txt"
  noresume_controls "Lua $V, find_package" "$HV"

  command -v "$INTERP" >/dev/null || { echo "-- no $INTERP: its module is not tried"; continue; }
  step "Lua $V: $INTERP requires the installed module from $cmod"
  (cd "$HOST_SRC" && with_module "$INTERP" -e '
    local p = require "luainstr"
    assert(p.start())
    dofile "host.lua"
    local co = coroutine.wrap(task)
    for i = 1, 4 do co(0) end
    io.write(p.dump("csv"))') >"$WORK/mod$V.csv" 2>&1 \
    || { cat "$WORK/mod$V.csv" >&2; fail "$INTERP with the installed module"; }
  step_calls "$WORK/mod$V.csv" "$INTERP + require \"luainstr\"" 8

  step "Lua $V: $INTERP -l luainstr.run"
  (cd "$HOST_SRC" && LUAINSTR_OUT="$WORK/run$V.csv" LUAINSTR_FORMAT=csv \
     with_module "$INTERP" -l luainstr.run host.lua) >"$WORK/run$V.log" 2>&1 \
    || { st=$?; cat "$WORK/run$V.log" >&2; fail "$INTERP -l luainstr.run exited $st"; }
  step_calls "$WORK/run$V.csv" "$INTERP -l luainstr.run" 5

  step "Lua $V: installed $prof"
  "$PREFIX/bin/$prof" -f csv -o "$WORK/prof$V.csv" "$HOST_LUA" >/dev/null 2>&1 \
    || fail "$prof exited $?"
  step_calls "$WORK/prof$V.csv" "$prof" 5
done

# a Lua the package does not have: find_package says so
if cmake -S "$HOST_SRC" -B "$WORK/host5.9" -DCMAKE_PREFIX_PATH="$PREFIX" -DLUA=5.9 \
     >"$WORK/host5.9.log" 2>&1; then
  fail "find_package(luainstr COMPONENTS 5.9) succeeded"
fi
grep -q "luainstr for Lua 5.9: not in" "$WORK/host5.9.log" \
  || { cat "$WORK/host5.9.log" >&2; fail "find_package(luainstr COMPONENTS 5.9): no message"; }
echo "ok: find_package(luainstr COMPONENTS 5.9) fails, naming the Luas it has"

# luaprof5.4 is luaprof, a link beside it
[[ -L $PREFIX/bin/luaprof5.4 && $(readlink "$PREFIX/bin/luaprof5.4") == luaprof ]] \
  || fail "bin/luaprof5.4 is not a link to luaprof"
"$PREFIX/bin/luaprof5.4" --version >/dev/null 2>&1 || fail "luaprof5.4 --version exited $?"
echo "ok: bin/luaprof5.4 -> luaprof"

# --- 6. under DESTDIR -------------------------------------------------------
step "install with DESTDIR"
DEST=$WORK/destdir
opt_before=$([[ -e /opt/luainstr ]] && echo yes || true)
DESTDIR=$DEST cmake --install "$BUILD" --prefix /opt/luainstr >"$WORK/destdir.log" 2>&1 \
  || { cat "$WORK/destdir.log" >&2; fail "DESTDIR install"; }
[[ -L $DEST/opt/luainstr/bin/luaprof5.4 && -x $DEST/opt/luainstr/bin/luaprof ]] \
  || fail "DESTDIR: no bin/luaprof5.4 link beside bin/luaprof"
[[ $(readlink "$DEST/opt/luainstr/bin/luaprof5.4") == luaprof ]] \
  || fail "DESTDIR: bin/luaprof5.4 -> $(readlink "$DEST/opt/luainstr/bin/luaprof5.4"), not luaprof"
[[ -n $opt_before || ! -e /opt/luainstr ]] || fail "DESTDIR: the install wrote /opt/luainstr"
"$DEST/opt/luainstr/bin/luaprof5.4" -o /dev/null "$HOST_LUA" >/dev/null 2>&1 \
  || fail "DESTDIR: luaprof5.4 exited $?"
echo "ok: DESTDIR install: bin/luaprof5.4 -> luaprof, runs"

echo "PASS: install, find_package, pkg-config, Lua module, luaprof, every Lua"
