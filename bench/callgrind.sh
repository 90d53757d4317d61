#!/usr/bin/env bash
# callgrind.sh -- instruction counts (callgrind), which do not depend on how
# busy the machine is: per Lua call on fib and per coroutine switch on a
# coroutine.wrap/yield loop, in the modes of bench_host.
#
#   bench/callgrind.sh [--build DIR] [--modes "plain floor full hook"]
#
# Per call: (Ir of fib.lua 25 - Ir of fib.lua 2) / the calls fib.lua 25
# makes beyond fib.lua 2 (fib(23), fib(24), fib(25): 485,569 calls),
# which takes out start-up, loading and the runtime's calibration (each
# count the median of three runs: the calibration's rounds vary).  Per switch: (Ir of switch.lua
# 100000 - Ir of switch.lua 50000) / 50000: one value passed, a resume and
# a yield.  Prints the table and issue 13's
# targets (full <= 780 per call; full <= hook per switch), met or missed:
# never an error (a run that fails is one).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$top/build}
modes="plain floor full hook"
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "callgrind.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
host=$build/bin/bench_host
[[ -x $host ]] || { echo "callgrind.sh: $host not found (build first, or --build DIR)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not installed" >&2; exit 2; }
if [[ -n ${LI_SANITIZER:-} ]]; then     # (ctest in a sanitizer build)
  echo "callgrind.sh: skipped: valgrind cannot run a program built with -fsanitize=$LI_SANITIZER"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-callgrind.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Ir MODE SCRIPT ARG: the instructions callgrind counted, the median of
# three runs (the runtime's calibration takes a few rounds more or less
# from run to run: up to ten instructions a call in a difference).
ir() {
  local i
  for i in 1 2 3; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
      "$host" "$1" "$2" "$3" >"$tmp/stdout" 2>"$tmp/stderr" ||
      { cat "$tmp/stderr" >&2; echo "callgrind.sh: $1 $2 $3 failed" >&2; exit 1; }
    sed -n 's/^summary: //p' "$tmp/out"
  done | sort -n | sed -n 2p
}

fib=$top/bench/programs/fib.lua
sw=$here/callgrind/switch.lua
printf '%-8s %14s %14s\n' mode "Ir/fib call" "Ir/switch"
declare -A call switch
for m in $modes; do
  a=$(ir "$m" "$fib" 2); b=$(ir "$m" "$fib" 25)
  c=$(ir "$m" "$sw" 50000); d=$(ir "$m" "$sw" 100000)
  call[$m]=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", (b - a) / 485569 }')
  switch[$m]=$(awk -v c="$c" -v d="$d" 'BEGIN { printf "%.1f", (d - c) / 50000 }')
  printf '%-8s %14s %14s\n' "$m" "${call[$m]}" "${switch[$m]}"
done
if [[ -n ${call[full]:-} ]]; then
  echo "Targets (issue 13)"
  awk -v f="${call[full]}" 'BEGIN { printf "  full <= 780 instructions per fib call: %s (%s)\n", (f <= 780 ? "MET" : "MISSED"), f }'
  if [[ -n ${switch[hook]:-} ]]; then
    awk -v f="${switch[full]}" -v h="${switch[hook]}" 'BEGIN { printf "  full <= hook per coroutine switch:     %s (%s against %s)\n", (f <= h ? "MET" : "MISSED"), f, h }'
  fi
fi
