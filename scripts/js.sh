#!/usr/bin/env bash
# js.sh -- build the rewriter for JavaScript (js/README.md) and test it.
#
#   scripts/js.sh [--no-test]
#
# Installs what is missing (Debian's emscripten, re2c, lemon; the test's
# npm packages come from tests/js/package-lock.json), generates the lexer
# and the grammar with the host's re2c and lemon as CMakeLists.txt does,
# compiles lexer/, parser/, rewriter/rewrite.c and js/api.c to WebAssembly
# (one file: the .wasm is inlined, SINGLE_FILE) and wraps the result in
# js/luainstr.in.js:
#   build-js/luainstr.js    CommonJS module, or a browser global `luainstr`
#   build-js/luainstr.mjs   ES module (same code, `export`s)
# Then runs tests/js/run.sh (the behaviour programs in wasmoon) unless
# --no-test.  Self-contained: it does not use or touch build/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
out=$root/build-js
gen=$out/gen
run_tests=1
[[ ${1:-} == --no-test ]] && run_tests=0

# --- what it needs -----------------------------------------------------------
packages=(emscripten re2c lemon)
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "js.sh: installing ${missing[*]}" >&2
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "js.sh: need root or sudo" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends -o Dpkg::Use-Pty=0 "${missing[@]}" >/dev/null
fi
# Debian's emcc runs its JS tools (acorn) with the system node, whose
# modules live here.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

# --- generated sources: the same commands as CMakeLists.txt ------------------
mkdir -p "$gen"
re2c -W --no-generation-date -o "$gen/lex.c" lexer/lex.re
cp parser/lua_grammar.y "$gen/lua_grammar.y"
lemon -q -T/usr/share/lemon/lempar.c -d"$gen" "$gen/lua_grammar.y"

# --- WebAssembly ------------------------------------------------------------
exports=_malloc,_free,_lijs_new,_lijs_rewrite,_lijs_out,_lijs_outlen
exports+=,_lijs_warnings,_lijs_error,_lijs_chunkid,_lijs_errline,_lijs_nfuncs
exports+=,_lijs_func_name,_lijs_func_line,_lijs_func_lastline
exports+=,_lijs_func_parent,_lijs_func_probed,_lijs_free
# -Oz: the rewriter is fast enough and the file should be small; no file
# system, no exit, memory that grows with the input.  ENVIRONMENT leaves
# out the glue's Node branch on purpose: it installs process-wide
# uncaughtException/unhandledRejection handlers and needs require and
# __dirname (not in an ES module); with the .wasm inlined the web path
# needs only WebAssembly and atob, which Node has (tests/js runs in Node).
emcc -Oz -std=c99 -Wall -Wextra \
  -Ilexer -Iparser -Irewriter -Iinclude -I"$gen" \
  "$gen/lex.c" lexer/lexnames.c "$gen/lua_grammar.c" parser/parse.c \
  parser/scope.c rewriter/rewrite.c js/api.c \
  -Wno-unused-parameter -Wno-unused-variable -Wno-implicit-fallthrough \
  -sMODULARIZE=1 -sEXPORT_NAME=createLuainstrWasm \
  -sSINGLE_FILE=1 -sENVIRONMENT=web,worker \
  -sFILESYSTEM=0 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=0 \
  -sEXPORTED_FUNCTIONS="$exports" \
  -sEXPORTED_RUNTIME_METHODS=UTF8ToString \
  -o "$out/luainstr_wasm.js"

# --- the two modules: the glue inside js/luainstr.in.js ---------------------
# The template's line `/*@GLUE@*/` becomes emscripten's output, which then
# lives inside the wrapper's function (its globals, `out` among them, stay
# there); the module's last line says how it exports `luainstr`.
wrap() {  # wrap OUTPUT EXPORT_LINE
  {
    sed -n '1,/^\/\*@GLUE@\*\/$/p' js/luainstr.in.js | sed '$d'
    cat "$out/luainstr_wasm.js"
    sed -n '/^\/\*@GLUE@\*\/$/,$p' js/luainstr.in.js | sed '1d'
    printf '%s\n' "$2"
  } >"$1.tmp"
  mv -f "$1.tmp" "$1"
}
wrap "$out/luainstr.js" \
  "if (typeof module === 'object' && module.exports) module.exports = luainstr; else globalThis.luainstr = luainstr;"
wrap "$out/luainstr.mjs" \
  'export default luainstr; export const { ready, instrument, rewrite, LuaSyntaxError } = luainstr;'

size() {
  printf '%s: %d bytes, %d gzipped\n' "${1#"$root"/}" "$(wc -c <"$1")" \
    "$(gzip -9c "$1" | wc -c)"
}
size "$out/luainstr.js"
size "$out/luainstr.mjs"

if [[ $run_tests == 1 ]]; then
  bash tests/js/run.sh "$out"
fi
