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
ctest --test-dir build --output-on-failure || status=$?
exit "$status"
