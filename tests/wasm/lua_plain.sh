#!/usr/bin/env bash
# lua_plain.sh LUA_JS -- lua.js (Lua's lua.c as WebAssembly) against the
# native lua5.4 on the behaviour programs that need no module: same stdout,
# same exit status.  (stderr differs by design: lua.c names itself after
# argv[0], which node makes the path of lua.js.)
set -u
[ $# -eq 1 ] || { echo "usage: $0 LUA_JS" >&2; exit 2; }
luajs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../behaviour/lua54" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-wasm-plain.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT
export LC_ALL=C LUA_PATH='./?.lua'
unset LUA_INIT LUA_INIT_5_4 LUA_PATH_5_4
mkdir "$tmp/run" && cp "$dir"/*.lua "$dir"/modules/*.lua "$tmp/run/"  # programs may write files
passed=0 failed=0
for prog in "$dir"/*.lua; do
  name=$(basename "$prog")
  [ -f "${prog%.lua}.args" ] && continue
  (cd "$tmp/run" && lua5.4 "$name" </dev/null >"$tmp/ref" 2>/dev/null; echo $? >>"$tmp/ref")
  (cd "$tmp/run" && node "$luajs" "$name" </dev/null >"$tmp/wasm" 2>/dev/null; echo $? >>"$tmp/wasm")
  if cmp -s "$tmp/ref" "$tmp/wasm"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "FAIL $name"
    diff "$tmp/ref" "$tmp/wasm" | head -10 | sed 's/^/    /'
  fi
done
echo "lua.js: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
