#!/usr/bin/env bash
# Behaviour tests: every program P.lua of DIR must behave exactly the same
# (stdout, stderr, exit status) before and after instrumentation.
#
# usage: run.sh LUAINSTR_BIN [INTERP] [VERSION] [DIR]
#   INTERP   Lua interpreter to run the programs with  (default lua5.4)
#   VERSION  dialect passed as `--lua VERSION`          (default 5.4)
#   DIR      folder of *.lua programs                   (default lua54/ here)
#
# For each P.lua: orig/P.lua is a copy, instr/P.lua is
# `LUAINSTR_BIN --lua VERSION -o instr/P.lua orig/P.lua`; both are run as
# `cd <dir> && INTERP P.lua [ARGS] < /dev/null` (ARGS: lines of DIR/P.args,
# if that file exists) and must give identical stdout, stderr and exit
# status.  instr/P.lua must also differ from orig/P.lua unless P.lua is
# listed in DIR/UNCHANGED_OK (one file name per line, # comments allowed),
# and it must have as many line-break characters (\n, \r) as the original.
# DIR/modules/*.lua are copied next to every program (instrumented in instr/).
#
# Environment:
#   LI_IDENTITY=1   use `cp` instead of luainstr (tests this runner; the
#                   "instrumenter did something" check is skipped)
#   LI_TIMEOUT=S    seconds per program run (default 60)
#   LI_ONLY=GLOB    run only the programs whose file name matches GLOB
#   LI_KEEP=1       keep the temporary directory (its path is printed)
#
# Prints one line per program and finally `N passed, N failed`; exits 1 if
# any program failed, 2 on a usage error.
set -u
set -o pipefail

usage() {
  echo "usage: $0 LUAINSTR_BIN [INTERP] [VERSION] [DIR]" >&2
  exit 2
}

[ $# -ge 1 ] && [ $# -le 4 ] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
bin=$1
interp=${2:-lua5.4}
version=${3:-5.4}
dir=${4:-$here/lua54}
identity=${LI_IDENTITY:-0}
tmo=${LI_TIMEOUT:-60}
only=${LI_ONLY:-*}

. "$here/common.sh"

if [ "$identity" != 1 ]; then
  bin=$(abspath "$bin") || exit 2
  need_command run.sh "luainstr binary" "$bin"
fi
interp=$(abspath "$interp") || exit 2
need_command run.sh interpreter "$interp"
if [ ! -d "$dir" ]; then
  echo "run.sh: no such directory: $dir" >&2
  exit 2
fi
dir=$(cd "$dir" && pwd)

clean_lua_env
setup_run run.sh li-behaviour

# instrument SRC DEST: writes the instrumented SRC to DEST; messages to
# DEST.err.  Returns the instrumenter's status.
instrument() {
  if [ "$identity" = 1 ]; then
    cp -- "$1" "$2" 2>"$2.err"
  else
    "${run_timeout[@]}" "$bin" --lua "$version" -o "$2" "$1" \
      </dev/null >"$2.out" 2>"$2.err"
  fi
}

# unchanged_ok NAME: is NAME listed in DIR/UNCHANGED_OK?
unchanged_ok() {
  [ -f "$dir/UNCHANGED_OK" ] || return 1
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    line=${line%$'\r'}
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    [ "$line" = "$1" ] && return 0
  done <"$dir/UNCHANGED_OK"
  return 1
}


passed=0
failed=0

# The helper modules, instrumented once for all programs.
mods_orig=$tmp/modules.orig
mods_instr=$tmp/modules.instr
mkdir -p "$mods_orig" "$mods_instr"
shopt -s nullglob
for m in "$dir"/modules/*.lua; do
  name=$(basename "$m")
  cp -- "$m" "$mods_orig/$name"
  if ! instrument "$mods_orig/$name" "$mods_instr/$name"; then
    echo "FAIL modules/$name: luainstr failed"
    excerpt "$mods_instr/$name.err" 10
    failed=$((failed + 1))
    cp -- "$m" "$mods_instr/$name"   # let the programs run anyway
  fi
  rm -f -- "$mods_instr/$name.err" "$mods_instr/$name.out"
done

programs=("$dir"/*.lua)
if [ ${#programs[@]} -eq 0 ]; then
  echo "run.sh: no *.lua programs in $dir" >&2
fi

for prog in "${programs[@]}"; do
  name=$(basename "$prog")
  # shellcheck disable=SC2053
  [[ $name == $only ]] || continue
  base=${name%.lua}
  work=$tmp/$base
  mkdir -p "$work/orig" "$work/instr" "$work/out"
  for m in "$mods_orig"/*.lua; do cp -- "$m" "$work/orig/"; done
  for m in "$mods_instr"/*.lua; do cp -- "$m" "$work/instr/"; done
  cp -- "$prog" "$work/orig/$name"

  if ! instrument "$work/orig/$name" "$work/instr/$name"; then
    echo "FAIL $name: luainstr failed"
    excerpt "$work/instr/$name.err" 10
    failed=$((failed + 1))
    continue
  fi
  rm -f -- "$work/instr/$name.err" "$work/instr/$name.out"
  if [ ! -f "$work/instr/$name" ]; then
    echo "FAIL $name: luainstr wrote no output file"
    failed=$((failed + 1))
    continue
  fi
  if ! cmp -s -- "$prog" "$work/orig/$name"; then
    echo "FAIL $name: luainstr modified its input file"
    failed=$((failed + 1))
    continue
  fi

  args=()
  if [ -f "$dir/$base.args" ]; then
    while IFS= read -r a || [ -n "$a" ]; do args+=("$a"); done <"$dir/$base.args"
  fi

  for side in orig instr; do
    (
      cd "$work/$side" || exit 125
      "${run_timeout[@]}" "$interp" "$name" ${args[@]+"${args[@]}"} \
        </dev/null >"../out/$side.stdout" 2>"../out/$side.stderr"
      echo $? >"../out/$side.status"
    )
  done

  out=$work/out
  # LuaJIT's tracebacks end in "[C]: at 0xADDRESS", which varies from run
  # to run (ASLR): that address is not compared.
  for side in orig instr; do
    for s in stdout stderr; do
      sed 's/\[C\]: at 0x[0-9a-fA-F]*/[C]: at 0x?/g' "$out/$side.$s" >"$out/$side.$s.n" &&
        mv -f -- "$out/$side.$s.n" "$out/$side.$s"
    done
  done
  why=()
  if ! cmp -s "$out/orig.status" "$out/instr.status"; then
    why+=("exit status $(cat "$out/orig.status") vs $(cat "$out/instr.status")")
  fi
  if [ "$(cat "$out/orig.status")" = 124 ]; then
    why+=("original timed out")
  fi
  cmp -s "$out/orig.stdout" "$out/instr.stdout" || why+=("stdout differs")
  cmp -s "$out/orig.stderr" "$out/instr.stderr" || why+=("stderr differs")
  if [ "$identity" != 1 ] && cmp -s "$work/orig/$name" "$work/instr/$name" \
     && ! unchanged_ok "$name"; then
    why+=("instrumented file is identical to the original")
  fi
  # The rewriter never adds or removes a line break.
  for nl in '\n' '\r'; do
    a=$(tr -cd "$nl" <"$work/orig/$name" | wc -c)
    b=$(tr -cd "$nl" <"$work/instr/$name" | wc -c)
    if [ "$a" -ne "$b" ]; then
      why+=("line breaks changed: $a vs $b '$nl' characters")
    fi
  done

  if [ ${#why[@]} -eq 0 ]; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    reason=$(IFS=';'; echo "${why[*]}")
    echo "FAIL $name: ${reason//;/; }"
    for s in stdout stderr; do
      if ! cmp -s "$out/orig.$s" "$out/instr.$s"; then
        echo "  --- $s (original vs instrumented)"
        diff -u --label original --label instrumented -a \
          "$out/orig.$s" "$out/instr.$s" >"$out/$s.diff"
        excerpt "$out/$s.diff" 30
      fi
    done
    failed=$((failed + 1))
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
