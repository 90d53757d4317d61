#!/usr/bin/env bash
# depth.sh -- luainstr at Lua's nesting limit.  For constructs nested ever
# deeper (parentheses, calls, tables, functions, blocks, in and out of
# returns), up to the first depth luac5.4 rejects:
#  - luainstr accepts exactly what luac5.4 accepts (it compiles where luac
#    and lua5.4 compile a file, one C function deep: no level more or less);
#  - what it writes compiles under luac5.4 (a function that no longer would
#    is left without probes, with a warning);
#  - what Lua rejects ("C stack overflow") exits 1 with Lua's message.
# usage: depth.sh LUAINSTR
set -u
[ $# -eq 1 ] || { echo "usage: $0 LUAINSTR" >&2; exit 2; }
luainstr=$1
command -v luac5.4 >/dev/null || { echo "depth.sh: luac5.4 not found" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-depth.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT

rep() { local i; for ((i = 0; i < $2; i++)); do printf '%s' "$1"; done; }
gen() {  # construct depth
  case $1 in
    parens_multi) printf 'local x = 1\nreturn 1, f('; rep '(' "$2"; printf x; rep ')' "$2"; printf ')\n' ;;
    calls_main)   printf 'local function f(...) return ... end\nreturn '; rep 'f(' "$2"; printf 1; rep ')' "$2"; echo ;;
    calls_func)   printf 'local function f(...) return ... end\nlocal function g() return '; rep 'f(' "$2"; printf 1; rep ')' "$2"; printf ' end\nprint(g())\n' ;;
    parens)       printf 'local x = '; rep '(' "$2"; printf 1; rep ')' "$2"; echo ;;
    tables)       printf 'local t = '; rep '{' "$2"; rep '}' "$2"; printf '\nreturn t\n' ;;
    functions)    printf 'local f = '; rep 'function() return ' "$2"; printf 1; rep ' end' "$2"; printf '\nreturn f\n' ;;
    blocks)       rep 'if true then ' "$2"; printf 'x = 1 '; rep 'end ' "$2"; echo ;;
  esac
}

passed=0 failed=0
for c in parens_multi calls_main calls_func parens tables functions blocks; do
  why=()
  start=170; [ "$c" = functions ] && start=80
  for ((n = start; n < 260; n++)); do
    gen "$c" "$n" >"$tmp/in.lua"
    luac5.4 -p "$tmp/in.lua" 2>"$tmp/luac.err"; lst=$?
    "$luainstr" -o "$tmp/out.lua" "$tmp/in.lua" 2>"$tmp/li.err"; ist=$?
    if [ $lst -eq 0 ]; then
      if [ $ist -ne 0 ]; then why+=("depth $n: luac accepts, luainstr exits $ist"); break; fi
      luac5.4 -p "$tmp/out.lua" 2>"$tmp/out.err" ||
        { why+=("depth $n: the output does not compile: $(head -c 200 "$tmp/out.err")"); break; }
    else
      [ $ist -eq 1 ] || why+=("depth $n: luac rejects, luainstr exits $ist, not 1")
      msg=$(sed 's/^luac5.4: //' "$tmp/luac.err" | head -1)
      grep -qF -- "${msg##*: }" "$tmp/li.err" || why+=("depth $n: not Lua's message: $(head -1 "$tmp/li.err")")
      break
    fi
  done
  if [ ${#why[@]} -eq 0 ]; then echo "ok   $c (luac rejects from depth $n)"; passed=$((passed + 1))
  else echo "FAIL $c: ${why[*]}"; failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
