#!/usr/bin/env bash
# probe_split.sh -- where the probe's time goes, natively and in
# WebAssembly: bench_host's plain, floor, full, fullhost and fullcount
# (a "clock" that only counts) on a few programs, every mode of both
# engines alternated in every round; median run time (ms) per mode, and
# per call of user code (ns, calls counted by the hook mode natively).
#
#   bench/wasm/probe_split.sh BUILD BUILD_WASM [ROUNDS [PROGRAM ARGS]...]
#   (default: 5 rounds of "fib 31" and "binary_trees 14")
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$1 wasm=$2 rounds=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
progs=("$@")
[[ ${#progs[@]} -gt 0 ]] || progs=("fib 31" "binary_trees 14")
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
modes=(plain floor full fullhost fullcount)
out=$(mktemp); trap 'rm -f "$out"' EXIT
for ((r = 0; r < rounds; r++)); do
  for pa in "${progs[@]}"; do
    read -r p a <<< "$pa"
    for ((k = 0; k < 2 * ${#modes[@]}; k++)); do
      i=$(( (k + r) % (2 * ${#modes[@]}) ))
      m=${modes[i % ${#modes[@]}]}
      if (( i < ${#modes[@]} )); then e=native; cmd=("$build/bin/bench_host")
      # (--no-liftoff: V8's optimizing tier from the start, as bench/run.sh
      # runs it: a plain run would otherwise stay in the baseline tier)
      else e=wasm; cmd=(node --no-liftoff "$wasm/bin/bench_host.js"); fi
      ns=$("${cmd[@]}" "$m" "$here/programs/$p.lua" $a | sed -n 's/.* run_ns=\([0-9]*\).*/\1/p')
      echo "$p $e $m $ns" >> "$out"
    done
  done
done
for pa in "${progs[@]}"; do
  read -r p a <<< "$pa"
  calls=$("$build/bin/bench_host" hook "$here/programs/$p.lua" $a | sed -n 's/.*hook_calls=\([0-9]*\).*/\1/p')
  echo "$p $a: $calls calls; run time median ms (per call ns); per call: floor-plain, full-floor, full-fullcount (the clock), fullhost-fullcount"
  for e in native wasm; do
    awk -v p="$p" -v e="$e" -v c="$calls" '
      $1 == p && $2 == e { v[$3] = v[$3] " " $4 }
      function med(s,  a, n, i, j, t) { n = split(s, a, " ")
        for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      END {
        split("plain floor full fullhost fullcount", M, " ")
        line = sprintf("  %-6s", e)
        for (i = 1; i <= 5; i++) { m[M[i]] = med(v[M[i]]); line = line sprintf(" %s %.0f (%.1f)", M[i], m[M[i]] / 1e6, m[M[i]] / c) }
        print line
        printf "         floor-plain %.1f ns, full-floor %.1f ns, clock (full-fullcount) %.1f ns, fullhost-fullcount %.1f ns\n",
          (m["floor"] - m["plain"]) / c, (m["full"] - m["floor"]) / c, (m["full"] - m["fullcount"]) / c, (m["fullhost"] - m["fullcount"]) / c
      }' "$out"
  done
done
