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
#            under 10 MB, rendered and zoomed within 30 s.
# With LI_UPDATE_SCREENSHOT=1 it also rewrites docs/report-html.png from
# samples/host/game.lua.  Exits 77 (skipped) when Chromium is missing.
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
has_names "$tmp/hello.html" frame-names all "main chunk" "local countdown"
has_names "$tmp/hello.html" row-names "main chunk" "local countdown" "local sum_of_squares" \
  "Greeter:greet" "Greeter.new" "local square"
[[ $(field "$tmp/hello.html" rows) == 6 ]] || fail "hello: $(field "$tmp/hello.html" rows) rows"
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
fi

# ---- the README's screenshot ----
if [[ ${LI_UPDATE_SCREENSHOT:-0} == 1 ]]; then
  (cd "$root/samples/host" && "$luaprof" -f html -o "$tmp/game.html" game.lua >/dev/null)
  chrome "$tmp/game.log" --screenshot="$root/docs/report-html.png" "file://$tmp/game.html" >/dev/null
  echo "wrote $root/docs/report-html.png"
fi

if [[ $failures -gt 0 ]]; then
  echo "html_chromium: $failures failure(s)"
  exit 1
fi
echo "html_chromium: all passed"
