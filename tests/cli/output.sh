#!/usr/bin/env bash
# output.sh -- where luainstr's result goes, and what it leaves when Lua
# rejects the input.  A large file (1 MiB and more) with no `#` first line
# is written before it is checked (to the temporary file beside -o's, or one in TMPDIR for stdout)
# and compiled from there; when that does not compile, or nothing can be
# written there, the loader's way (li_instrument_load, from memory) settles
# it.  Both ways must give the same bytes, and:
#  - stdout, -o (new, replaced with its mode kept, through a symbolic link,
#    a device), stdin: one result, which luac5.4 compiles;
#  - the staged way and the loader's way (TMPDIR that cannot be written):
#    the same bytes;
#  - what the rewriter takes and Lua compiles only with a function left
#    without probes (nesting at the C limit): the loader's way, the input
#    read again for a file, kept for stdin: the same result, a warning;
#  - what Lua rejects, found by the rewriter (a syntax error) or only by
#    Lua (nesting past the C limit): exit 1, Lua's message as luac5.4's,
#    nothing on stdout, the -o file untouched, no temporary file left;
#  - -o in a directory that does not exist: exit 2, "cannot write"; a
#    syntax error there still exits 1 (the check comes first).
# usage: output.sh LUAINSTR
set -u
[ $# -eq 1 ] || { echo "usage: $0 LUAINSTR" >&2; exit 2; }
luainstr=$1
command -v luac5.4 >/dev/null || { echo "output.sh: luac5.4 not found" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-output.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT
mkdir "$tmp/out" "$tmp/tmpdir" || exit 2

passed=0 failed=0
check() {  # NAME REASON...: ok when no reason is given
  local name=$1; shift
  if [ $# -eq 0 ]; then echo "ok   $name"; passed=$((passed + 1))
  else echo "FAIL $name: $*"; failed=$((failed + 1)); fi
}
# no temporary file left beside the outputs nor in TMPDIR
leftovers() { find "$tmp/out" "$tmp/tmpdir" -mindepth 1 \( -name '.*.tmp.*' -o -name 'luainstr.*' \) | head -3; }
li() { TMPDIR=$tmp/tmpdir "$luainstr" "$@"; }

# a chunk of many small functions, as bench/load/gen.lua makes them: large
# enough to be staged (1.1 MB), as is everything made from it below
for ((i = 1; i <= 16000; i++)); do
  echo "t[$i] = function(a) if a < 0 then return -a end return a + $i end"
done | { echo 'local t = {}'; cat; } >"$tmp/dense.lua"
rep() { local i; for ((i = 0; i < $2; i++)); do printf '%s' "$1"; done; }
calls() {  # calls nested N deep inside a function (tests/cli/depth.sh)
  printf 'local function f(...) return ... end\nlocal function g() return '
  rep 'f(' "$1"; printf 1; rep ')' "$1"; printf ' end\nprint(g())\n'
}

# ---- one result wherever it goes --------------------------------------------
why=()
li "$tmp/dense.lua" >"$tmp/stdout.lua" 2>"$tmp/err" || why+=("stdout: exit $?")
[ -s "$tmp/err" ] && why+=("stderr: $(head -c 200 "$tmp/err")")
luac5.4 -p "$tmp/stdout.lua" 2>"$tmp/err" || why+=("does not compile: $(head -c 200 "$tmp/err")")
grep -q __LI "$tmp/stdout.lua" || why+=("not instrumented")
li -o "$tmp/out/new.lua" "$tmp/dense.lua" || why+=("-o new: exit $?")
cmp -s "$tmp/stdout.lua" "$tmp/out/new.lua" || why+=("-o new differs from stdout")
echo old >"$tmp/out/old.lua"; chmod 640 "$tmp/out/old.lua"
li -o "$tmp/out/old.lua" "$tmp/dense.lua" || why+=("-o replaced: exit $?")
cmp -s "$tmp/stdout.lua" "$tmp/out/old.lua" || why+=("-o replaced differs")
[ "$(stat -c %a "$tmp/out/old.lua")" = 640 ] || why+=("-o replaced: mode $(stat -c %a "$tmp/out/old.lua"), not 640")
ln -s old.lua "$tmp/out/link.lua"
echo old >"$tmp/out/old.lua"
li -o "$tmp/out/link.lua" "$tmp/dense.lua" || why+=("-o link: exit $?")
[ -L "$tmp/out/link.lua" ] || why+=("-o link: the link was replaced")
cmp -s "$tmp/stdout.lua" "$tmp/out/old.lua" || why+=("-o link: its target differs")
li -o /dev/null "$tmp/dense.lua" || why+=("-o /dev/null: exit $?")
li --chunkname @"$tmp/dense.lua" - <"$tmp/dense.lua" >"$tmp/stdin.lua" || why+=("stdin: exit $?")
cmp -s "$tmp/stdout.lua" "$tmp/stdin.lua" || why+=("stdin differs")
[ -n "$(leftovers)" ] && why+=("left behind: $(leftovers)")
check "one result: stdout, -o new, replaced, link, device, stdin" "${why[@]}"

why=()
TMPDIR=$tmp/none "$luainstr" "$tmp/dense.lua" >"$tmp/loader.lua" || why+=("exit $?")
cmp -s "$tmp/stdout.lua" "$tmp/loader.lua" || why+=("the loader's way differs from the staged one")
check "the loader's way (TMPDIR cannot be written): the same bytes" "${why[@]}"

# ---- Lua compiles it only with a function left without probes ---------------
why=()
{ cat "$tmp/dense.lua"; calls 195; } >"$tmp/calls.lua"
luac5.4 -p "$tmp/calls.lua" 2>/dev/null || why+=("luac5.4 rejects the input")
li "$tmp/calls.lua" >"$tmp/calls.out" 2>"$tmp/calls.err" || why+=("file: exit $?")
grep -q "left without probes" "$tmp/calls.err" || why+=("no warning: $(head -c 200 "$tmp/calls.err")")
luac5.4 -p "$tmp/calls.out" 2>"$tmp/err" || why+=("does not compile: $(head -c 200 "$tmp/err")")
li -o "$tmp/out/calls.lua" "$tmp/calls.lua" 2>/dev/null || why+=("-o: exit $?")
cmp -s "$tmp/calls.out" "$tmp/out/calls.lua" || why+=("-o differs from stdout")
li --chunkname @"$tmp/calls.lua" - <"$tmp/calls.lua" >"$tmp/calls.stdin" 2>/dev/null || why+=("stdin: exit $?")
cmp -s "$tmp/calls.out" "$tmp/calls.stdin" || why+=("stdin differs from the file")
[ -n "$(leftovers)" ] && why+=("left behind: $(leftovers)")
check "compiled with a function left without probes (file read again, stdin kept)" "${why[@]}"

# ---- what Lua rejects -------------------------------------------------------
# rejected KIND FILE: the rewriter's syntax error, or Lua's C stack limit
rejected() {
  local name=$1 in=$2 msg st
  why=()
  luac5.4 -p "$in" 2>"$tmp/luac.err" && why+=("luac5.4 compiles it")
  msg=$(sed 's/^luac5.4: //' "$tmp/luac.err" | head -1)
  li "$in" >"$tmp/rej.out" 2>"$tmp/rej.err"; st=$?
  [ $st -eq 1 ] || why+=("stdout: exit $st, not 1")
  [ -s "$tmp/rej.out" ] && why+=("stdout: something written")
  [ "$(cat "$tmp/rej.err")" = "luainstr: $msg" ] || why+=("not Lua's message: $(head -c 200 "$tmp/rej.err")")
  echo untouched >"$tmp/out/keep.lua"
  li -o "$tmp/out/keep.lua" "$in" 2>/dev/null; st=$?
  [ $st -eq 1 ] || why+=("-o: exit $st, not 1")
  [ "$(cat "$tmp/out/keep.lua")" = untouched ] || why+=("-o: the file was changed")
  li -o "$tmp/out/fresh.lua" "$in" 2>/dev/null
  [ -e "$tmp/out/fresh.lua" ] && why+=("-o: a new file was written")
  [ -n "$(leftovers)" ] && why+=("left behind: $(leftovers)")
  check "rejected, $name: exit 1, Lua's message, nothing written" "${why[@]}"
}
{ cat "$tmp/dense.lua"; echo 'local x = = 1'; } >"$tmp/syntax.lua"
rejected "a syntax error" "$tmp/syntax.lua"
{ cat "$tmp/dense.lua"; printf 'local x = '; rep '(' 250; printf 1; rep ')' 250; echo; } >"$tmp/deep.lua"
rejected "nesting past the C limit" "$tmp/deep.lua"

# ---- -o where nothing can be written ----------------------------------------
why=()
li -o "$tmp/none/out.lua" "$tmp/dense.lua" 2>"$tmp/err"; st=$?
[ $st -eq 2 ] || why+=("exit $st, not 2")
grep -q "^luainstr: cannot write $tmp/none/out.lua: " "$tmp/err" || why+=("message: $(head -c 200 "$tmp/err")")
li -o "$tmp/none/out.lua" "$tmp/syntax.lua" 2>/dev/null; st=$?
[ $st -eq 1 ] || why+=("a syntax error: exit $st, not 1")
check "-o in a directory that does not exist: exit 2; a syntax error first: 1" "${why[@]}"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
