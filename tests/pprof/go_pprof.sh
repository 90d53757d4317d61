#!/usr/bin/env bash
# go_pprof.sh -- the pprof report read by its real consumer, `go tool pprof`
# (Debian's golang-go): tests/pprof/calls.lua and samples/hello.lua are
# profiled by pprof_host, which writes csv, json, folded-calls and pprof
# from one snapshot, and check_pprof.py compares what -raw, -top and
# -traces show with those (normal and memory mode).  Then luaprof -f
# pprof, the command users run: its file reads, and its call counts equal
# those of a -f csv run of the same program (counts do not depend on the
# machine's speed; times do).
#
# usage: go_pprof.sh BUILD_DIR SOURCE_DIR
# Without go: a skip (exit 77), a failure under CI=1.
set -u
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
src=$(cd "$2" && pwd) || exit 2
here=$src/tests/pprof
for tool in go python3; do
  if ! command -v "$tool" >/dev/null; then
    if [ -n "${CI:-}" ]; then echo "FAIL  no $tool (scripts/deps.sh installs golang-go)"; exit 1; fi
    echo "skip  no $tool (Debian's golang-go: scripts/deps.sh)"; exit 77
  fi
done
export LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-pprof.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT
# go keeps a build cache even for `go tool`; a HOME-less ctest has none
export GOCACHE=$tmp/gocache HOME=${HOME:-$tmp}
failed=0

for prog in "$here/calls.lua" "$src/samples/hello.lua"; do
  for mode in "" --memory; do
    name=$(basename "$prog" .lua)${mode:+-memory}
    echo "== $name"
    if ! "$build/bin/pprof_host" $mode "$prog" "$tmp/$name" > /dev/null 2> "$tmp/err"; then
      echo "FAIL  pprof_host $mode $prog"; cat "$tmp/err"; failed=1; continue
    fi
    python3 "$here/check_pprof.py" $mode "$tmp/$name" || failed=1
  done
done

echo "== luaprof -f pprof"
lp=$build/bin/luaprof
if "$lp" -f pprof -o "$tmp/lp.pb.gz" "$here/calls.lua" &&
   "$lp" -f csv -o "$tmp/lp.csv" "$here/calls.lua"; then
  got=$(go tool pprof -top -nodefraction=0 -nodecount=1000 -sample_index=calls "$tmp/lp.pb.gz" 2> "$tmp/err" |
        awk '/^ +[0-9]+ / && $1 > 0 { $2 = $3 = $4 = $5 = ""; print }' | sed 's/  */ /g' | sort)
  want=$(python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    line = ":" + r["line"] if r["line"] not in ("", "0") else ""
    print(r["calls"], "%s (%s%s)" % (r["name"], r["source"], line))' "$tmp/lp.csv" | sort)
  if [ -n "$got" ] && [ "$got" = "$want" ] && [ ! -s "$tmp/err" ]; then
    echo "pass  luaprof -f pprof: calls of $(echo "$want" | wc -l) functions = luaprof -f csv"
  else
    echo "FAIL  luaprof -f pprof calls"; diff <(echo "$want") <(echo "$got"); cat "$tmp/err"; failed=1
  fi
  # gzip, as every pprof consumer expects
  if gzip -t "$tmp/lp.pb.gz"; then echo "pass  luaprof -f pprof: gzip -t"
  else echo "FAIL  luaprof -f pprof: not gzip"; failed=1; fi
else
  echo "FAIL  luaprof -f pprof / -f csv"; failed=1
fi
exit $failed
