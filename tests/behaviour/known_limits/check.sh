#!/usr/bin/env bash
# check.sh -- the known limits stay known: every program here declares on
# its first line the modes in which it behaves differently from lua5.4,
#     -- differs: offline luaprof      (or one of them; `offline(maybe)`
#                                        for a difference that depends on
#                                        where a limit falls; `module` for
#                                        one of -l luainstr.run alone)
# and must differ in exactly those: offline is `luainstr` output run by a
# stock lua5.4 (run.sh), luaprof is the program run under luaprof
# (run_luaprof.sh), and under the runtime's other front, a stock lua5.4
# with `-l luainstr.run` (mode `module`), where it must do what it does
# under luaprof.  A program that starts behaving like the original where
# it is declared to differ fails too, so the list never goes stale.
#
# usage: check.sh LUAINSTR LUAPROF MODULE_DIR (holds luainstr.so)
set -u
[ $# -eq 3 ] || { echo "usage: $0 LUAINSTR LUAPROF MODULE_DIR" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
beh=$(dirname "$here")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-limits.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT

bash "$beh/run.sh" "$1" lua5.4 5.4 "$here" >"$tmp/offline" 2>&1
bash "$beh/run_luaprof.sh" "$2" lua5.4 "$here" >"$tmp/luaprof" 2>&1
# lua5.4 -l luainstr.run behind luaprof's -o, for run_luaprof.sh
mod=$(cd "$3" && pwd) || exit 2
cat >"$tmp/modprof" <<EOS
#!/bin/sh
[ "\$1" = -o ] && { LUAINSTR_OUT=\$2; export LUAINSTR_OUT; shift 2; }
LUA_CPATH="$mod/?.so;\$LUA_CPATH" exec lua5.4 -l luainstr.run "\$@"
EOS
chmod +x "$tmp/modprof"
bash "$beh/run_luaprof.sh" "$tmp/modprof" lua5.4 "$here" >"$tmp/module" 2>&1

failed=0 passed=0
for p in "$here"/*.lua; do
  name=$(basename "$p")
  decl=$(sed -n '1s/^-- differs: //p' "$p")
  if [ -z "$decl" ]; then
    echo "FAIL $name: no '-- differs:' first line"; failed=$((failed + 1)); continue
  fi
  for mode in offline luaprof module; do
    if grep -q "^FAIL $name:" "$tmp/$mode"; then got=differs
    elif grep -q "^ok   $name\$" "$tmp/$mode"; then got=same
    else echo "FAIL $name ($mode): not run"; failed=$((failed + 1)); continue
    fi
    # module: what luaprof does (the same runtime), or declared on its own
    d=$decl; [ "$mode" = module ] && d=${decl//luaprof/module}
    case " $d " in
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
