#!/usr/bin/env bash
# html_chromium.sh BUILD_DIR -- the `html` report in a real browser.
#
# Opens pages in headless Chromium as FILE.html#selftest: the page then
# records into <pre id="selftest"> the frames and table rows it drew, clicks
# a frame and records the new zoom root, and --dump-dom hands that back.
# Checks:
#   hello    luaprof -f html samples/hello.lua: frames and rows with the
#            sample's function names, a click zooms (the frame fills the
#            width), reset zooms out, a screenshot is made;
#   nasty    functions whose names are markup (<script>, </script>, <img
#            onerror>, <svg onload>, <!--, bytes that are not UTF-8), from a
#            Lua script under luaprof and from test_html's C profile: no
#            injected script ran (title unchanged), no element came from a
#            name, the names show as text;
#   large    10,000 functions and 100,000 call-tree nodes (test_html):
#            under 10 MB, rendered and zoomed within 30 s;
#   frames   test_html's game profile with 36,000 frames, 3 spike trees,
#            zones and memory figures: the frame chart covers every frame
#            with spikes drawn red, a click on the slowest spike shows that
#            frame's own flame graph (its functions only, the frame's
#            duration at the root) and table, a click on a plain bar and
#            the Whole run button bring the whole run back, the bytes
#            switch makes the function that only allocates the widest and
#            shows the memory columns, zones are drawn blue;
#            hello.lua (no frames, no memory mode) shows neither.
# With LI_UPDATE_SCREENSHOT=1 it also rewrites docs/report-html.png from
# samples/host/game.lua, and docs/report-frames.png from the frames page
# (or from the page LI_FRAMES_PAGE names, e.g. a real game's report made
# with frames and memory on; LI_FRAMES_HASH, e.g. '#frame=20000&bytes',
# opens a spike frame and/or the bytes view); LI_UPDATE_SCREENSHOT=frames
# rewrites only docs/report-frames.png.  Exits 77 (skipped) when Chromium is missing.
set -uo pipefail

build=${1:?usage: html_chromium.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
luaprof=$build/bin/luaprof
test_html=$build/bin/test_html
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "html_chromium: chromium not installed (scripts/deps.sh installs it); skipped"
  exit 77
fi

tmp=$(mktemp -d /tmp/li_html_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

chrome() {   # chrome LOG ARGS... : headless, no network, own profile dir
  local log=$1
  shift
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-dev-shm-usage --hide-scrollbars \
    --user-data-dir="$tmp/chrome-profile" --window-size=1280,900 \
    --virtual-time-budget=10000 "$@" 2>>"$log"
}

# selftest PAGE: dump the DOM after the self-test into PAGE.dom, the
# self-test's lines into PAGE.st; prints the seconds it took.
selftest() {
  local page=$1 t0 t1
  t0=$(date +%s.%N)
  chrome "$page.log" --dump-dom "file://$page#selftest" >"$page.dom"
  t1=$(date +%s.%N)
  sed -n '/<pre id="selftest"/,/<\/pre>/p' "$page.dom" |
    sed -e 's/^<pre id="selftest"[^>]*>//' -e 's/<\/pre>.*//' >"$page.st"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }'
}
field() { sed -n "s/^$2: //p" "$1.st" | head -1; }

# common: the self-test finished, no injected script or element
check_page() {
  local page=$1 name=$2
  if [[ $(field "$page" selftest) != done ]]; then
    fail "$name: self-test did not finish"
    tail -5 "$page.log"
    return
  fi
  [[ $(field "$page" title) == "luainstr profile" ]] || fail "$name: title is '$(field "$page" title)'"
  grep -q '<title>luainstr profile</title>' "$page.dom" || fail "$name: <title> changed"
  [[ $(field "$page" scripts) == 2 ]] || fail "$name: $(field "$page" scripts) script elements"
  [[ $(field "$page" foreign-elements) == 0 ]] || fail "$name: elements from names"
  local zb za
  zb=$(field "$page" zoom-before)
  za=$(field "$page" zoom-after)
  [[ -n $za && ${za%% *} != "$zb" ]] || fail "$name: the click did not zoom ($zb -> $za)"
  local zw=$(field "$page" zoom-width)   # "1246.0 of 1246": fills the width
  awk -v a="${zw%% of*}" -v b="${zw##*of }" 'BEGIN { exit !(a > 0 && a >= b - 1) }' ||
    fail "$name: the zoomed frame is $zw px wide"
  [[ $(field "$page" zoom-reset) == 0 ]] || fail "$name: reset did not zoom out"
  local tipline=$(field "$page" tooltip)   # "name / source:line / total ... / self ... / calls ..."
  [[ $tipline == *" / total "*"% of all"*" / self "*" / calls "* ]] || fail "$name: tooltip '$tipline'"
  [[ $(field "$page" frames) -ge 2 ]] || fail "$name: $(field "$page" frames) frames drawn"
  if grep -qiE '<(img|svg|b|iframe)[ >]' "$page.dom"; then fail "$name: markup from a name in the DOM"; fi
  if grep -q 'pwned' "$page.st" && ! grep -q '&lt;' "$page.st"; then fail "$name: names not shown as text"; fi
  echo "ok: $name ($(field "$page" frames) frames, $(field "$page" rows) rows, zoom -> $za)"
}

has_names() {   # has_names PAGE KEY NAME...: every NAME in KEY's '|' list
  local page=$1 key=$2 list
  shift 2
  list="|$(field "$page" "$key")|"
  for n in "$@"; do
    [[ $list == *"|$n|"* ]] || fail "$(basename "$page"): '$n' not in $key: $list"
  done
}

# ---- hello.lua under luaprof ----
(cd "$tmp" && "$luaprof" -f html -o hello.html "$root/samples/hello.lua" >/dev/null) ||
  fail "luaprof -f html hello.lua"
selftest "$tmp/hello.html" >/dev/null
check_page "$tmp/hello.html" hello
# (the flame graph draws what has width: countdown's million tail calls
# take about 11 ns each after the probes' calibrated cost is taken out,
# and on a busy machine the calibration's error can take its sum to 0,
# so it is required in the table, not among the drawn frames)
has_names "$tmp/hello.html" frame-names all "main chunk"
has_names "$tmp/hello.html" row-names "main chunk" "local countdown" "local sum_of_squares" \
  "Greeter:greet" "Greeter.new" "local square"
[[ $(field "$tmp/hello.html" rows) == 6 ]] || fail "hello: $(field "$tmp/hello.html" rows) rows"
# (helper-version) the page shows the version of luainstr that took the
# profile: CMake's project() VERSION, as this build's cache has it
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[[ -n $version ]] || fail "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"
has_names "$tmp/hello.html" summary "luainstr=$version"
# no frames, no memory mode: the page as before issue 12
[[ $(field "$tmp/hello.html" frames-section) == hidden ]] || fail "hello: a frame chart without frames"
[[ $(field "$tmp/hello.html" mode-switch) == hidden ]] || fail "hello: a bytes switch without memory mode"
[[ $(field "$tmp/hello.html" heads) == "name|src|calls|total|self|pct|min|max|errors" ]] ||
  fail "hello: columns $(field "$tmp/hello.html" heads)"
chrome "$tmp/hello.html.log" --screenshot="$tmp/hello.png" "file://$tmp/hello.html" >/dev/null
[[ $(stat -c %s "$tmp/hello.png" 2>/dev/null || echo 0) -gt 10000 ]] || fail "hello: no screenshot"

# ---- markup as names: a Lua script under luaprof ----
{
  cat <<'LUA'
-- functions named by table-constructor keys that are markup
local t
t = {
  ["<script>document.title='pwned'</script>"] = function(n)
    local s = 0
    for i = 1, n do s = s + i end
    return s
  end,
  ["<img src=x onerror=\"document.title='pwned'\">"] = function(n)
    return t["<script>document.title='pwned'</script>"](n)
  end,
  ["</script><script>document.title='pwned'</script>"] = function(n)
    return t["<img src=x onerror=\"document.title='pwned'\">"](n) + 1
  end,
LUA
  printf '  ["caf\xff;\xe9 & <b>bold</b>\\n<!--"] = function()\n'
  cat <<'LUA'
    local r = 0
    for i = 1, 2000 do r = r + t["</script><script>document.title='pwned'</script>"](i) end
    return r
  end,
  ["<svg onload=\"document.title='pwned'\">"] = function()
    for _ = 1, 3 do
LUA
  printf '      t["caf\xff;\xe9 & <b>bold</b>\\n<!--"]()\n'
  cat <<'LUA'
    end
  end,
}
t["<svg onload=\"document.title='pwned'\">"]()
LUA
} >"$tmp/nasty.lua"
(cd "$tmp" && "$luaprof" -f html -o nasty_lua.html nasty.lua >/dev/null) || fail "luaprof -f html nasty.lua"
selftest "$tmp/nasty_lua.html" >/dev/null
check_page "$tmp/nasty_lua.html" "nasty names from Lua"
has_names "$tmp/nasty_lua.html" row-names \
  "[\"&lt;script&gt;document.title='pwned'&lt;/script&gt;\"]" \
  "[\"&lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;\"]" \
  "[\"&lt;img src=x onerror=\\\"document.title='pwned'\\\"&gt;\"]" \
  "[\"&lt;svg onload=\\\"document.title='pwned'\\\"&gt;\"]" \
  "[\"caf$(printf '\xc3\xbf');$(printf '\xc3\xa9') &amp; &lt;b&gt;bold&lt;/b&gt;\\n&lt;!--\"]"

# ---- the C profiles: nasty names, and 10,000 functions / 100,000 nodes ----
if [[ ! -x $test_html ]]; then
  fail "$test_html missing (tests/CMakeLists.txt: li_criterion_test(test_html))"
else
  LI_HTML_DIR=$tmp "$test_html" --filter 'html_files/*' >"$tmp/test_html.log" 2>&1 ||
    { fail "test_html html_files"; cat "$tmp/test_html.log"; }
  selftest "$tmp/nasty.html" >/dev/null
  check_page "$tmp/nasty.html" "nasty names from C"
  has_names "$tmp/nasty.html" row-names "M.parse" "main chunk" \
    "&lt;script&gt;alert(1);&lt;/script&gt;" "multi\\nline\\r\\n\\tname" \
    "&lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;"

  size=$(stat -c %s "$tmp/large.html")
  secs=$(selftest "$tmp/large.html")
  check_page "$tmp/large.html" "large profile"
  [[ $size -lt 10000000 ]] || fail "large: $size bytes"
  awk -v s="$secs" 'BEGIN { exit !(s < 30) }' || fail "large: $secs s in the browser"
  [[ $(field "$tmp/large.html" rows) == 500 ]] || fail "large: $(field "$tmp/large.html" rows) rows (want the first 500)"
  [[ $(field "$tmp/large.html" frames) -ge 1000 ]] || fail "large: only $(field "$tmp/large.html" frames) frames"
  echo "ok: large profile: $size bytes, browser ${secs} s (render $(field "$tmp/large.html" render-ms) ms)"

  # ---- frames, spikes, zones, memory (test_html's game profile) ----
  fp=$tmp/frames.html
  want() {   # want KEY VALUE: the field is exactly VALUE
    [[ $(field "$fp" "$1") == "$2" ]] || fail "frames: $1 is '$(field "$fp" "$1")', want '$2'"
  }
  want_prefix() {   # want_prefix KEY PREFIX
    [[ $(field "$fp" "$1") == "$2"* ]] || fail "frames: $1 is '$(field "$fp" "$1")', want '$2...'"
  }
  lacks_names() {   # lacks_names KEY NAME...: no NAME in KEY's '|' list
    local key=$1 list
    shift
    list="|$(field "$fp" "$key")|"
    for n in "$@"; do
      [[ $list != *"|$n|"* ]] || fail "frames: '$n' in $key: $list"
    done
  }
  secs=$(selftest "$fp")
  check_page "$fp" "frames profile"
  want frames-section shown
  want mode-switch shown
  # the chart: every kept frame drawn, in at most one bar per pixel; the
  # three spikes marked and drawn red, a plain bar not
  want fc-frames 36000
  bars=$(field "$fp" fc-bars)
  [[ $bars -ge 600 && $bars -le 1280 ]] || fail "frames: $bars bars for 36,000 frames in 1280 px"
  want fc-spike-bars 3
  want fc-spikes "8000|20000|30000"
  want_prefix fc-spike-pixels "3 of 3 red"
  want fc-top-time 120000000
  plain=$(field "$fp" fc-plain-pixel)
  [[ -n $plain ]] && awk -F, -v p="$plain" 'BEGIN { split(p, c, ","); exit !(c[1] < 150 || c[2] >= 90) }' ||
    fail "frames: a plain bar is drawn $plain"
  [[ $(field "$fp" fc-tooltip) == "frame "*" / duration "*" / calls "*"no call tree kept"* ]] ||
    fail "frames: plain bar tooltip '$(field "$fp" fc-tooltip)'"
  want_prefix fc-spike-tooltip "frame 20000 (spike) / duration  120 ms / "
  # a click on the slowest spike: its own tree, the frame's duration at the root
  want spike-view "frame 20000"
  want spike-duration-ns 120000000
  want spike-root-ns 120000000
  rw=$(field "$fp" spike-root-width)
  awk -v a="${rw%% of*}" -v b="${rw##*of }" 'BEGIN { exit !(a > 0 && a >= b - 1) }' ||
    fail "frames: the spike's root is $rw px wide"
  has_names "$fp" spike-frame-names "frame 20000" "main chunk" "Game.update" "Level.load_chunk" \
    "zone physics" "local collide"
  lacks_names spike-frame-names all "Game.draw" "local make_garbage" "zone render"
  want_prefix spike-row-names "Level.load_chunk|"
  lacks_names spike-row-names "Game.draw" "local make_garbage"
  want_prefix spike-crumbs "view: frame 20000 (120 ms, "
  sel=$(field "$fp" spike-selected-pixel)
  awk -v p="$sel" 'BEGIN { split(p, c, ","); exit !(c[1] < 150 && c[1] > c[3]) }' ||
    fail "frames: the selected spike is drawn $sel"
  # back to the whole run: a click on a plain bar, and the Whole run button
  want after-plain-click whole
  has_names "$fp" whole-frame-names all "Game.draw" "local make_garbage" "Level.load_chunk"
  want spike-again "frame 20000"
  want after-whole-button whole
  want whole-root-ns 590000000000
  want whole-rows 9
  # weighed by bytes: the function that only allocates is the widest
  want_prefix widest-time "Game.update ("
  want mode bytes
  want_prefix widest-bytes "local make_garbage ("
  want bytes-root 960344064
  want heads-bytes "name|src|calls|abt|ab|abpct|ac|fr|live|peak|maxa"
  want bytes-first-row "local make_garbage"
  want_prefix bytes-first-cells "local make_garbage|game.lua:70|40000|900 MiB|900 MiB|"
  want fc-top-bytes 6384640
  want mode-again time
  want_prefix widest-time-again "Game.update ("
  # zones: blue, functions warm, the markup zone's name as text
  zd=$(field "$fp" zones-drawn)
  [[ $zd =~ ^([0-9]+)\ of\ ([0-9]+)\ blue\;\ functions\ warm\ ([0-9]+)\ of\ ([0-9]+)$ &&
     ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" && ${BASH_REMATCH[1]} -ge 2 &&
     ${BASH_REMATCH[3]} == "${BASH_REMATCH[4]}" && ${BASH_REMATCH[3]} -ge 4 ]] ||
    fail "frames: zones drawn '$zd'"
  want zone-rows 3
  has_names "$fp" zone-names "zone physics" "zone render"
  has_names "$fp" row-names "zone &lt;img src=x onerror=\"document.title='pwned'\"&gt;$(printf '\xc3\xbf')"
  # calls not yet returned are "calls", not "frames" (frame mode's)
  [[ $(field "$fp" header) == *", 2 calls still open"* ]] ||
    fail "frames: header '$(field "$fp" header)' lacks ', 2 calls still open'"
  has_names "$fp" summary "calls still open=2"
  # one convention for figures: the page shows a time or a byte count as
  # the text report of the same profile (frames.txt) does
  tx=$tmp/frames.txt
  if [[ ! -s $tx ]]; then fail "frames: no text report beside the page"; else
    wall=$(sed -n '1s/^luainstr profile: \(.*\) wall, .*/\1/p' "$tx")
    [[ -n $wall && $(field "$fp" header) == "$wall wall, "* ]] ||
      fail "frames: text says '$wall wall', page header '$(field "$fp" header)'"
    cost=$(sed -n '1s/.* probes, \(.*\) probe cost subtracted.*/\1/p' "$tx")
    has_names "$fp" summary "probe cost subtracted=$cost"
    out=$(sed -n 's/.*; outside user code \(.*\) in \([0-9]*\) allocations, .*/\1 in \2 allocations/p' "$tx")
    has_names "$fp" summary "outside user code=$out"
    map=$(sed -n 's/^block map: \([0-9]*\) blocks tracked in \(.*\); .*/\1 (map \2)/p' "$tx")
    has_names "$fp" summary "blocks tracked=$map"
    # the first row by self time: self, total, min, max
    row=$(awk '/^ *self% / { getline; print; exit }' "$tx" | sed 's/^ *//; s/   */|/g')
    IFS='|' read -r t_pct t_self t_total t_calls t_min t_max _ <<<"$row"
    IFS='|' read -r _ _ h_calls h_total h_self h_pct h_min h_max _ <<<"$(field "$fp" first-cells)"
    [[ "$t_self|$t_total|$t_calls|$t_min|$t_max|$t_pct" == "$h_self|$h_total|$h_calls|$h_min|$h_max|$h_pct" ]] ||
      fail "frames: first row: text '$t_self|$t_total|$t_calls|$t_min|$t_max|$t_pct'," \
        "page '$h_self|$h_total|$h_calls|$h_min|$h_max|$h_pct'"
    # memory: a byte count in KiB/MiB in both
    grep -q 'MiB allocated by user code' "$tx" || fail "frames: text memory line: $(grep '^memory:' "$tx")"
  fi
  awk -v s="$secs" 'BEGIN { exit !(s < 30) }' || fail "frames: $secs s in the browser"
  echo "ok: frames profile: $(field "$fp" fc-frames) frames in $bars bars (drawn in $(field "$fp" fc-ms) ms)," \
    "spike view, whole run, bytes, zones; browser ${secs} s"
fi

# ---- idle spans: each bar's idle part stacked on its busy part ----
cat >"$tmp/idle.lua" <<'LUA'
local p = require 'luainstr'
local function burn(ms) local t = os.clock() + ms / 1000; while os.clock() < t do end end
local function work(i) burn(i == 30 and 6 or 0.3) end
for i = 1, 40 do
  work(i)
  assert(p.idle_begin()); burn(4); assert(p.idle_end())
  p.frame()
end
LUA
(cd "$tmp" && "$luaprof" --frames -f html -o idle.html idle.lua >/dev/null) ||
  fail "luaprof --frames -f html idle.lua"
ip=$tmp/idle.html
selftest "$ip" >/dev/null
check_page "$ip" idle
[[ $(field "$ip" fc-bars) == 40 && $(field "$ip" fc-idle-bars) == 40 ]] ||
  fail "idle: $(field "$ip" fc-idle-bars) of $(field "$ip" fc-bars) bars show their idle part"
[[ "|$(field "$ip" fc-spikes)|" == *"|30|"* ]] ||
  fail "idle: frame 30's busy time is not a spike: '$(field "$ip" fc-spikes)'"
[[ $(field "$ip" fc-tooltip) == *" / busy "*" / idle "* ]] ||
  fail "idle: tooltip '$(field "$ip" fc-tooltip)'"
ipx=$(field "$ip" fc-idle-pixel)
[[ -n $ipx ]] && awk -v p="$ipx" 'BEGIN { split(p, c, ","); exit !(c[1] > 190 && c[2] > 190 && c[3] > 190) }' ||
  fail "idle: the idle part of a bar is drawn '$ipx', not pale"
echo "ok: idle ($(field "$ip" fc-idle-bars) bars with an idle part, drawn $ipx)"

# ---- the README's screenshot ----
shots=${LI_UPDATE_SCREENSHOT:-0}
if [[ $shots == 1 ]]; then
  (cd "$root/samples/host" && "$luaprof" -f html -o "$tmp/game.html" game.lua >/dev/null)
  chrome "$tmp/game.log" --screenshot="$root/docs/report-html.png" "file://$tmp/game.html" >/dev/null
  echo "wrote $root/docs/report-html.png"
fi
if [[ $shots == 1 || $shots == frames ]]; then
  page=${LI_FRAMES_PAGE:-$tmp/frames.html}
  if [[ -f $page ]]; then
    chrome "$tmp/frames.log" --window-size=1280,1000 --screenshot="$root/docs/report-frames.png" \
      "file://$(cd "$(dirname "$page")" && pwd)/$(basename "$page")${LI_FRAMES_HASH:-}" >/dev/null
    echo "wrote $root/docs/report-frames.png from $page"
  else
    fail "no frames page for docs/report-frames.png ($page)"
  fi
fi

if [[ $failures -gt 0 ]]; then
  echo "html_chromium: $failures failure(s)"
  exit 1
fi
echo "html_chromium: all passed"
