#!/usr/bin/env bash
# page_chromium.sh BUILD_WASM_DIR -- the web page (web/) with the module
# scripts/wasm.sh built (BUILD_WASM_DIR/web/luainstr-web.js), in headless
# Chromium driven over the DevTools protocol (page_test.js, cdp.js).
#
# web/build.sh assembles the site in a temporary directory (the module and
# the page side by side, as it does in BUILD_WASM_DIR), then:
#   page   the sample script is run by clicking Run, from file://, from a
#          static server (serve.py) and from the same server with COOP/COEP
#          headers (cross-origin isolated): the printed output, the report
#          in the iframe (its script ran, its table names the functions,
#          Enemy:find_path first, a click zooms), profile.json (a Chrome trace
#          that parses), a failing script's message;
#   known  a script with known durations through the page, not isolated and
#          isolated: the csv and json figures within 5% (it prints what it
#          measured against what it expected);
#   live   the live sample's game loop on requestAnimationFrame with the
#          live view in its frame, from file:// and from the server: frames
#          and the planted spike arrive, its tree names the planted
#          function, a command from the view is acknowledged, Stop.
# With LI_UPDATE_SCREENSHOT=1 it also rewrites docs/web-page.png and
# docs/web-live.png.
# Exits 77 (skipped) when Chromium or node is missing.
set -uo pipefail

build=${1:?usage: page_chromium.sh BUILD_WASM_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
module=$build/web/luainstr-web.js
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]] || ! command -v node >/dev/null; then
  echo "page_chromium: chromium or node not installed (scripts/deps.sh installs them); skipped"
  exit 77
fi
if [[ ! -f $module ]]; then
  echo "page_chromium: $module missing (scripts/wasm.sh builds it)"
  exit 1
fi

tmp=$(mktemp -d /tmp/li_page_XXXXXX)
servers=()
cleanup() {
  local pid
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0

# the site, as web/build.sh makes it next to the module
mkdir -p "$tmp/site/web"
cp "$module" "$tmp/site/web/"
"$root/web/build.sh" "$tmp/site" >/dev/null || { echo "FAIL: web/build.sh"; exit 1; }

# serve [--isolate]: starts serve.py on the site, sets $port
serve() {
  local log=$tmp/serve$#.log
  python3 "$here/serve.py" "$tmp/site/web" "$@" >"$log.port" 2>"$log" &
  servers+=($!)
  for _ in $(seq 100); do
    port=$(sed -n 's/^port //p' "$log.port")
    [[ -n $port ]] && return 0
    sleep 0.1
  done
  echo "FAIL: serve.py $* did not start"; cat "$log"
  exit 1
}
serve
plain=http://127.0.0.1:$port/index.html
serve --isolate
isolated=http://127.0.0.1:$port/index.html

# t NAME MODE URL [SCREENSHOT]: one page_test.js run in its own profile dir
t() {
  local name=$1
  shift
  echo "== $name"
  mkdir -p "$tmp/$name"
  timeout 300 node "$here/page_test.js" "$1" "$2" "$browser" "$tmp/$name" "${3:-}" ||
    { failures=$((failures + 1)); echo "FAIL: $name"; }
}

shot=$tmp/web-page.png liveshot=$tmp/web-live.png
[[ ${LI_UPDATE_SCREENSHOT:-0} == 1 ]] && shot=$root/docs/web-page.png liveshot=$root/docs/web-live.png
t "page from file://" page "file://$tmp/site/web/index.html"
t "page from a server" page "$plain"
t "page from a server, cross-origin isolated" page "$isolated" "$shot"
t "known answers, not isolated" known "$plain"
t "known answers, cross-origin isolated" known "$isolated"
t "live view from file://" live "file://$tmp/site/web/index.html"
t "live view from a server, cross-origin isolated" live "$isolated" "$liveshot"
[[ ${LI_UPDATE_SCREENSHOT:-0} == 1 ]] && echo "wrote $shot and $liveshot"

if [[ $failures -gt 0 ]]; then
  echo "page_chromium: $failures of 7 failed"
  exit 1
fi
echo "page_chromium: all passed"
