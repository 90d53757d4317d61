#!/usr/bin/env bash
# compare.sh -- the probe's variants (option "probe", runtime/profiler.c)
# give the same call tree: every behaviour program run under luaprof with
# LUAINSTR_PROBE=fast, direct and api must give reports whose trees (every
# calling path, its calls and its errors: tree.py) are identical.
#
#   compare.sh LUAPROF_BIN [DIR] [KINDS]
#     DIR    folder of *.lua programs (default tests/behaviour/lua54)
#     KINDS  variants to compare with fast (default "direct api"; a build
#            without Lua's headers has api only, and says so)
#
# A program whose tree differs between two runs of the same variant (its
# garbage collector runs finalizers at other moments, or it reads the
# clock) is not compared, and is listed as such; so is one whose report is
# over 32 MB (recursion.lua: 1.3 million nodes, 370 MB of JSON, whose
# reading takes longer than the rest together).  Each program runs as
# tests/behaviour/run_luaprof.sh runs it: in a copy of itself and its
# modules, with the arguments of P.args, stdin from /dev/null.  Exits 1 if
# any tree differs or a report is missing, 2 on a usage error.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LUAPROF_BIN [DIR] [KINDS]" >&2; exit 2; }
prof=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=${2:-$here/../behaviour/lua54}
kinds=${3:-direct api}
[ -x "$prof" ] || { echo "compare.sh: no luaprof at $1" >&2; exit 2; }
dir=$(cd "$dir" && pwd) || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-probe-cmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset LUA_INIT LUA_INIT_5_4 LUA_PATH LUA_PATH_5_4 LUA_CPATH LUA_CPATH_5_4

# The build's default must be fast, unless it has no direct path at all.
printf 'local x = 1\n' >"$tmp/probe.lua"
"$prof" -f json -o "$tmp/probe.json" "$tmp/probe.lua" || exit 1
default=$(python3 "$here/tree.py" "$tmp/probe.json" | sed -n 's/^probe\t//p')
if [ "$default" != fast ]; then
  echo "compare.sh: this build's probe is '$default' (built without Lua's headers?): only api is compared"
  kinds=""
fi

# run KIND PROGRAM OUT: the tree of one run
run() {
  local kind=$1 prog=$2 out=$3 name work args=()
  name=$(basename "$prog")
  work=$tmp/w.$kind
  rm -rf "$work"; mkdir -p "$work"
  for m in "$dir"/modules/*.lua; do [ -e "$m" ] && cp -- "$m" "$work/"; done
  cp -- "$prog" "$work/$name"
  if [ -f "${prog%.lua}.args" ]; then mapfile -t args <"${prog%.lua}.args"; fi
  (cd "$work" && LUAINSTR_PROBE=$kind timeout 60 "$prof" -f json -o "$tmp/r.json" \
     "$name" "${args[@]}" </dev/null >/dev/null 2>&1)
  if [ ! -s "$tmp/r.json" ]; then echo "no report" >"$out"; return 1; fi
  if [ "$(stat -c %s "$tmp/r.json")" -gt $((32 << 20)) ]; then
    echo "large" >"$out"; rm -f "$tmp/r.json"; return 0
  fi
  python3 "$here/tree.py" "$tmp/r.json" | grep -v '^probe' >"$out"
  rm -f "$tmp/r.json"
}

same=0 differ=0 unstable=0
for prog in "$dir"/*.lua; do
  base=$(basename "$prog" .lua)
  run fast "$prog" "$tmp/fast1" || { echo "FAIL  $base: no report (fast)"; differ=$((differ + 1)); continue; }
  if [ "$(cat "$tmp/fast1")" = large ]; then
    echo "skip  $base: its report is over 32 MB"
    unstable=$((unstable + 1))
    continue
  fi
  run fast "$prog" "$tmp/fast2"
  if ! cmp -s "$tmp/fast1" "$tmp/fast2"; then
    echo "skip  $base: its tree differs between two runs of the same variant"
    unstable=$((unstable + 1))
    continue
  fi
  ok=1
  for k in $kinds; do
    run "$k" "$prog" "$tmp/$k"
    if ! cmp -s "$tmp/fast1" "$tmp/$k"; then
      echo "FAIL  $base: $k differs from fast:"
      diff "$tmp/fast1" "$tmp/$k" | head -20
      ok=0
    fi
  done
  if [ $ok = 1 ]; then same=$((same + 1)); else differ=$((differ + 1)); fi
done
echo "$same programs with the same tree under fast${kinds:+ and }${kinds// / and }, $differ differing, $unstable not comparable"
[ $differ -eq 0 ] && [ $same -gt 0 ]
