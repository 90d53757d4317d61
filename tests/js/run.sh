#!/usr/bin/env bash
# tests/js/run.sh -- test the JavaScript build of the rewriter (js/).
#
#   tests/js/run.sh [BUILD_JS_DIR] [LUAINSTR_BIN]
#
# BUILD_JS_DIR holds luainstr.js and luainstr.mjs (default build-js/, made
# by scripts/js.sh); LUAINSTR_BIN is the native luainstr to compare bytes
# with (default build/bin/luainstr, skipped when missing).  Installs the
# npm packages of package-lock.json (wasmoon) into tests/js/node_modules,
# then runs:
#   api.js        the API: results, errors, dialects, both module forms,
#                 the same bytes as the native luainstr
#   behaviour.js  every program of tests/behaviour/lua54 instrumented
#                 through the API and run in wasmoon without a runtime,
#                 against the original run in wasmoon
#   browser.sh    both module forms in headless Chromium (skipped without
#                 chromium)
#   js/example.js the README's example (a Lua-side probe counting calls
#                 in wasmoon), whose output is known; js/README.md must
#                 show it as it is
# Exits 1 if any failed.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
root=$(cd "$here/../.." && pwd) || exit 2
build=$(cd "${1:-$root/build-js}" && pwd) || exit 2
bin=${2:-$root/build/bin/luainstr}
for f in luainstr.js luainstr.mjs; do
  [[ -f $build/$f ]] || { echo "run.sh: no $build/$f (scripts/js.sh builds it)" >&2; exit 2; }
done

cd "$here" || exit 2
if ! npm ci --no-audit --no-fund --loglevel=error >npm.log 2>&1; then
  cat npm.log >&2
  echo "run.sh: npm ci failed" >&2
  exit 2
fi
rm -f npm.log

status=0
echo "== api.js"
node api.js "$build" "$bin" || status=1
echo "== behaviour.js (tests/behaviour/lua54 in wasmoon)"
node behaviour.js "$build/luainstr.js" "$root/tests/behaviour/lua54" || status=1

echo "== browser.sh"
bash "$here/browser.sh" "$build"
rc=$?
[[ $rc == 0 || $rc == 77 ]] || status=1

echo "== js/example.js"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-js-example.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT
cp "$build/luainstr.js" "$root/js/example.js" "$tmp/"
expected=$'55\thello wasm\n177 local fib (@fib.lua:1)\n1 main chunk (@fib.lua:0)\n1 t.greet (@fib.lua:6)'
got=$(cd "$tmp" && NODE_PATH=$here/node_modules node example.js 2>&1)
if [[ $got == "$expected" ]]; then
  echo "ok   example.js prints the calls per function"
else
  echo "FAIL example.js printed:"; printf '%s\n' "$got" | sed 's/^/    /'
  status=1
fi
# The README shows the example whole: the lines between its ```js fence
# after "## Example" and the closing fence are the file.
shown=$(awk '/^## Example/{e=1} e&&/^```js$/{p=1;next} p&&/^```$/{exit} p' "$root/js/README.md")
if [[ $shown == "$(cat "$root/js/example.js")" ]]; then
  echo "ok   js/README.md shows js/example.js as it is"
else
  echo "FAIL js/README.md's example is not js/example.js"
  status=1
fi
exit "$status"
