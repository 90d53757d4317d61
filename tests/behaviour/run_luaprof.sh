#!/usr/bin/env bash
# Behaviour under luaprof: every program P.lua of DIR must behave exactly the
# same (stdout, stderr, exit status) under `INTERP P.lua` and under
# `LUAPROF -o REPORT P.lua`, and REPORT must be a non-empty file.
#
# usage: run_luaprof.sh LUAPROF_BIN [INTERP] [DIR]
#   INTERP   reference interpreter                (default lua5.4)
#   DIR      folder of *.lua programs              (default lua54/ here)
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
#
# Prints one line per program and finally `N passed, N failed`; exits 1 if
# any program failed, 2 on a usage error.
set -u
set -o pipefail

usage() {
  echo "usage: $0 LUAPROF_BIN [INTERP] [DIR]" >&2
  exit 2
}

[ $# -ge 1 ] && [ $# -le 3 ] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
prof=$1
interp=${2:-lua5.4}
dir=${3:-$here/lua54}
tmo=${LI_TIMEOUT:-60}
only=${LI_ONLY:-*}
need_report=1
[ "${LI_NO_REPORT:-0}" = 1 ] && need_report=0

. "$here/common.sh"

prof=$(abspath "$prof") || exit 2
need_command run_luaprof.sh "luaprof binary" "$prof"
interp=$(abspath "$interp") || exit 2
need_command run_luaprof.sh interpreter "$interp"
if [ ! -d "$dir" ]; then
  echo "run_luaprof.sh: no such directory: $dir" >&2
  exit 2
fi
dir=$(cd "$dir" && pwd)

clean_lua_env
setup_run run_luaprof.sh li-luaprof-beh


passed=0
failed=0
shopt -s nullglob
programs=("$dir"/*.lua)
if [ ${#programs[@]} -eq 0 ]; then
  echo "run_luaprof.sh: no *.lua programs in $dir" >&2
fi

for prog in "${programs[@]}"; do
  name=$(basename "$prog")
  # shellcheck disable=SC2053
  [[ $name == $only ]] || continue
  base=${name%.lua}
  work=$tmp/$base
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
    if [ $side = ref ]; then cmd=("$interp")
    else cmd=("$prof" ${LI_LUAPROF_FLAGS:-} -o "$report"); fi
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
  cmp -s "$out/ref.stdout" "$out/prof.stdout" || why+=("stdout differs")
  cmp -s "$out/ref.stderr" "$out/prof.stderr" || why+=("stderr differs")
  if [ "$need_report" = 1 ] && [ ! -s "$report" ]; then
    why+=("no report written")
  fi

  if [ ${#why[@]} -eq 0 ]; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    reason=$(IFS=';'; echo "${why[*]}")
    echo "FAIL $name: ${reason//;/; }"
    for s in stdout stderr; do
      if ! cmp -s "$out/ref.$s" "$out/prof.$s"; then
        echo "  --- $s (lua5.4 vs luaprof)"
        diff -u --label lua5.4 --label luaprof -a \
          "$out/ref.$s" "$out/prof.$s" >"$out/$s.diff"
        excerpt "$out/$s.diff" 30
      fi
    done
    failed=$((failed + 1))
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
