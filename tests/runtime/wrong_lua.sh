#!/usr/bin/env bash
# The C module built for one Lua, required by another: every stock lua5.N
# and luajit installed requires every other version's lib/lua/5.M/
# luainstr.so and lib/lua/jit/luainstr.so (as `luainstr` and as
# `luainstr.run`) and must fail with status 1 and the module's message
# naming the one it needs, never crash; under pcall the error is an
# ordinary one and the interpreter goes on.  Then its own version's module
# still loads.  And LuaJIT, which looks for C modules where Lua 5.1 does,
# given the 5.1 module as luainstr.so with the LuaJIT one beside it as
# luainstr_jit.so (as they are installed together), gets the LuaJIT one,
# as `luainstr` and as `luainstr.run`, while lua5.1 keeps its own.
#
# usage: wrong_lua.sh BUILD_DIR      (holds lib/lua/5.N/luainstr.so)
set -u
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
unset LUA_INIT LUA_INIT_5_2 LUA_INIT_5_3 LUA_INIT_5_4 LUA_CPATH LUA_CPATH_5_2 \
  LUA_CPATH_5_3 LUA_CPATH_5_4
export LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-wrong-lua.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT

passed=0 failed=0 pairs=0
result() {  # name ok(0) detail-file
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "pass  $1"
  else failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$3"; fi
}

# The interpreter of version $1 (jit: luajit), and how a module names it.
interp() { if [ "$1" = jit ]; then echo luajit; else echo "lua$1"; fi; }
title() { if [ "$1" = jit ]; then echo LuaJIT; else echo "Lua $1"; fi; }

modules=() luas=()
for v in 5.1 5.2 5.3 5.4 jit; do
  [ -f "$build/lib/lua/$v/luainstr.so" ] && modules+=("$v")
  command -v "$(interp $v)" >/dev/null && luas+=("$v")
done
[ ${#modules[@]} -ge 2 ] || { echo "wrong_lua.sh: fewer than two modules built in $build" >&2; exit 2; }

for v in "${luas[@]}"; do
  lua=$(interp "$v")
  # "Lua 5.4.4"; a module of a Lua knows LuaJIT by name only
  release=$("$lua" -v 2>&1 | awk '{ print $1 " " $2; exit }')
  [ "$v" = jit ] && release=LuaJIT
  for m in "${modules[@]}"; do
    [ "$m" = "$v" ] && continue
    pairs=$((pairs + 1))
    so=$build/lib/lua/$m/luainstr.so
    want="luainstr: this module is for $(title "$m"), not $release: use lib/lua/$v/luainstr.so"
    for name in luainstr luainstr.run; do
      ok=0; : >"$tmp/out"
      # the preload searcher and the package.path ones find nothing; the
      # C searchers find only that file
      "$lua" -e "package.path = ''; package.cpath = '$so'; require '$name'" \
        >"$tmp/log" 2>&1; st=$?
      [ $st -eq 1 ] || { ok=1; echo "status $st, expected 1"; } >>"$tmp/out"
      [ $st -gt 128 ] && echo "crashed: signal $((st - 128))" >>"$tmp/out"
      grep -qF "$want" "$tmp/log" || { ok=1; echo "no message '$want'"; } >>"$tmp/out"
      [ $ok -eq 0 ] || sed 's/^/> /' "$tmp/log" >>"$tmp/out"
      result "$lua requires $name for $m" $ok "$tmp/out"
    done
    # under pcall: false and the message; the program goes on
    ok=0; : >"$tmp/out"
    out=$("$lua" -e "package.path = ''; package.cpath = '$so'
      local ok, err = pcall(require, 'luainstr')
      print(ok, err)
      print('after')" 2>&1); st=$?
    [ $st -eq 0 ] || { ok=1; echo "status $st, expected 0"; } >>"$tmp/out"
    grep -qF "false	$want" <<<"$out" || { ok=1; echo "pcall did not give false, '$want'"; } >>"$tmp/out"
    grep -qx "after" <<<"$out" || { ok=1; echo "did not go on"; } >>"$tmp/out"
    [ $ok -eq 0 ] || sed 's/^/> /' <<<"$out" >>"$tmp/out"
    result "$lua pcall(require) of $m's module" $ok "$tmp/out"
  done
  # its own module loads and starts
  if [ -f "$build/lib/lua/$v/luainstr.so" ]; then
    ok=0; : >"$tmp/out"
    out=$("$lua" -e "package.path = ''; package.cpath = '$build/lib/lua/$v/?.so'
      local p = require 'luainstr'; print(p.start())" 2>&1) || ok=1
    [ "$out" = true ] || { ok=1; echo "$out"; } >>"$tmp/out"
    result "$lua requires its own module" $ok "$tmp/out"
  fi
done
[ $pairs -gt 0 ] || { echo "wrong_lua.sh: no interpreter for another version's module" >&2; exit 2; }

# The two side by side as installed: lua5.1 gets its own, luajit the LuaJIT
# one through it (the 5.1 module itself refuses LuaJIT, above: a profile
# from luajit is the LuaJIT module's).
if [ -f "$build/lib/lua/5.1/luainstr.so" ] && [ -f "$build/lib/lua/jit/luainstr.so" ]; then
  both=$tmp/both
  mkdir -p "$both"
  cp "$build/lib/lua/5.1/luainstr.so" "$both/luainstr.so"
  cp "$build/lib/lua/jit/luainstr.so" "$both/luainstr_jit.so"
  printf 'local function f() end\nfor _ = 1, 7 do f() end\n' >"$tmp/seven.lua"
  for v in 5.1 jit; do
    lua=$(interp "$v")
    command -v "$lua" >/dev/null || continue
    ok=0; : >"$tmp/out"
    out=$("$lua" -e "package.path = ''; package.cpath = '$both/?.so'
      local p = require 'luainstr'
      assert(p.start())
      local f = assert(loadstring('local function g() end for _ = 1, 3 do g() end', '=c'))
      f()
      io.write(p.dump('csv'))" 2>&1) || ok=1
    grep -q '^local g,c,1,1,3,' <<<"$out" || { ok=1; echo "no row of g with 3 calls:"; echo "$out"; } >>"$tmp/out"
    result "$lua requires luainstr with 5.1's and LuaJIT's side by side" $ok "$tmp/out"
    ok=0; : >"$tmp/out"
    LUA_CPATH="$both/?.so" LUAINSTR_OUT="$tmp/seven.csv" LUAINSTR_FORMAT=csv \
      "$lua" -l luainstr.run "$tmp/seven.lua" >"$tmp/log" 2>&1 || { ok=1; cat "$tmp/log"; } >>"$tmp/out"
    grep -q '^local f,.*,1,1,7,' "$tmp/seven.csv" 2>/dev/null ||
      { ok=1; echo "no row of f with 7 calls:"; cat "$tmp/seven.csv"; } >>"$tmp/out" 2>&1
    result "$lua -l luainstr.run with 5.1's and LuaJIT's side by side" $ok "$tmp/out"
  done
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
