#!/usr/bin/env bash
# lua-internals.sh -- the CMake options that give each Lua's own headers
# (Debian's source packages, scripts/lua-source.sh) to the probe's direct
# path: -DLUAINSTR_LUA_INTERNALS=... for 5.4 and -DLUAINSTR_LUA5N_INTERNALS
# for each other Lua whose -dev package is installed, and
# -DLUAINSTR_LUAJIT_INTERNALS for LuaJIT (libluajit-5.1-dev).  Prints them on one
# line for a cmake command line:
#
#   cmake -S . -B build $(bash scripts/lua-internals.sh [CACHE])
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${1:-$root/build-src}
opts=("-DLUAINSTR_LUA_INTERNALS=$(bash "$root/scripts/lua-source.sh" 5.4 "$cache")")
for v in 5.1 5.2 5.3; do
  pkg-config --exists "lua$v" || continue
  opts+=("-DLUAINSTR_LUA${v/./}_INTERNALS=$(bash "$root/scripts/lua-source.sh" "$v" "$cache")")
done
if pkg-config --exists luajit; then
  opts+=("-DLUAINSTR_LUAJIT_INTERNALS=$(bash "$root/scripts/lua-source.sh" jit "$cache")")
fi
echo "${opts[@]}"
