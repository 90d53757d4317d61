#!/usr/bin/env bash
# html_heap_chromium.sh BUILD_DIR -- the `html` report's heap view in a
# real browser (headless Chromium), as html_chromium.sh checks the others:
# a page opened as FILE.html#selftest records what it drew into
# <pre id="selftest">, which --dump-dom hands back.
#   heap     test_html's page of three snapshots (the middle one missing;
#            the last with 50 tables more than the first, held through the
#            upvalue cache of Game.remember): the heap section shows the
#            last snapshot's types and retainers with their paths, says
#            the missing one cannot be read and why, and its diff of the
#            first and the last shows the planted leak as one group;
#            a click on the first snapshot's button shows that one;
#   nasty    a snapshot whose file name and a table key hold </script> and
#            markup: no script ran, no element came from them, shown as text;
#   none     hello.lua under luaprof (no snapshot): no heap section;
#   lua      once luaprof takes snapshots (--heap, p.snapshot): a Lua script
#            that leaks 40 tables (the most bytes) through an upvalue
#            between two snapshots, under `luaprof --heap -f html`, on every
#            luaprof built: tables on top, the cache's path among the
#            retainers, the leak one group of the diff.
# Exits 77 (skipped) when Chromium is missing.
set -uo pipefail

build=${1:?usage: html_heap_chromium.sh BUILD_DIR}
build=$(cd "$build" && pwd) || exit 2
root=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
test_html=$build/bin/test_html
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "html_heap_chromium: chromium not installed (scripts/deps.sh installs it); skipped"
  exit 77
fi

tmp=$(mktemp -d /tmp/li_html_heap_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# passed WHAT: "ok: WHAT" when no check failed since the last one
seen=0
passed() { [[ $failures == "$seen" ]] && echo "ok: $*"; seen=$failures; }

# selftest PAGE: the self-test's lines of PAGE#selftest into PAGE.st
selftest() {
  local page=$1
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-dev-shm-usage --hide-scrollbars \
    --user-data-dir="$tmp/chrome-profile" --window-size=1280,900 \
    --virtual-time-budget=10000 --dump-dom "file://$page#selftest" >"$page.dom" 2>>"$page.log"
  sed -n '/<pre id="selftest"/,/<\/pre>/p' "$page.dom" |
    sed -e 's/^<pre id="selftest"[^>]*>//' -e 's/<\/pre>.*//' >"$page.st"
}
field() { sed -n "s/^$2: //p" "$1.st" | head -1; }
want() {     # want PAGE KEY VALUE: the field is exactly VALUE
  [[ $(field "$1" "$2") == "$3" ]] || fail "$(basename "$1"): $2 is '$(field "$1" "$2")', want '$3'"
}
want_has() { # want_has PAGE KEY TEXT: the field holds TEXT
  [[ $(field "$1" "$2") == *"$3"* ]] || fail "$(basename "$1"): $2 is '$(field "$1" "$2")', lacks '$3'"
}
# the page itself: the self-test finished, no injected script or element
page_ok() {
  local page=$1
  want "$page" selftest done
  want "$page" title "luainstr profile"
  want "$page" scripts 2
  want "$page" foreign-elements 0
  if grep -qiE '<(img|svg|b|iframe)[ >]' "$page.dom"; then fail "$(basename "$page"): markup from a name in the DOM"; fi
}

# ---- test_html's pages ----
if [[ ! -x $test_html ]]; then
  fail "$test_html missing (tests/CMakeLists.txt: li_criterion_test(test_html))"
else
  LI_HTML_DIR=$tmp "$test_html" --filter 'html_files/heap*' >"$tmp/test_html.log" 2>&1 ||
    { fail "test_html html_files/heap*"; cat "$tmp/test_html.log"; }

  hp=$tmp/heap.html
  selftest "$hp"
  page_ok "$hp"
  want "$hp" heap-section shown
  want "$hp" heap-files 3
  want "$hp" heap-shown 3
  want_has "$hp" heap-info "snapshot 3, $tmp/heap_page/end.heapsnapshot: 59 nodes, 58 references, 5.03 KiB (Lua 5.4, sizes exact"
  # the last snapshot: 55 tables (52 leaked, _G, Game, cache), _G retains all
  [[ $(field "$hp" heap-types) == "table|55|4.92 KiB|97.9% / "* ]] || fail "heap: types '$(field "$hp" heap-types)'"
  [[ $(field "$hp" heap-retainers) == "5.03 KiB|1.06 KiB|table|_G / 3.91 KiB|120 B|table|_G.Game / "* ]] ||
    fail "heap: retainers '$(field "$hp" heap-retainers)'"
  want_has "$hp" heap-retainers " / 3.74 KiB|920 B|table|_G.Game.remember &lt;upvalue cache&gt; / "
  want "$hp" heap-errors "snapshot 2 ($tmp/heap_page/gone.heapsnapshot) cannot be read: $tmp/heap_page/gone.heapsnapshot: No such file or directory"
  # the diff of the first and the last: the planted leak, one group
  want "$hp" heap-diff-title "New objects: snapshot 1 → snapshot 3 (start.heapsnapshot → end.heapsnapshot)"
  want_has "$hp" heap-diff "50 objects (2.73 KiB) in $tmp/heap_page/end.heapsnapshot that $tmp/heap_page/start.heapsnapshot did not have"
  want "$hp" heap-diff-types "table|50|2.73 KiB"
  want "$hp" heap-diff-groups "_G.Game.remember &lt;upvalue cache&gt;[*]|50|2.73 KiB|table 50"
  [[ $(field "$hp" heap-after-click) == "1 table|5|1.41 KiB|"* ]] ||
    fail "heap: after a click on snapshot 1: '$(field "$hp" heap-after-click)'"
  passed "heap ($(field "$hp" heap-diff-groups))"

  np=$tmp/heap_nasty.html
  selftest "$np"
  page_ok "$np"
  want "$np" heap-section shown
  want "$np" heap-files "1 (no buttons)"
  want "$np" heap-diff hidden
  want_has "$np" heap-info "snapshot 1, $tmp/heap_nasty/&lt;/script&gt;.heapsnapshot: 10 nodes"
  want_has "$np" heap-retainers "|string|_G[\"&lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;\"]"
  want "$np" heap-errors ""
  passed "heap with markup in a path and a file name"
fi

# ---- no snapshot: no heap section ----
(cd "$tmp" && "$build/bin/luaprof" -f html -o hello.html "$root/samples/hello.lua" >/dev/null) ||
  fail "luaprof -f html hello.lua"
selftest "$tmp/hello.html"
want "$tmp/hello.html" selftest done
want "$tmp/hello.html" heap-section hidden
passed "no snapshot, no heap section"

# ---- a real run: luaprof --heap -f html on every Lua ----
cat >"$tmp/leak.lua" <<'LUA'
local p = require("luainstr")
local dir = assert(os.getenv("HEAP_DIR"))
local a, b = dir .. "/a.heapsnapshot", dir .. "/b.heapsnapshot"
Game = {}
local cache = {}
function Game.remember(k, v) cache[k] = v end
assert(p.snapshot(a))
-- 40 tables of 64 numbers each: more bytes than anything else in the heap
for i = 1, 40 do
  local t = {}
  for j = 1, 64 do t[j] = i * j end
  Game.remember(i, t)
end
assert(p.snapshot(b))
LUA
for name in luaprof luaprof5.3 luaprof5.2 luaprof5.1 luaprofjit; do
  bin=$build/bin/$name
  [[ -x $bin ]] || continue
  # until the snapshot writer (runtime/heap.c) lands: say so, loudly;
  # once include/luainstr.h has luainstr_snapshot, a luaprof without
  # --heap is a failure
  if ! "$bin" --help 2>&1 | grep -q -- '--heap'; then
    if grep -q 'luainstr_snapshot' "$root/include/luainstr.h"; then
      echo "FAIL $name has no --heap"
      failures=$((failures + 1))
    else
      echo "NOTE $name has no --heap yet: its html heap view is not checked"
    fi
    continue
  fi
  d=$tmp/run-$name
  mkdir -p "$d"
  if ! (cd "$d" && HEAP_DIR=$d "$bin" --heap "$d/exit.heapsnapshot" -f html -o "$d/page.html" \
          "$tmp/leak.lua" >"$d/log" 2>&1); then
    fail "$name --heap -f html leak.lua: $(cat "$d/log")"
    continue
  fi
  selftest "$d/page.html"
  page_ok "$d/page.html"
  want "$d/page.html" heap-files 3
  want "$d/page.html" heap-errors ""
  want_has "$d/page.html" heap-info "snapshot 3, $d/exit.heapsnapshot: "
  [[ $(field "$d/page.html" heap-types) == "table|"* ]] ||
    fail "$name: the most bytes are not tables: '$(field "$d/page.html" heap-types)'"
  want_has "$d/page.html" heap-retainers "|_G.Game.remember &lt;upvalue cache&gt; / "
  [[ " / $(field "$d/page.html" heap-diff-groups)" == *" / _G.Game.remember &lt;upvalue cache&gt;[*]|40|"*"|table 40"* ]] ||
    fail "$name: the diff lacks the 40 leaked tables: '$(field "$d/page.html" heap-diff-groups)'"
  passed "$name --heap -f html: $(field "$d/page.html" heap-diff-groups | cut -d/ -f1)"
done

if [[ $failures -gt 0 ]]; then
  echo "html_heap_chromium: $failures failure(s)"
  exit 1
fi
echo "html_heap_chromium: all passed"
