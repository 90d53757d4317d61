#!/usr/bin/env bash
# check.sh -- the known limits stay known: every program here declares on
# its first line the modes in which it behaves differently from lua5.4,
#     -- differs: offline luaprof      (or one of them; `offline(maybe)`
#                                        for a difference that depends on
#                                        where a limit falls)
# and must differ in exactly those: offline is `luainstr` output run by a
# stock lua5.4 (run.sh), luaprof is the program run under luaprof
# (run_luaprof.sh).  A program that starts behaving like the original where
# it is declared to differ fails too, so the list never goes stale.
#
# usage: check.sh LUAINSTR LUAPROF
set -u
[ $# -eq 2 ] || { echo "usage: $0 LUAINSTR LUAPROF" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
beh=$(dirname "$here")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-limits.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT

bash "$beh/run.sh" "$1" lua5.4 5.4 "$here" >"$tmp/offline" 2>&1
bash "$beh/run_luaprof.sh" "$2" lua5.4 "$here" >"$tmp/luaprof" 2>&1

failed=0 passed=0
for p in "$here"/*.lua; do
  name=$(basename "$p")
  decl=$(sed -n '1s/^-- differs: //p' "$p")
  if [ -z "$decl" ]; then
    echo "FAIL $name: no '-- differs:' first line"; failed=$((failed + 1)); continue
  fi
  for mode in offline luaprof; do
    if grep -q "^FAIL $name:" "$tmp/$mode"; then got=differs
    elif grep -q "^ok   $name\$" "$tmp/$mode"; then got=same
    else echo "FAIL $name ($mode): not run"; failed=$((failed + 1)); continue
    fi
    case " $decl " in
      *" $mode(maybe) "*) want=any ;;
      *" $mode "*) want=differs ;;
      *) want=same ;;
    esac
    if [ "$want" = any ] || [ "$want" = "$got" ]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "FAIL $name ($mode): declared to $( [ "$want" = same ] && echo 'behave the same' || echo differ), but it $( [ "$got" = same ] && echo 'behaves the same' || echo differs)"
      sed -n "/^FAIL $name:/,/^\(ok\|FAIL\) /p" "$tmp/$mode" | sed '$d' | head -30
    fi
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
