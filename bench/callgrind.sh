#!/usr/bin/env bash
# callgrind.sh -- instruction counts (callgrind), which do not depend on how
# busy the machine is: per Lua call on fib and per coroutine switch on a
# coroutine.wrap/yield loop, in the modes of bench_host, for each Lua the
# runtime is built for (bench_host for 5.4, bench_host5.N for Lua 5.N).
#
#   bench/callgrind.sh [--build DIR] [--modes "plain floor full hook"]
#                      [--lua "5.4 5.3 5.2 5.1"]
#
# Modes: those of bench_host (plain, floor, full, hook ...), and direct and
# api: full with LUAINSTR_PROBE=direct or api (the probe's variants; full
# is fast where the build has that Lua's headers).  On LuaJIT ("jit",
# bench_hostjit) a mode runs with the JIT on; MODE/off runs it with the JIT
# off before the load (as luajit -joff: the chunk gets the probe for the
# interpreter), MODE/offrun with the JIT off after the load (the chunk
# keeps the probe chosen with the JIT on; the interpreter runs it).
# Valgrind runs LuaJIT's machine code (its default --smc-check=all-non-file
# sees the traces written): the JIT-on counts are those of the traces.
# --lua: the versions (default: every one whose bench_host is built).
# Default modes: plain floor full hook; for jit plain full hook plain/off
# full/off full/offrun hook/off.
# Per call: (Ir of fib.lua 25 - Ir of fib.lua 2) / the calls fib.lua 25
# makes beyond fib.lua 2 (fib(23), fib(24), fib(25): 485,569 calls),
# which takes out start-up, loading and the runtime's calibration (each
# count the median of three runs: the calibration's rounds vary).  Per switch: (Ir of switch.lua
# 100000 - Ir of switch.lua 50000) / 50000: one value passed, a resume and
# a yield.  Prints a table per Lua and, for 5.4, issue 13's
# targets (full <= 780 per call; full <= hook per switch), met or missed;
# for jit, issue 20's per-call figures (its targets are in wall time:
# bench/run.sh --lua jit): never an error (a run that fails is one).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$top/build}
modes=
luas=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --lua) luas=$2; shift 2 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "callgrind.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
# host_of V: the bench_host of Lua V
host_of() {
  if [[ $1 == 5.4 ]]; then echo "$build/bin/bench_host"; else echo "$build/bin/bench_host$1"; fi
}
if [[ -z $luas ]]; then
  for v in 5.4 5.3 5.2 5.1 jit; do [[ -x $(host_of $v) ]] && luas+="${luas:+ }$v"; done
fi
for v in $luas; do
  [[ -x $(host_of "$v") ]] || { echo "callgrind.sh: $(host_of "$v") not found (build first, or --build DIR)" >&2; exit 2; }
done
[[ -n $luas ]] || { echo "callgrind.sh: no bench_host in $build/bin (build first, or --build DIR)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not installed" >&2; exit 2; }
if [[ -n ${LI_SANITIZER:-} ]]; then     # (ctest in a sanitizer build)
  echo "callgrind.sh: skipped: valgrind cannot run a program built with -fsanitize=$LI_SANITIZER"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-callgrind.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

unset LUAINSTR_PROBE

# Ir MODE SCRIPT ARG: the instructions callgrind counted running $host, the
# median of three runs (the runtime's calibration takes a few rounds more
# or less from run to run: up to ten instructions a call in a difference).
ir() {
  local i mode=$1 envs=()
  case $mode in */off|*/offrun) envs+=(BENCH_JIT="${mode#*/}"); mode=${mode%/*} ;; esac
  case $mode in direct|api) envs+=(LUAINSTR_PROBE="$mode"); mode=full ;; esac
  for i in 1 2 3; do
    env "${envs[@]}" valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
      "$host" "$mode" "$2" "$3" >"$tmp/stdout" 2>"$tmp/stderr" ||
      { cat "$tmp/stderr" >&2; echo "callgrind.sh: $host $1 $2 $3 failed" >&2; exit 1; }
    sed -n 's/^summary: //p' "$tmp/out"
  done | sort -n | sed -n 2p
}

fib=$top/bench/programs/fib.lua
sw=$here/callgrind/switch.lua
first=1
for v in $luas; do
  host=$(host_of "$v")
  [[ $first == 1 ]] || echo
  first=0
  echo "Lua $v ($(basename "$host"))"
  printf '%-11s %14s %14s\n' mode "Ir/fib call" "Ir/switch"
  declare -A call=() switch=()
  vmodes=$modes
  if [[ -z $vmodes && $v == jit ]]; then vmodes="plain full hook plain/off full/off full/offrun hook/off"
  elif [[ -z $vmodes ]]; then vmodes="plain floor full hook"; fi
  for m in $vmodes; do
    a=$(ir "$m" "$fib" 2); b=$(ir "$m" "$fib" 25)
    c=$(ir "$m" "$sw" 50000); d=$(ir "$m" "$sw" 100000)
    call[$m]=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", (b - a) / 485569 }')
    switch[$m]=$(awk -v c="$c" -v d="$d" 'BEGIN { printf "%.1f", (d - c) / 50000 }')
    printf '%-11s %14s %14s\n' "$m" "${call[$m]}" "${switch[$m]}"
  done
  if [[ $v == 5.4 && -n ${call[full]:-} ]]; then
    echo "Targets (issue 13)"
    awk -v f="${call[full]}" 'BEGIN { printf "  full <= 780 instructions per fib call: %s (%s)\n", (f <= 780 ? "MET" : "MISSED"), f }'
    if [[ -n ${switch[hook]:-} ]]; then
      awk -v f="${switch[full]}" -v h="${switch[hook]}" 'BEGIN { printf "  full <= hook per coroutine switch:     %s (%s against %s)\n", (f <= h ? "MET" : "MISSED"), f, h }'
    fi
  fi
  if [[ $v == jit ]]; then
    # per fib call, what the profiler adds to the same Lua: the JIT on; the
    # JIT off with the interpreter's probe; the JIT off with the JIT's
    # probe (a chunk loaded with the JIT on that runs where it cannot be
    # compiled)
    echo "Per fib call (issue 20; its targets are wall time, bench/run.sh --lua jit)"
    for pair in "full plain JIT on" "full/off plain/off JIT off at the load" \
                "full/offrun plain/off JIT off after the load" \
                "hook plain hook, JIT on" "hook/off plain/off hook, JIT off"; do
      read -r a b what <<< "$pair"
      [[ -n ${call[$a]:-} && -n ${call[$b]:-} ]] || continue
      awk -v a="${call[$a]}" -v b="${call[$b]}" -v m="$a - $b" -v w="$what" \
        'BEGIN { printf "  %-26s %-22s %7.1f instructions (%.1fx)\n", w ":", m, a - b, a / b }'
    done
  fi
  unset call switch
done
