#!/usr/bin/env bash
# floor.sh -- what a probe costs by itself, with no profiler (issue 32):
# bench/phases/floor.lua on the stock interpreters, per Lua.  Small
# functions of the shapes game code is made of, timed plain and with an
# empty C call (a count probe's shape), two (a timed pair's) or a Lua
# table's counter inserted; the table gives what each insert adds a call
# in each shape, and whether one figure taken out of every call could put
# every shape within 0.8-1.25x of its plain time (what a calibrated probe
# cost is).  A benchmark: nothing is judged; it fails only when a copy's
# results differ from the plain one's, or no Lua could run it.
#
#   bench/floor.sh [--rounds R] [--scale S] [--lua "5.4 5.1 jit"] [--busy]
#
#   --rounds R  rounds (default 9): every phase of every copy once a round
#   --scale S   calls a phase, a factor on 600,000 (default 1)
#   --lua L     of 5.4 5.1 jit (default all three): lua5.4, lua5.1, luajit
#               and their -dev packages' headers (pkg-config) for the
#               clock module; a Lua without them is skipped
#   --busy      two busy spinner processes beside it (killed at exit)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rounds=9 scale=1 luas="5.4 5.1 jit" busy=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --lua) luas=$2; shift 2 ;;
    --busy) busy=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "floor.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d)
spinners=()
cleanup() {
  if [[ ${#spinners[@]} -gt 0 ]]; then kill "${spinners[@]}" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
declare -A pc=([5.4]=lua5.4 [5.1]=lua5.1 [jit]=luajit) bin=([5.4]=lua5.4 [5.1]=lua5.1 [jit]=luajit)
if [[ $busy == 1 ]]; then
  for _ in 1 2; do ( while :; do :; done ) & spinners+=($!); done
fi
ran=0
for lua in $luas; do
  [[ -n ${pc[$lua]+x} ]] || { echo "floor.sh: --lua $lua: one of 5.4 5.1 jit" >&2; exit 2; }
  flags=$(pkg-config --cflags "${pc[$lua]}" 2>/dev/null) && command -v "${bin[$lua]}" >/dev/null || {
    echo "floor.sh: Lua $lua skipped: needs ${bin[$lua]} and its -dev package (pkg-config ${pc[$lua]})" >&2
    continue
  }
  # shellcheck disable=SC2086  # (several flags)
  cc -O2 -shared -fPIC $flags -o "$tmp/clock-$lua.so" "$here/phases/clock.c"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)$([[ $busy == 1 ]] && echo ', 2 busy spinners beside')"
  "${bin[$lua]}" "$here/phases/floor.lua" "$tmp/clock-$lua.so" "$rounds" "$scale"
  echo
  ran=$((ran + 1))
done
[[ $ran -gt 0 ]] || { echo "floor.sh: no Lua could run it" >&2; exit 1; }
