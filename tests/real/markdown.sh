#!/usr/bin/env bash
# Debian's lua-markdown (markdown.lua 0.32, Lua 5.1 only: it runs its module
# body under setfenv) rendering this project's documentation, under lua5.1
# and under luaprof5.1 (markdown.lua instrumented), or under luajit and
# luaprofjit (LuaJIT searches the same /usr/share/lua/5.1).  Each command's stdout,
# stderr and exit status must be the same, and so must every file the
# commands write (diff -r of the two copies); the reports must name
# markdown.lua's functions.  Both sides run from the root of a fresh copy
# of the documents (the same path for both).  Nothing is normalised but
# the address in LuaJIT's tracebacks (common.sh, run_side).
#
# The commands, as `LUA ARGS` and `LUAPROF -f csv -o REPORT ARGS`:
#   files   MARKDOWN README.md docs/*.md  (writes README.html, docs/*.html,
#           each wrapped in the generated XHTML header)
#   stdin   MARKDOWN -n  < docs/json-schema.md  (to stdout, not wrapped)
#   module  -e 'arg = nil require "markdown" io.write(markdown(io.read("*a")))'
#           < docs/report-html.md  (the module's `markdown` function;
#           `luajit -e` makes an `arg` table without arg[0], on which
#           markdown.lua's own command-line check fails; lua5.1 makes none,
#           so `arg = nil` changes nothing there)
#   help    MARKDOWN -h
#   missing MARKDOWN no-such-file.md  (an error: message and status 1)
#
# usage: markdown.sh LUAPROF_BIN SOURCE_DIR [LUA]
#   LUAPROF_BIN  luaprof5.1 (or luaprofjit)
#   SOURCE_DIR   this project's root (README.md, docs/)
#   LUA          the stock interpreter LUAPROF_BIN is built for: lua5.1
#                (default) or luajit
# (LI_LUAPROF_FLAGS: more luaprof options, split at spaces: --memory.)
set -u
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 LUAPROF_BIN SOURCE_DIR [LUA]" >&2; exit 2; }
# shellcheck source=tests/real/common.sh
. "$here/common.sh"
real_init markdown.sh "$1" "$2" "${3:-lua5.1}"
root=$(cd "$2" && pwd) || exit 2

# markdown.lua where the Lua's require finds it (5.1 has no searchpath).
md=$("$lua" -e 'for t in package.path:gmatch("[^;]+") do
  local f = t:gsub("%?", "markdown") local h = io.open(f)
  if h then h:close() print(f) break end end')
if [ -z "$md" ]; then
  echo "$prog: FAIL: $lua finds no markdown.lua (lua-markdown; scripts/deps.sh installs it)" >&2
  exit 1
fi
docs=(README.md)
for f in "$root"/docs/*.md; do docs+=("docs/$(basename "$f")"); done
for f in "${docs[@]}" docs/json-schema.md docs/report-html.md; do
  [ -f "$root/$f" ] || { echo "$prog: FAIL: no $root/$f" >&2; exit 1; }
done

run=$tmp/run
out=$tmp/out
names=(files stdin module help missing)
for side in ref prof; do
  rm -rf -- "$run" && mkdir -p "$run/docs" || exit 2
  for f in "${docs[@]}"; do cp -- "$root/$f" "$run/$f" || exit 2; done
  cd "$run" || exit 2
  for k in "${names[@]}"; do
    mkdir -p "$out/$k"
    if [ $side = ref ]; then cmd=("$lua")
    else cmd=("$prof" ${LI_LUAPROF_FLAGS:-} -f csv -o "$out/$k/report.csv"); fi
    stdin_file=
    case $k in
      files) args=("$md" "${docs[@]}") ;;
      stdin) args=("$md" -n); stdin_file=$run/docs/json-schema.md ;;
      module) args=(-e 'arg = nil require "markdown" io.write(markdown(io.read("*a")))')
              stdin_file=$run/docs/report-html.md ;;
      help) args=("$md" -h) ;;
      missing) args=("$md" no-such-file.md) ;;
    esac
    timed_side "$out/$k" $side "${cmd[@]}" "${args[@]}"
  done
  stdin_file=
  cd "$tmp" || exit 2
  mv -- "$run" "$tmp/$side.tree" || exit 2
done

msgs=
for k in "${names[@]}"; do
  m=$(differs "$out/$k")
  [ -n "$m" ] && msgs+=$'\n'"  [$k]"$'\n'"$m"
done
if ! diff -r "$tmp/ref.tree" "$tmp/prof.tree" >"$out/tree.diff"; then
  msgs+=$'\n'"  --- written files differ (diff -r $lua luaprof):"
  msgs+=$'\n'"$(head -n "${LI_DIFF_LINES:-40}" "$out/tree.diff" | sed 's/^/    /')"
fi
m=$(report_lacks "$out/files/report.csv" "markdown.lua:/markdown\.lua"
    report_lacks "$out/module/report.csv" "markdown.lua (required):/markdown\.lua")
[ -n "$m" ] && msgs+=$'\n'"$m"
# The reference must have done its job: every document rendered.
html=$(find "$tmp/ref.tree" -name '*.html' | wc -l)
if [ "$html" -ne ${#docs[@]} ] || [ "$(cat "$out/files/ref.status")" != 0 ] ||
   [ "$(cat "$out/missing/ref.status")" = 0 ]; then
  msgs+=$'\n'"  markdown.lua under $lua did not do its job: $html of ${#docs[@]} files rendered"
fi
fns=$(grep -c ',[^,]*/markdown\.lua,[0-9]*,[0-9]*,[1-9]' "$out/files/report.csv" 2>/dev/null)

echo "markdown.lua: ${#docs[@]} documents rendered ($(cat "$tmp"/ref.tree/README.html \
  "$tmp"/ref.tree/docs/*.html | wc -c) bytes of html), ${fns:-0} of its functions in the report"
echo "run time: $lua ${ms_ref} ms, $(basename "$prof") ${ms_prof} ms"
if [ -z "$msgs" ]; then
  echo "ok   markdown: stdout, stderr, exit status and written files identical in ${#names[@]} commands; report written"
  exit 0
fi
echo "FAIL markdown"
printf '%s\n' "$msgs"
exit 1
