#!/usr/bin/env bash
# Known answers on LuaJIT through its boundaries (errors caught by the
# profiler's pcall and xpcall, yields across them, coroutines dying by an
# error): every answers/*.lua runs under luaprofjit -f json in each mode
# and its report must hold the call counts, errors and call-tree paths its
# `-- expect` lines give (check.py); its output and exit status must be
# luajit's.  Modes: the default probe; LUAINSTR_PROBE=api (the C API
# probe); -joff (chunks loaded with the JIT off); and, given MODULE_DIR,
# `luajit -l luainstr.run` with MODULE_DIR/luainstr.so.
#
# usage: run.sh LUAPROFJIT [LUAJIT] [MODULE_DIR]
set -u
[ $# -ge 1 ] && [ $# -le 3 ] || { echo "usage: $0 LUAPROFJIT [LUAJIT] [MODULE_DIR]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
. "$here/../../common.sh"
prof=$(abspath "$1") || exit 2
interp=${2:-luajit}
module_dir=${3:-}
need_command run.sh luaprofjit "$prof"
need_command run.sh interpreter "$interp"
need_command run.sh python3 python3
if [ -n "$module_dir" ]; then
  module_dir=$(cd "$module_dir" && pwd) || exit 2
  [ -f "$module_dir/luainstr.so" ] || { echo "run.sh: no luainstr.so in $module_dir" >&2; exit 2; }
fi
clean_lua_env
tmo=${LI_TIMEOUT:-60}
setup_run run.sh li-jit-answers
modes="default api joff"
[ -n "$module_dir" ] && modes="$modes module"

passed=0
failed=0
for prog in "$here"/*.lua; do
  name=$(basename "$prog")
  cp -- "$prog" "$tmp/$name"
  (cd "$tmp" && "${run_timeout[@]}" "$interp" "$name" </dev/null >ref.out 2>ref.err)
  echo $? >"$tmp/ref.status"
  for mode in $modes; do
    rep=$tmp/report.json
    rm -f -- "$rep"
    case $mode in
      default) cmd=("$prof" -f json -o "$rep") ;;
      api) cmd=(env LUAINSTR_PROBE=api "$prof" -f json -o "$rep") ;;
      joff) cmd=("$prof" -f json -o "$rep" -joff) ;;
      module) cmd=(env LUA_CPATH="$module_dir/?.so" LUAINSTR_FORMAT=json
                   LUAINSTR_OUT="$rep" "$interp" -l luainstr.run) ;;
    esac
    (cd "$tmp" && "${run_timeout[@]}" "${cmd[@]}" "$name" </dev/null >prof.out 2>prof.err)
    echo $? >"$tmp/prof.status"
    why=()
    cmp -s "$tmp/ref.status" "$tmp/prof.status" ||
      why+=("exit status $(cat "$tmp/ref.status") vs $(cat "$tmp/prof.status")")
    cmp -s "$tmp/ref.out" "$tmp/prof.out" || why+=("stdout differs")
    cmp -s "$tmp/ref.err" "$tmp/prof.err" || why+=("stderr differs")
    if [ ! -s "$rep" ]; then
      why+=("no report")
    elif ! python3 "$here/check.py" "$prog" "$rep" >"$tmp/check.out" 2>&1; then
      why+=("wrong figures")
    fi
    if [ ${#why[@]} -eq 0 ]; then
      echo "ok   $name ($mode)"
      passed=$((passed + 1))
    else
      echo "FAIL $name ($mode): ${why[*]}"
      [ -s "$tmp/check.out" ] && sed 's/^/  /' "$tmp/check.out"
      excerpt "$tmp/prof.err" 10
      failed=$((failed + 1))
    fi
    rm -f -- "$tmp/check.out"
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
