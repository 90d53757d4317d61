#!/usr/bin/env bash
# wasm.sh -- the WebAssembly builds (docs/wasm.md): installs what
# they need (emscripten from Debian, Debian's lua5.4 and lua5.3 sources),
# builds Lua and luainstr with emcc, one tree per Lua, runs the wasm tests
# (ctest -L wasm) in each and prints the sizes of what it built.
# Idempotent like deps.sh: nothing is installed or downloaded again when it
# is there.
#
#   build-wasm/     Lua 5.4.4: everything below, the page, the bench hosts
#     bin/luaprof.js     luaprof for node (node luaprof.js ...)
#     bin/lua.js         Lua's plain lua.c, same Lua, for baselines
#     bin/luainstr.js    the rewriter command
#     web/luainstr-web.js  the C host of samples/wasm/ for pages
#   build-wasm53/   Lua 5.3.6 (xLua's WebGL builds run 5.3): luaprof.js,
#                   lua.js and luainstr-web.js only, and their tests
#                   (tests/wasm/CMakeLists.txt names them *_lua53)
#
# usage: scripts/wasm.sh [all|5.4|5.3]      (default: all)
# Exits 0 when every tree's tests passed, else 1 (2 on a usage error).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
src_cache=$root/build-src       # Debian's source (lua-source.sh), never committed

what=${1:-all}
case $what in
  all|5.4|5.3) ;;
  *) echo "usage: $0 [all|5.4|5.3]" >&2; exit 2 ;;
esac

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

# emscripten 3.1.6 runs its JS tools with node and needs Debian's node
# modules (acorn) on NODE_PATH.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

# tree VERSION DIR [TARGET...]: Debian's lua5.N source, its patches applied
# (scripts/lua-source.sh), built with luainstr into DIR (every target, or
# the TARGETs), and the tests of label wasm run there; prints the time it
# took and returns ctest's status.
tree() {
  local version=$1 build=$2 start=$SECONDS st=0 lua_src targets=()
  shift 2
  [[ $# -gt 0 ]] && targets=(--target "$@")
  # (each step checked: set -e does not act inside a function called
  # with ||)
  lua_src=$(bash scripts/lua-source.sh "$version" "$src_cache") || return 1
  echo "== wasm.sh: Lua $version from $lua_src into ${build#"$root"/}" >&2
  emcmake cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DLUAINSTR_LUA_SOURCE="$lua_src" >/dev/null &&
    cmake --build "$build" -j2 "${targets[@]}" &&
    { [[ $version != 5.4 ]] || "$root/web/build.sh" "$build"; } &&  # the page, by its module
    # (one at a time: two at a time, the page's and the browser's timed
    # known answers in headless Chromium failed beside the behaviour test)
    ctest --test-dir "$build" -L wasm --output-on-failure || st=$?
  echo "== wasm.sh: Lua $version: $([ $st -eq 0 ] && echo passed || echo FAILED)" \
       "in $((SECONDS - start)) s" >&2
  return $st
}

status=0
built=()
if [[ $what != 5.3 ]]; then
  tree 5.4 "$root/build-wasm" || status=1
  built+=(build-wasm/bin/lua.js build-wasm/bin/luaprof.js build-wasm/bin/luainstr.js
          build-wasm/web/luainstr-web.js)
fi
if [[ $what != 5.4 ]]; then
  tree 5.3 "$root/build-wasm53" luaprof lua luainstr_web heap_sizes_wasm || status=1
  built+=(build-wasm53/bin/lua.js build-wasm53/bin/luaprof.js
          build-wasm53/web/luainstr-web.js)
fi

echo
echo "wasm.sh: sizes (raw, gzip -9)"
for f in "${built[@]}"; do
  [[ -f $root/$f ]] || { echo "  $f: not built"; continue; }
  printf '  %-34s %8d bytes  %8d gzipped\n' "$f" \
    "$(stat -c %s "$root/$f")" "$(gzip -9c "$root/$f" | wc -c)"
done
exit "$status"
