#!/usr/bin/env bash
# tests/pprof/speedscope/run.sh BUILD_DIR -- our pprof files imported by
# speedscope (the npm package of package-lock.json: speedscope's own
# build, its pprof importer included) in headless Chromium.
#
# pprof_host profiles tests/pprof/calls.lua and writes pprof and json from
# one snapshot; speedscope opens the pprof file (#profileURL, served on
# 127.0.0.1) in its Sandwich view, whose table lists every function with
# its total and self time; check.py compares that table with the json
# report's call tree (the sums over each function's paths, as pprof's
# samples are), to the precision speedscope shows, and checks the page's
# title names the file (what speedscope sets once an import succeeded).
# Without node, npm or chromium, or when npm ci fails: exits 77 (ctest:
# skipped), or 1 when CI is set.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
src=$(cd "$here/../../.." && pwd) || exit 2
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd) || exit 2
prog=pprof_speedscope
# shellcheck source=../../shared_missing.sh
. "$src/tests/shared_missing.sh"

for tool in node npm python3; do
  command -v "$tool" >/dev/null ||
    shared_missing "$prog" "$tool is not installed" "scripts/deps.sh installs it"
done
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n $browser ]] ||
  shared_missing "$prog" "chromium is not installed" "scripts/deps.sh installs it"
cd "$here" || exit 2
if ! npm ci --no-audit --no-fund --loglevel=error >"$here/npm.log" 2>&1; then
  cat "$here/npm.log" >&2
  rm -f "$here/npm.log"
  shared_missing "$prog" "npm ci failed (no npm registry?)" \
    "the packages: tests/pprof/speedscope/package-lock.json"
fi
rm -f "$here/npm.log"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-speedscope.XXXXXX") || exit 2
server=
trap '[[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf -- "$tmp"' EXIT
mkdir -p "$tmp/www"
ln -s "$here/node_modules/speedscope/dist/release" "$tmp/www/speedscope"
if ! "$build/bin/pprof_host" "$src/tests/pprof/calls.lua" "$tmp/www/calls" \
     >/dev/null 2>"$tmp/host.err"; then
  echo "FAIL pprof_host: $(cat "$tmp/host.err")"
  exit 1
fi

# a static server on a free port of 127.0.0.1 (the port in port.txt)
python3 - "$tmp/www" "$tmp/port.txt" >/dev/null 2>&1 <<'PY' &
import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), h)
open(sys.argv[2], 'w').write(str(s.server_address[1]))
s.serve_forever()
PY
server=$!
for _ in $(seq 50); do [[ -s $tmp/port.txt ]] && break; sleep 0.1; done
port=$(cat "$tmp/port.txt" 2>/dev/null) || { echo "FAIL: no server"; exit 1; }
base=http://127.0.0.1:$port

timeout 90 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
  --disable-background-networking --disable-dev-shm-usage \
  --user-data-dir="$tmp/chrome-profile" --window-size=1280,900 \
  --virtual-time-budget=15000 \
  --dump-dom "$base/speedscope/index.html#profileURL=$base/calls.pb.gz&view=sandwich" \
  >"$tmp/dom.html" 2>"$tmp/chrome.log"
python3 "$here/check.py" "$tmp/dom.html" "$tmp/www/calls.json" calls.pb.gz
