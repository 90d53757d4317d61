#!/usr/bin/env bash
# Behaviour under luaprof: every program P.lua of each DIR must behave
# exactly the same (stdout, stderr, exit status) under `INTERP P.lua` and
# under `LUAPROF -o REPORT P.lua`, and REPORT must be a non-empty file.
# LUAPROF is built for INTERP's Lua (luaprof5.1 for lua5.1 ...): a program
# that Lua version cannot compile must fail the same way under both.
#
# usage: run_luaprof.sh LUAPROF_BIN [INTERP] [DIR...]
#   INTERP   reference interpreter                (default lua5.4)
#   DIR      folders of *.lua programs            (default lua54/ here)
#
# For each P.lua, two copies of P.lua and DIR/modules/*.lua (untouched:
# luaprof instruments them as they load) are run as
# `cd <copy> && CMD P.lua [ARGS] < /dev/null` (ARGS: lines of DIR/P.args,
# if that file exists).  The report goes outside the copy, so that programs
# that look at their directory see the same files.
#
# Environment:
#   LI_NO_REPORT=1  do not require the report (while the runtime is a stub)
#   LI_TIMEOUT=S    seconds per program run (default 60)
#   LI_ONLY=GLOB    run only the programs whose file name matches GLOB
#   LI_KEEP=1       keep the temporary directory (its path is printed)
#   LI_LUAPROF_FLAGS  more luaprof options, split at spaces (--memory)
#   LI_LUA_FLAGS    interpreter options for both sides, before P.lua (and
#                   after luaprof's own options), split at spaces: -joff
#   LI_MODULE_DIR=D the module instead of luaprof: `INTERP -l luainstr.run
#                   P.lua` (LUAINSTR_OUT=REPORT), luainstr.so found in D;
#                   both sides run with LUA_CPATH="D/?.so;./?.so" (so that
#                   package.cpath is the same), LUAPROF_BIN is not run
#   LI_JIT_WRAPPERS=1  (LuaJIT) two known differences of the profiled
#                   side's pcall, xpcall and coroutine functions are not
#                   compared (docs/luajit.md "Limits", runtime/boundary.c):
#                   pcall and xpcall are Lua functions around LuaJIT's own
#                   there, so a traceback taken inside one shows the
#                   original's line, "[C]: in function 'pcall'", and
#                   below it the wrapper's, named as the program called it
#                   (stock LuaJIT shows one line, so named): in the
#                   profiled output the first of the two is left out; and
#                   coroutine.resume, yield, wrap and wrap's functions are
#                   C functions, so where a traceback cannot name one it
#                   shows "[C]: at 0x..." where LuaJIT shows its built-in
#                   number, "[builtin#36]: at 0x...": those numbers read
#                   as "[C]" on the reference side
#
# LuaJIT's tracebacks end in "[C]: at 0xADDRESS" (its main C function),
# which differs from run to run and between the two commands, and name
# other unnamed functions so too ("[builtin#36]: at 0xADDRESS"): the
# address is not compared.
# Programs that look at arg[-1] and below see the interpreter's options,
# which differ between the two commands (`-l luainstr.run`): the programs
# here print only arg[0] and above.  Under the module, the script runs
# inside `require`: a traceback the program prints itself ends with
# require and lua.c's main function below the main chunk, so in that mode
# the lines of tracebacks naming an unnamed C function or require are left
# out of the comparison (the module takes them out of its own message).
# It also runs two C levels deeper: programs that reach the C-call limit
# are listed in DIR/NOT_UNDER_MODULE (one name a line, # comments) and
# skipped in that mode.
#
# A program listed in DIR/KNOWN_DIFF (one name a line, then `#` and why)
# behaves differently today under the runtime, for a reason that file
# gives: it must differ (it is run and compared), and the runner fails when
# it no longer does, so the list never goes stale.
#
# Prints one line per program and finally `N passed, N failed`; exits 1 if
# any program failed, 2 on a usage error.
set -u
set -o pipefail

usage() {
  echo "usage: $0 LUAPROF_BIN [INTERP] [DIR]" >&2
  exit 2
}

[ $# -ge 1 ] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
prof=$1
interp=${2:-lua5.4}
shift $(($# >= 2 ? 2 : 1))
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=("$here/lua54")
tmo=${LI_TIMEOUT:-60}
only=${LI_ONLY:-*}
need_report=1
[ "${LI_NO_REPORT:-0}" = 1 ] && need_report=0

. "$here/common.sh"

module_dir=${LI_MODULE_DIR:-}
if [ -n "$module_dir" ]; then
  module_dir=$(cd "$module_dir" && pwd) || exit 2
  if [ ! -f "$module_dir/luainstr.so" ]; then
    echo "run_luaprof.sh: no luainstr.so in $module_dir" >&2
    exit 2
  fi
  what="$(basename "$interp") -l luainstr.run"
else
  prof=$(abspath "$prof") || exit 2
  need_command run_luaprof.sh "luaprof binary" "$prof"
  what=luaprof
fi
interp=$(abspath "$interp") || exit 2
need_command run_luaprof.sh interpreter "$interp"
for i in "${!dirs[@]}"; do
  if [ ! -d "${dirs[$i]}" ]; then
    echo "run_luaprof.sh: no such directory: ${dirs[$i]}" >&2
    exit 2
  fi
  dirs[$i]=$(cd "${dirs[$i]}" && pwd)
done

clean_lua_env
[ -n "$module_dir" ] && export LUA_CPATH="$module_dir/?.so;./?.so"
jit_wrappers=${LI_JIT_WRAPPERS:-0}
if [ "$jit_wrappers" = 1 ]; then
  # the built-in numbers of the functions replaced by C functions
  builtins=$("$interp" -e 'local t = {}
    for _, f in ipairs{coroutine.resume, coroutine.yield, coroutine.wrap,
                       coroutine.wrap(print)} do
      t[#t + 1] = tostring(f):match("builtin#(%d+)")
    end
    io.write(table.concat(t, "|"))' </dev/null) || exit 2
fi
setup_run run_luaprof.sh li-luaprof-beh
ref_label=$(basename "$interp")


passed=0
failed=0
shopt -s nullglob
programs=()
for dir in "${dirs[@]}"; do
  found=("$dir"/*.lua)
  if [ ${#found[@]} -eq 0 ]; then
    echo "run_luaprof.sh: no *.lua programs in $dir" >&2
  fi
  programs+=(${found[@]+"${found[@]}"})
done

# not_under_module DIR NAME: is NAME listed in DIR/NOT_UNDER_MODULE?
not_under_module() {
  [ -f "$1/NOT_UNDER_MODULE" ] || return 1
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    line=${line//[[:space:]]/}
    [ "$line" = "$2" ] && return 0
  done <"$1/NOT_UNDER_MODULE"
  return 1
}

# known_diff DIR NAME: is NAME listed in DIR/KNOWN_DIFF?
known_diff() {
  [ -f "$1/KNOWN_DIFF" ] || return 1
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    line=${line//[[:space:]]/}
    [ "$line" = "$2" ] && return 0
  done <"$1/KNOWN_DIFF"
  return 1
}

skipped=0
known=0
for prog in "${programs[@]}"; do
  name=$(basename "$prog")
  # shellcheck disable=SC2053
  [[ $name == $only ]] || continue
  dir=$(dirname "$prog")
  if [ -n "$module_dir" ] && not_under_module "$dir" "$name"; then
    echo "skip $name (NOT_UNDER_MODULE)"
    skipped=$((skipped + 1))
    continue
  fi
  base=${name%.lua}
  shown=$name
  [ ${#dirs[@]} -gt 1 ] && shown=$(basename "$dir")/$name
  work=$tmp/$(basename "$dir")_$base
  out=$work/out
  mkdir -p "$work/ref" "$work/prof" "$out"
  for side in ref prof; do
    for m in "$dir"/modules/*.lua; do cp -- "$m" "$work/$side/"; done
    cp -- "$prog" "$work/$side/$name"
  done

  args=()
  if [ -f "$dir/$base.args" ]; then
    while IFS= read -r a || [ -n "$a" ]; do args+=("$a"); done <"$dir/$base.args"
  fi

  report=$out/report.txt
  for side in ref prof; do
    # shellcheck disable=SC2206
    if [ $side = ref ]; then cmd=("$interp" ${LI_LUA_FLAGS:-})
    elif [ -n "$module_dir" ]; then
      cmd=(env LUAINSTR_OUT="$report" "$interp" ${LI_LUA_FLAGS:-} -l luainstr.run)
    else cmd=("$prof" ${LI_LUAPROF_FLAGS:-} -o "$report" ${LI_LUA_FLAGS:-}); fi
    (
      cd "$work/$side" || exit 125
      "${run_timeout[@]}" "${cmd[@]}" "$name" ${args[@]+"${args[@]}"} \
        </dev/null >"$out/$side.stdout" 2>"$out/$side.stderr"
      echo $? >"$out/$side.status"
    )
  done

  why=()
  if ! cmp -s "$out/ref.status" "$out/prof.status"; then
    why+=("exit status $(cat "$out/ref.status") vs $(cat "$out/prof.status")")
  fi
  if [ "$(cat "$out/ref.status")" = 124 ]; then
    why+=("original timed out")
  fi
  for s in stdout stderr; do
    for side in ref prof; do
      sed -E 's/(\[C\]|\[builtin#[0-9]+\]): at 0x[0-9a-fA-F]+/\1: at 0x?/g' \
        "$out/$side.$s" >"$out/$side.$s.cmp"
      if [ "$side" = ref ] && [ "$jit_wrappers" = 1 ]; then
        sed -E -i "s/\[builtin#($builtins)\]: at 0x\?/[C]: at 0x?/g" "$out/$side.$s.cmp"
      fi
      if [ -n "$module_dir" ]; then
        sed -E -i "/^$(printf '\t')\[C\]: (\?|in \?|at 0x\?|in function '(_G\.)?require')\r?\$/d" \
          "$out/$side.$s.cmp"
      fi
      if [ "$side" = prof ] && [ "$jit_wrappers" = 1 ]; then
        awk -f "$here/../jit_wrappers.awk" "$out/$side.$s.cmp" >"$out/$side.$s.cmp2" &&
          mv -f -- "$out/$side.$s.cmp2" "$out/$side.$s.cmp"
      fi
    done
    cmp -s "$out/ref.$s.cmp" "$out/prof.$s.cmp" || why+=("$s differs")
  done
  if [ "$need_report" = 1 ] && [ ! -s "$report" ]; then
    why+=("no report written")
  fi

  if known_diff "$dir" "$name"; then
    if [ ${#why[@]} -eq 0 ] || [ "${why[*]}" = "no report written" ]; then
      echo "FAIL $shown: listed in KNOWN_DIFF but runs as under $ref_label now: take it out"
      failed=$((failed + 1))
    else
      reason=$(IFS=';'; echo "${why[*]}")
      echo "known $shown: ${reason//;/; } (KNOWN_DIFF)"
      known=$((known + 1))
    fi
  elif [ ${#why[@]} -eq 0 ]; then
    echo "ok   $shown"
    passed=$((passed + 1))
  else
    reason=$(IFS=';'; echo "${why[*]}")
    echo "FAIL $shown: ${reason//;/; }"
    for s in stdout stderr; do
      if ! cmp -s "$out/ref.$s.cmp" "$out/prof.$s.cmp"; then
        echo "  --- $s ($ref_label vs $what)"
        diff -u --label "$ref_label" --label "$what" -a \
          "$out/ref.$s.cmp" "$out/prof.$s.cmp" >"$out/$s.diff"
        excerpt "$out/$s.diff" 30
      fi
    done
    failed=$((failed + 1))
  fi
done

echo "$passed passed, $failed failed$([ $skipped -gt 0 ] && echo ", $skipped skipped")$([ $known -gt 0 ] && echo ", $known known to differ")"
[ "$failed" -eq 0 ]
