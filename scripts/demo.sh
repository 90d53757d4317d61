#!/usr/bin/env bash
# demo.sh -- build luainstr, instrument samples/hello.lua, show the result,
# profile it with luaprof and print the report,
# and run the original and the instrumented program side by side: without
# the profiler loaded the probes do nothing, so the outputs must match.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh
lua_src=$(bash scripts/lua-source.sh)   # Lua's headers: the probe's direct path
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLUAINSTR_LUA_INTERNALS="$lua_src" >/dev/null
cmake --build build -j2 >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sample=samples/hello.lua
instrumented=$tmp/hello.instrumented.lua

echo "== build/bin/luainstr $sample"
build/bin/luainstr -o "$instrumented" "$sample"
cat "$instrumented"

echo
echo "== lua5.4 $sample (original)"
lua5.4 "$sample" | tee "$tmp/original.txt"
echo
echo "== lua5.4 (instrumented)"
lua5.4 "$instrumented" | tee "$tmp/instrumented.txt"
echo
if cmp -s "$tmp/original.txt" "$tmp/instrumented.txt"; then
  echo "== same output"
else
  echo "== the outputs differ:"
  diff "$tmp/original.txt" "$tmp/instrumented.txt" || true
  exit 1
fi

echo
echo "== build/bin/luaprof $sample   (profiled; the report goes to stderr)"
build/bin/luaprof "$sample"
