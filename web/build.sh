#!/usr/bin/env bash
# build.sh BUILD_WASM_DIR -- puts the page (index.html, app.js, style.css)
# next to the module scripts/wasm.sh built, BUILD_WASM_DIR/web/luainstr-web.js,
# so that BUILD_WASM_DIR/web/ is the whole site: open index.html from disk
# (file://) or serve the directory with any static server.
set -euo pipefail
out=${1:?usage: web/build.sh BUILD_WASM_DIR}/web
here=$(cd "$(dirname "$0")" && pwd)
if [[ ! -f $out/luainstr-web.js ]]; then
  echo "web/build.sh: $out/luainstr-web.js missing: run scripts/wasm.sh first" >&2
  exit 1
fi
install -m 644 "$here/index.html" "$here/app.js" "$here/style.css" "$out/"
echo "web/build.sh: the page is $out/index.html"
