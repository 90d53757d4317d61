#!/usr/bin/env bash
# test.sh -- install what is missing, build, and run every test with ctest.
# Exits with ctest's status.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh
# Lua's own headers for the probe's direct path (Debian's source
# packages), for every Lua the runtime is built for
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo $(bash scripts/lua-internals.sh)
cmake --build build -j2
status=0
# (two at a time, as CI's two cores allow: tests that must not overlap
# say so with RESOURCE_LOCK)
ctest --test-dir build --output-on-failure -j2 || status=$?
exit "$status"
