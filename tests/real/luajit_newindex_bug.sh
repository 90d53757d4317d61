#!/usr/bin/env bash
# Is LuaJIT's recorder bug (luajit_newindex_bug.lua) still in this luajit?
# real_ljsyscall_luajit runs with the JIT off because of it: when the bug
# is gone this fails, saying so, and the JIT can go back on there.
# usage: luajit_newindex_bug.sh [LUAJIT]
set -u
lua=${1:-luajit}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
off=$("$lua" -joff "$here/luajit_newindex_bug.lua") || exit 1
on=$("$lua" "$here/luajit_newindex_bug.lua") || exit 1
if [ "$off" != $'0\t101' ]; then
  echo "FAIL: with the JIT off the program printed '$off', not '0<TAB>101'"
  exit 1
fi
if [ "$on" = "$off" ]; then
  echo "FAIL: $lua no longer has the recorder bug: run real_ljsyscall_luajit" \
       "with the JIT on again (tests/CMakeLists.txt, LI_LUA_FLAGS)"
  exit 1
fi
echo "ok   $lua still has the recorder bug (JIT on: '$on', off: '$off'):" \
     "real_ljsyscall_luajit runs with -joff"
