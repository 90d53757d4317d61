#!/usr/bin/env bash
# page_chromium.sh BUILD_DIR SOURCE_DIR -- the live view in a real browser:
# samples/game (built against the installed package, as tests/game does)
# runs live on a free port, in real time, until a signal:
#     game --live 0 --realtime --ticks 0 --out TMP/out
# and headless Chromium opens the URL luainstr printed (page_test.js, over
# the DevTools protocol with tests/wasm/cdp.js): frames arrive, the planted
# spike (AI.rebuild_flow_field) appears red and opens with that function on
# top of its tree, a report asked for from the page downloads through its
# ack's link, Pause/Resume and the spike rule come back in the status, a
# screenshot is taken; then SIGINT ends the game, the page says so and keeps
# what it shows, and the game exits 0 with its reports written.
# With LI_UPDATE_SCREENSHOT=1 the screenshot goes to docs/live-view.png.
# Exits 77 (skipped) when Chromium or node is missing, or when the build has
# no live server (no libwebsockets).
set -uo pipefail

[[ $# -eq 2 ]] || { echo "usage: page_chromium.sh BUILD_DIR SOURCE_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
here=$SRC/tests/livepage
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]] || ! command -v node >/dev/null; then
  echo "live page_chromium: chromium or node not installed (scripts/deps.sh installs them); skipped"
  [[ -z ${CI:-} ]] || exit 1     # (under CI a skip is a failure)
  exit 77
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/li_livepage_XXXXXX")
gpid=
cleanup() {
  if [[ -n $gpid ]] && kill -0 "$gpid" 2>/dev/null; then
    kill -TERM "$gpid" 2>/dev/null
    wait "$gpid" 2>/dev/null
  fi
  [[ ${KEEP:-0} == 1 ]] && echo "scratch: $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

# --- the game, built against the installed package ---------------------------
PREFIX=$WORK/prefix
# shellcheck source=../install/prefix.sh
. "$SRC/tests/install/prefix.sh"
install_prefix "$BUILD" "$PREFIX" "$WORK/install.log"
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
step "samples/game with CMake"
build_with_package samples/game "$SRC/samples/game" "$WORK/game" "$WORK/game-cmake.log" -DCMAKE_BUILD_TYPE=Release

# --- run it live --------------------------------------------------------------
step "game --live 0 --realtime --ticks 0"
mkdir -p "$WORK/out"
# from its directory with --lua lua: the page names the scripts lua/ai.lua,
# not by a path of this machine (the screenshot goes into docs/)
(cd "$SRC/samples/game" &&
  exec "$WORK/game/game" --lua lua --live 0 --realtime --ticks 0 --out "$WORK/out") \
  >"$WORK/game.out" 2>"$WORK/game.err" &
gpid=$!
url=
for _ in $(seq 300); do
  url=$(sed -n 's/^luainstr: live view at //p' "$WORK/game.err" | head -1)
  [[ -n $url ]] && break
  kill -0 "$gpid" 2>/dev/null || break
  grep -q '^game: live view:' "$WORK/game.err" && break
  sleep 0.1
done
if [[ -z $url ]]; then
  cat "$WORK/game.err" >&2
  if grep -qi 'not available\|without the server\|not built' "$WORK/game.err"; then
    echo "live page_chromium: this build has no live server; skipped"
    exit 77
  fi
  fail "the game printed no live view URL"
fi
echo "url: $url"
[[ $url =~ ^http://127\.0\.0\.1:[1-9][0-9]*/\?token=[0-9a-f]{32}$ ]] || fail "the URL '$url' is not loopback, port, 32 hex digits of token"

# --- the page ----------------------------------------------------------------
shot=$WORK/live-view.png
[[ ${LI_UPDATE_SCREENSHOT:-0} == 1 ]] && shot=$SRC/docs/live-view.png
rc=0
timeout 280 node "$here/page_test.js" "$url" "$browser" "$WORK" "$gpid" "$shot" || rc=$?

# --- the game ended by the page test's SIGINT -----------------------------------
grc=0
for _ in $(seq 300); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$gpid" 2>/dev/null; then
  kill -TERM "$gpid"
  wait "$gpid"
  gpid=
  fail "the game was still running 30 s after SIGINT"
fi
wait "$gpid" || grc=$?
gpid=
cat "$WORK/game.out"
[[ $grc -eq 0 ]] || { cat "$WORK/game.err" >&2; fail "the game exited $grc after SIGINT"; }
for f in game.html game.json game.txt; do
  [[ -s $WORK/out/$f ]] || fail "no $f after SIGINT"
done
grep -q '^ticks: [0-9]* (' "$WORK/game.out" || fail "the game printed no ticks line"
# the URL, and no message of the game's own (the server's own log lines,
# "luainstr: live: ...", are shown but are not the page's to judge)
grep '^luainstr: live: ' "$WORK/game.err" >&2
others=$(grep -v '^luainstr: live view at \|^luainstr: live: ' "$WORK/game.err" || true)
[[ -z $others ]] || { echo "$others" >&2; fail "the game wrote more than the URL to stderr"; }
echo "ok: SIGINT: the game wrote its reports and exited 0"
[[ $rc -eq 0 ]] || fail "page_test.js (see above)"
[[ ${LI_UPDATE_SCREENSHOT:-0} == 1 ]] && echo "wrote $shot"
echo "PASS: the live page of samples/game in Chromium"
