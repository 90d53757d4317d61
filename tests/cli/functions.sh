#!/usr/bin/env bash
# functions.sh -- luainstr at each Lua's limit of functions nested in one
# function (lparser.c's prototypes vector, MAXARG_Bx: 131071 in 5.4, 262143
# in 5.1-5.3; LuaJIT's 65536 GC constants, lj_parse.c).  For each dialect
# whose interpreter is installed, in the main chunk and in a nested
# function, with N = the limit the rewriter assumes (parser/parse.c):
#  - the real interpreter compiles N functions and rejects N + 1 (so the
#    rewriter's limit is exactly the interpreter's);
#  - luainstr --lua V takes N: exit 0, and its output compiles under the
#    interpreter;
#  - luainstr rejects N + 1 (the rewriter's LI_ELIMIT): exit 1, with Lua's
#    own message under 5.4 (it compiles with Lua 5.4), else a message
#    naming the limit.
# usage: functions.sh LUAINSTR
set -u
[ $# -eq 1 ] || { echo "usage: $0 LUAINSTR" >&2; exit 2; }
luainstr=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-functions.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT
echo "local f, e = loadfile(arg[1]) io.write(f and 'ok' or e)" >"$tmp/comp.lua"

# gen WHERE N: N functions in the main chunk or in one nested function
# (a local holds them: no global name, which LuaJIT would count too)
gen() {
  if [ "$1" = main ]; then
    { echo 'local f'; yes 'f=function()end' | head -n "$2"; echo 'return f'; }
  else
    { echo 'return function() local f'; yes 'f=function()end' | head -n "$2"; echo 'return f end'; }
  fi
}

passed=0 failed=0 skipped=0
for d in 5.1:lua5.1:262143 5.2:lua5.2:262143 5.3:lua5.3:262143 5.4:lua5.4:131071 jit:luajit:65536; do
  v=${d%%:*} rest=${d#*:}; lua=${rest%%:*} n=${rest#*:}
  if ! command -v "$lua" >/dev/null; then
    if [ -n "${CI:-}" ]; then echo "FAIL $v: $lua not installed (scripts/deps.sh)"; failed=$((failed + 1))
    else echo "skip $v: $lua not installed"; skipped=$((skipped + 1)); fi
    continue
  fi
  for where in main nested; do
    why=()
    gen $where "$n" >"$tmp/at.lua"
    gen $where $((n + 1)) >"$tmp/over.lua"
    # compile (not run) under the interpreter: prints ok or Lua's message
    comp() { "$lua" "$tmp/comp.lua" "$1" 2>&1; }
    [ "$(comp "$tmp/at.lua")" = ok ] || why+=("$lua rejects $n functions")
    lua_msg=$(comp "$tmp/over.lua" | head -1)
    [ "$lua_msg" != ok ] || why+=("$lua compiles $((n + 1)) functions")
    "$luainstr" --lua "$v" -o "$tmp/out.lua" "$tmp/at.lua" 2>"$tmp/at.err"; st=$?
    if [ $st -ne 0 ]; then why+=("luainstr exits $st at the limit: $(head -c 200 "$tmp/at.err")")
    else
      out=$(comp "$tmp/out.lua")
      [ "$out" = ok ] || why+=("the output at the limit does not compile: ${out:0:200}")
    fi
    "$luainstr" --lua "$v" -o "$tmp/out.lua" "$tmp/over.lua" 2>"$tmp/over.err"; st=$?
    [ $st -eq 1 ] || why+=("luainstr exits $st over the limit, not 1")
    if [ "$v" = 5.4 ]; then
      grep -qF -- "${lua_msg##*: }" "$tmp/over.err" ||
        why+=("not Lua's message over the limit: $(head -c 200 "$tmp/over.err")")
    else
      grep -qF -- "too many functions (limit is $n)" "$tmp/over.err" ||
        why+=("no message naming the limit: $(head -c 200 "$tmp/over.err")")
    fi
    if [ ${#why[@]} -eq 0 ]; then echo "ok   $v $where (limit $n)"; passed=$((passed + 1))
    else echo "FAIL $v $where: ${why[*]}"; failed=$((failed + 1)); fi
  done
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
