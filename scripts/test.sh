#!/usr/bin/env bash
# test.sh -- install what is missing, build, and run every test with ctest.
# Exits with ctest's status.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j2
status=0
ctest --test-dir build --output-on-failure || status=$?
exit "$status"
