#!/usr/bin/env bash
# states_chromium.sh MULTISTATE SOURCE_DIR -- several Lua states of one
# process in the live page, in a real browser: MULTISTATE
# (tests/live/multistate.c, 3 states on 3 threads, each attached to the one
# live server) runs until told to end, and headless Chromium opens the URL
# it printed (states_test.js, over the DevTools protocol with
# tests/wasm/cdp.js): every state is listed by name, choosing one shows its
# frames and functions, Pause reaches the chosen state only, a heap
# snapshot downloads through its ack's link.
# Exits 77 (skipped) when Chromium or node is missing; under CI (CI set)
# that is a failure.
set -uo pipefail

[[ $# -eq 2 ]] || { echo "usage: states_chromium.sh MULTISTATE SOURCE_DIR" >&2; exit 2; }
MULTI=$1
SRC=$(cd "$2" && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]] || ! command -v node >/dev/null; then
  echo "live states_chromium: chromium or node not installed (scripts/deps.sh installs them); skipped"
  [[ -z ${CI:-} ]] || exit 1     # (under CI a skip is a failure)
  exit 77
fi
[[ -x $MULTI ]] || { echo "FAIL: no program $MULTI" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/li_livestates_XXXXXX")
cleanup() { [[ ${KEEP:-0} == 1 ]] && echo "scratch: $WORK" || rm -rf "$WORK"; }
trap cleanup EXIT
rc=0
# (states_test.js starts MULTISTATE itself, and ends it)
timeout 280 node "$SRC/tests/livepage/states_test.js" "$MULTI" "$browser" "$WORK" || rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL: states_test.js (see above)" >&2; exit 1; }
echo "PASS: several states of one process in the live page in Chromium"
