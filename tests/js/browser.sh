#!/usr/bin/env bash
# tests/js/browser.sh -- the two module forms in a browser: headless
# Chromium loads build-js/luainstr.js with <script> (the global
# `luainstr`) and build-js/luainstr.mjs with <script type="module">, from a
# local HTTP server (modules are not loaded from file://), and each page
# writes what instrument() returned and threw into the DOM.
#
#   tests/js/browser.sh [BUILD_JS_DIR]
# Exits 0 if both pages show the expected text, 1 if not, 77 (skipped)
# without chromium or python3.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
build=$(cd "${1:-$here/../../build-js}" && pwd) || exit 2
command -v chromium >/dev/null && command -v python3 >/dev/null || {
  echo "skip browser: no chromium or python3"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-js-browser.XXXXXX") || exit 2
server=
cleanup() { [[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf -- "$tmp"; }
trap cleanup EXIT
cp "$build/luainstr.js" "$build/luainstr.mjs" "$tmp/"

# The check both pages run, given the module object as `li`.
check='li.ready.then(function () {
  var s = li.instrument("local function f() return 1 end\nreturn f()\n", "@b.lua", { lua: "5.4" });
  var e = null;
  try { li.instrument("x = = 1", "@bad.lua"); } catch (x) { e = x; }
  document.getElementById("out").textContent = "RESULT " + s.split("\n").length + " lines " +
    (s.indexOf("__LI(2);") > 0) + " " + (e instanceof li.LuaSyntaxError) + " " + e.message;
}, function (err) { document.getElementById("out").textContent = "RESULT failed: " + err; });'
cat >"$tmp/script.html" <<HTML
<!doctype html><html><body><pre id="out">not run</pre>
<script src="luainstr.js"></script>
<script>var li = luainstr; $check</script></body></html>
HTML
cat >"$tmp/module.html" <<HTML
<!doctype html><html><body><pre id="out">not run</pre>
<script type="module">import li from "./luainstr.mjs"; $check</script></body></html>
HTML

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$tmp" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
  sleep 0.1
done

expected="RESULT 3 lines true true bad.lua:1: syntax error near '='"
status=0
for page in script module; do
  got=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=10000 \
          --dump-dom "http://127.0.0.1:$port/$page.html" 2>/dev/null |
        sed -n 's/.*<pre id="out">\(.*\)<\/pre>.*/\1/p' | sed "s/&#39;/'/g")
  if [[ $got == "$expected" ]]; then
    echo "ok   browser: $page.html"
  else
    echo "FAIL browser: $page.html shows: $got"
    status=1
  fi
done
exit "$status"
