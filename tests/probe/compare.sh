#!/usr/bin/env bash
# compare.sh -- the probe's variants (option "probe", runtime/profiler.c)
# give the same call tree: every program of DIR (the behaviour programs of
# any Lua, or deep/) run under luaprof (luaprof5.N for Lua 5.N) with
# LUAINSTR_PROBE=fast, direct and api must give reports whose trees (every
# calling path, its calls and its errors: tree.py) are identical.  (On
# LuaJIT the build's default is ffi, the FFI probe: ffi and api compared.)
#
#   compare.sh LUAPROF_BIN [DIR] [KINDS]
#     DIR    folder of *.lua programs (default tests/behaviour/lua54)
#     KINDS  variants to compare with fast (default "direct api"; or
#            "direct;api", a CMake list; a build without Lua's headers
#            has api only, and says so)
#
# A program P.lua with a file P.calls beside it must also give, under
# fast, the calls and errors that file lists: one line per function,
# "SOURCE:LINE:NAME<TAB>CALLS<TAB>ERRORS" (as tree.py names it), summed over
# the function's nodes.  And the comparison must compare something: at least
# one program must have functions other than main chunks probed (a loader
# that leaves every function without probes makes every tree agree).
#
# A program whose tree differs between two runs of the same variant (its
# garbage collector runs finalizers at other moments, or it reads the
# clock) is not compared, and is listed as such; so is one whose report is
# over 32 MB (recursion.lua: 1.3 million nodes, 370 MB of JSON, whose
# reading takes longer than the rest together).  The reference runs a
# second time only when its first tree is found wrong: a variant's differs
# from it, or it fails P.calls; a program whose reference agrees with every
# variant and with P.calls is compared and the same whatever a second run
# of the reference would give.  Each program runs as
# tests/behaviour/run_luaprof.sh runs it: in a copy of itself and its
# modules, with the arguments of P.args, stdin from /dev/null.  Exits 1 if
# any tree differs, a report is missing, a P.calls is not met, nothing was
# probed, or direct is to be compared and the build's default probe is not
# fast; 2 on a usage error.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LUAPROF_BIN [DIR] [KINDS]" >&2; exit 2; }
prof=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=${2:-$here/../behaviour/lua54}
kinds=${3:-direct api}
kinds=${kinds//;/ }     # (a CMake list, as tests/CMakeLists.txt passes it)
for k in $kinds; do
  case $k in api|direct|fast|ffi) ;;
    *) echo "compare.sh: no probe '$k' (api, direct, fast, ffi)" >&2; exit 2 ;;
  esac
done
[ -x "$prof" ] || { echo "compare.sh: no luaprof at $1" >&2; exit 2; }
dir=$(cd "$dir" && pwd) || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-probe-cmp.XXXXXX")
# One python3 (tree.py --serve) reads every report: its start, 0.1 to
# 0.7 s, costs more than most of the runs it reads.
# (Bash unsets TREE when the coprocess ends: its numbers are kept.)
coproc TREE { exec python3 "$here/tree.py" --serve; }
tree_in=${TREE[1]} tree_out=${TREE[0]} tree_pid=$TREE_PID
trap 'eval "exec $tree_in>&-"; wait "$tree_pid"; rm -rf "$tmp"' EXIT
unset LUA_INIT LUA_PATH LUA_CPATH
for v in 5_2 5_3 5_4; do unset LUA_INIT_$v LUA_PATH_$v LUA_CPATH_$v; done
unset LUAINSTR_PROBE

# The build's default must be fast, unless it has no direct path at all:
# asked to compare direct, a build whose default is not fast fails (its
# direct path failed its check at start, or was not built).
printf 'local x = 1\n' >"$tmp/probe.lua"
"$prof" -f json -o "$tmp/probe.json" "$tmp/probe.lua" || exit 1

# tree REPORT OUT: OUT gets REPORT's tree lines (none if it is not a
# profile, said on stderr); $probe the probe it names, or "error"
tree() {
  printf '%s\t%s\n' "$1" "$2" >&"$tree_in" &&
  IFS= read -r probe <&"$tree_out" || { echo "compare.sh: tree.py failed" >&2; exit 2; }
}
tree "$tmp/probe.json" "$tmp/probe.tree"
default=$probe
[ "$default" = error ] && default=""
ref=fast
if [ "$default" = ffi ]; then
  ref=ffi           # LuaJIT with its JIT: the FFI probe is the one compared
elif [ "$default" != fast ]; then
  case " $kinds " in
    *" direct "*)
      echo "FAIL  this build's probe is '$default', not fast: its direct path is off or failed its check"
      exit 1 ;;
  esac
  echo "compare.sh: this build's probe is '$default' (built without Lua's headers?): only api is compared"
  kinds=""
fi

# run KIND PROGRAM OUT: the tree of one run
run() {
  local kind=$1 prog=$2 out=$3 name work args=() mods
  name=$(basename "$prog")
  work=$tmp/w.$kind
  rm -rf "$work"; mkdir -p "$work"
  mods=("$dir"/modules/*.lua)
  [ -e "${mods[0]}" ] && cp -- "${mods[@]}" "$work/"
  cp -- "$prog" "$work/$name"
  if [ -f "${prog%.lua}.args" ]; then mapfile -t args <"${prog%.lua}.args"; fi
  (cd "$work" && LUAINSTR_PROBE=$kind timeout 60 "$prof" -f json -o "$tmp/r.json" \
     "$name" "${args[@]}" </dev/null >/dev/null 2>&1)
  if [ ! -s "$tmp/r.json" ]; then echo "no report" >"$out"; return 1; fi
  if [ "$(stat -c %s "$tmp/r.json")" -gt $((32 << 20)) ]; then
    echo "large" >"$out"; rm -f "$tmp/r.json"; return 0
  fi
  tree "$tmp/r.json" "$out"
  rm -f "$tmp/r.json"
}

# calls_ok TREE EXPECTED: the calls and errors of EXPECTED found in TREE
calls_ok() {
  awk -F'\t' 'NR == FNR { split($4, a, " "); c[$3] += a[2]; e[$3] += a[4]; next }
    { if (c[$1] + 0 != $2 || e[$1] + 0 != $3) {
        printf "      %s: %d calls %d errors, expected %s calls %s errors\n", \
               $1, c[$1], e[$1], $2, $3; bad = 1 } }
    END { exit bad }' "$1" "$2"
}

# ref_stable: $prog's reference gives the same tree on a second run (run
# once a program, when first asked: ref2 0); if not (ref2 2), it is skipped
ref_stable() {
  if [ $ref2 = 0 ]; then
    run "$ref" "$prog" "$tmp/fast2"
    if cmp -s "$tmp/fast1" "$tmp/fast2"; then ref2=1; else ref2=2; fi
  fi
  [ $ref2 = 1 ]
}

same=0 differ=0 unstable=0 probed=0
for prog in "$dir"/*.lua; do
  base=$(basename "$prog" .lua)
  run "$ref" "$prog" "$tmp/fast1" || { echo "FAIL  $base: no report ($ref)"; differ=$((differ + 1)); continue; }
  if [ "$(cat "$tmp/fast1")" = large ]; then
    echo "skip  $base: its report is over 32 MB"
    unstable=$((unstable + 1))
    continue
  fi
  ok=1 ref2=0
  if [ -f "${prog%.lua}.calls" ] && ! calls_ok "$tmp/fast1" "${prog%.lua}.calls" >"$tmp/calls"; then
    if ref_stable; then
      echo "FAIL  $base: calls differ from $(basename "${prog%.lua}.calls"):"
      cat "$tmp/calls"
      ok=0
    fi
  fi
  for k in $kinds; do
    [ $ref2 = 2 ] && break
    run "$k" "$prog" "$tmp/$k"
    # (A difference: first, the reference must agree with itself.)
    if ! cmp -s "$tmp/fast1" "$tmp/$k" && ! ref_stable; then break; fi
    # A variant whose tree matches on a second run differs from itself
    # between runs: not comparable, as above, and said.  (Seen on Lua 5.1's
    # coro_depth51: one call of `w` now and then uncounted near the C-call
    # limit, under any variant; not understood yet.)
    if ! cmp -s "$tmp/fast1" "$tmp/$k"; then
      run "$k" "$prog" "$tmp/$k.again"
      if cmp -s "$tmp/fast1" "$tmp/$k.again"; then
        echo "skip  $base: its tree under $k differs between two runs:"
        diff "$tmp/$k" "$tmp/$k.again" | head -6
        unstable=$((unstable + 1))
        ok=2
        break
      fi
    fi
    if ! cmp -s "$tmp/fast1" "$tmp/$k"; then
      echo "FAIL  $base: $k differs from $ref:"
      diff "$tmp/fast1" "$tmp/$k" | head -20
      ok=0
    fi
  done
  if [ $ref2 = 2 ]; then
    echo "skip  $base: its tree differs between two runs of the same variant"
    unstable=$((unstable + 1))
    continue
  fi
  probed=$((probed + $(awk -F'\t' '$3 !~ /:main chunk$/' "$tmp/fast1" | wc -l)))
  if [ $ok = 1 ]; then same=$((same + 1)); elif [ $ok = 0 ]; then differ=$((differ + 1)); fi
done
echo "$same programs with the same tree under $ref${kinds:+ and }${kinds// / and }, $differ differing, $unstable not comparable; $probed nodes of functions other than main chunks"
if [ $probed -eq 0 ]; then
  echo "FAIL  no function other than main chunks was probed: nothing was compared"
  exit 1
fi
[ $differ -eq 0 ] && [ $same -gt 0 ]
