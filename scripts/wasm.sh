#!/usr/bin/env bash
# wasm.sh -- the WebAssembly build (README "WebAssembly"): installs what it
# needs (emscripten from Debian, Debian's lua5.4 source), builds Lua 5.4.4
# and luainstr with emcc into build-wasm/, runs the wasm tests (ctest -L
# wasm) and prints the sizes of what it built.  Idempotent like deps.sh:
# nothing is installed or downloaded again when it is there.
#
#   build-wasm/bin/luaprof.js     luaprof for node (node luaprof.js ...)
#   build-wasm/bin/lua.js         Lua's plain lua.c, same Lua, for baselines
#   build-wasm/bin/luainstr.js    the rewriter command
#   build-wasm/web/luainstr-web.js  the C host of samples/wasm/ for pages
#
# Exits with ctest's status.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
build=$root/build-wasm
src_cache=$root/build-src       # Debian's source (lua-source.sh), never committed

bash scripts/deps.sh           # host tools (re2c, lemon, cmake, lua5.4)

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "wasm.sh: need root or sudo" >&2; exit 1; }
  sudo=(sudo)
fi
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)

missing=()
for p in emscripten nodejs; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) == "install ok installed" ]] ||
    missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "wasm.sh: installing ${missing[*]}" >&2
  "${apt[@]}" update -qq
  "${apt[@]}" install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 \
    "${missing[@]}" >/dev/null
fi

# Debian's lua5.4 source, its patches applied (scripts/lua-source.sh).
lua_src=$(bash scripts/lua-source.sh "$src_cache")
echo "wasm.sh: Lua from $lua_src" >&2

# emscripten 3.1.6 runs its JS tools with node and needs Debian's node
# modules (acorn) on NODE_PATH.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
emcmake cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DLUAINSTR_LUA_SOURCE="$lua_src" >/dev/null
cmake --build "$build" -j2
"$root/web/build.sh" "$build"          # the page, next to its module

status=0
ctest --test-dir "$build" -L wasm --output-on-failure || status=$?

echo
echo "wasm.sh: sizes (raw, gzip -9)"
for f in "$build"/bin/lua.js "$build"/bin/luaprof.js "$build"/bin/luainstr.js \
         "$build"/web/luainstr-web.js; do
  printf '  %-34s %8d bytes  %8d gzipped\n' "${f#"$root"/}" \
    "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
done
exit "$status"
