#!/usr/bin/env bash
# lua_plain.sh LUA_JS [INTERP [DIR...]] -- lua.js (Lua's lua.c as
# WebAssembly) against the native interpreter INTERP (default lua5.4) on
# the behaviour programs of each DIR (default tests/behaviour/lua54) that
# need no arguments: same stdout, same exit status.  (stderr differs by
# design: lua.c names itself after argv[0], which node makes the path of
# lua.js.)  LI_SKIP="NAME.lua ...": programs left out (said in the output).
set -u
[ $# -ge 1 ] || { echo "usage: $0 LUA_JS [INTERP [DIR...]]" >&2; exit 2; }
luajs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
interp=${2:-lua5.4}
[ $# -ge 3 ] && shift 2 || set -- "$(dirname "${BASH_SOURCE[0]}")/../behaviour/lua54"
command -v "$interp" >/dev/null || { echo "lua_plain.sh: no $interp" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-wasm-plain.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT
export LC_ALL=C LUA_PATH='./?.lua'
unset LUA_INIT LUA_INIT_5_2 LUA_INIT_5_3 LUA_INIT_5_4 LUA_PATH_5_2 LUA_PATH_5_3 LUA_PATH_5_4
passed=0 failed=0
for d in "$@"; do
  dir=$(cd "$d" && pwd) || exit 2
  rm -rf "$tmp/run" && mkdir "$tmp/run"
  cp "$dir"/*.lua "$tmp/run/"           # programs may write files
  if [ -d "$dir/modules" ]; then cp "$dir"/modules/*.lua "$tmp/run/"; fi
  for prog in "$dir"/*.lua; do
    name=$(basename "$prog")
    [ -f "${prog%.lua}.args" ] && continue
    case " ${LI_SKIP:-} " in *" $name "*) echo "skip ${dir##*/}/$name (LI_SKIP)"; continue ;; esac
    (cd "$tmp/run" && "$interp" "$name" </dev/null >"$tmp/ref" 2>/dev/null; echo $? >>"$tmp/ref")
    (cd "$tmp/run" && node "$luajs" "$name" </dev/null >"$tmp/wasm" 2>/dev/null; echo $? >>"$tmp/wasm")
    if cmp -s "$tmp/ref" "$tmp/wasm"; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1)); echo "FAIL ${dir##*/}/$name"
      diff "$tmp/ref" "$tmp/wasm" | head -10 | sed 's/^/    /'
    fi
  done
done
echo "lua.js: $passed passed, $failed failed ($interp)"
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]
