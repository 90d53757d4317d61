#!/usr/bin/env bash
# frames.sh -- the cost of one operation of frame mode, zones and memory
# mode (issue 12): bench_frames for every operation, timed, then under
# callgrind (when valgrind is there) for instructions per operation.
#
#   bench/frames.sh [--quick] [--runs R] [--build DIR] [--no-callgrind]
#
#   --quick         small N, 1 round, no callgrind (what ctest runs)
#   --runs R        R runs of bench_frames per operation, interleaved, each
#                   the median of its 5 rounds; the table gives the median
#                   of the R (default 5)
#   --build D       the build directory with bin/bench_frames
#   --no-callgrind  skip the instruction counts
#
# Instructions per operation: two callgrind runs with N1 and N2 operations,
# (Ir(N2) - Ir(N1)) / (N2 - N1), so the set-up falls out.  Exits non-zero
# only on an error; the targets (a mark under 2 us) are reported, never
# failed on.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"        # awk_median
top=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$top/build}
runs=5
quick=0
cg=1

while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1; runs=1; cg=0; shift ;;
    --runs) runs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --no-callgrind) cg=0; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "frames.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

bin=$build/bin/bench_frames
[[ -x $bin ]] || { echo "frames.sh: $bin not found (build first)" >&2; exit 2; }

ops=(mark zone_c zone_lua call_lua newtable_off newtable_on)
declare -A n_of=([mark]=200000 [zone_c]=2000000 [zone_lua]=2000000
                 [call_lua]=2000000 [newtable_off]=2000000 [newtable_on]=2000000)
rounds=5
if [[ $quick = 1 ]]; then
  for o in "${ops[@]}"; do n_of[$o]=2000; done
  rounds=1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "bench/frames.sh: ${#ops[@]} operations x $runs run(s) of $rounds rounds"
for ((r = 0; r < runs; r++)); do
  for ((k = 0; k < ${#ops[@]}; k++)); do
    o=${ops[(k + r) % ${#ops[@]}]}
    if ! "$bin" --rounds "$rounds" "$o" "${n_of[$o]}" >> "$tmp/t" 2> "$tmp/err"; then
      echo "frames.sh: ERROR: bench_frames $o failed:" >&2
      cat "$tmp/err" >&2
      exit 1
    fi
  done
done

# Instructions: N1 and N2 = 2 x N1, one round each.
if [[ $cg = 1 ]] && command -v valgrind > /dev/null; then
  for o in "${ops[@]}"; do
    n1=$(( ${n_of[$o]} / 20 )); n2=$(( n1 * 2 ))
    for n in $n1 $n2; do
      valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$bin" --rounds 1 "$o" "$n" \
        > /dev/null 2> "$tmp/err" || { echo "frames.sh: ERROR: callgrind $o $n" >&2; cat "$tmp/err" >&2; exit 1; }
      ir=$(awk '/^summary:/ { print $2 }' "$tmp/cg")
      echo "op=$o n=$n ir=$ir" >> "$tmp/ir"
    done
  done
fi
touch "$tmp/ir"

awk -v ops="${ops[*]}" "$awk_median"'
{
  delete f
  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
  if ("ir" in f) { ir[f["op"], ++nir[f["op"]]] = f["ir"]; irn[f["op"], nir[f["op"]]] = f["n"] }
  else { ns[f["op"]] = ns[f["op"]] " " f["ns_per_op"]; lo[f["op"]] = lo[f["op"]] " " f["min"]; hi[f["op"]] = hi[f["op"]] " " f["max"] }
}
END {
  no = split(ops, O, " ")
  print ""
  print "ns per operation (median of the runs of the median of 5 rounds; min, max of all rounds)"
  printf "%-13s %10s %10s %10s %14s\n", "operation", "ns/op", "min", "max", "instr/op"
  for (i = 1; i <= no; i++) {
    o = O[i]
    m[o] = median(ns[o])
    n = split(lo[o], a, " "); mn = a[1]; for (j = 2; j <= n; j++) if (a[j] + 0 < mn + 0) mn = a[j]
    n = split(hi[o], a, " "); mx = a[1]; for (j = 2; j <= n; j++) if (a[j] + 0 > mx + 0) mx = a[j]
    if (nir[o] == 2) { ins[o] = (ir[o, 2] - ir[o, 1]) / (irn[o, 2] - irn[o, 1]); s = sprintf("%.0f", ins[o]) }
    else s = "-"
    printf "%-13s %10.1f %10.1f %10.1f %14s\n", o, m[o], mn, mx, s
  }
  print ""
  printf "zone from Lua beyond two calls of a do-nothing C function: %.1f ns", m["zone_lua"] - m["call_lua"]
  if (nir["zone_lua"] == 2 && nir["call_lua"] == 2) printf ", %.0f instructions", ins["zone_lua"] - ins["call_lua"]
  print ""
  printf "lua_newtable with memory mode on / off: %.2f", m["newtable_on"] / m["newtable_off"]
  if (nir["newtable_on"] == 2) printf " (%.0f instructions more)", ins["newtable_on"] - ins["newtable_off"]
  print ""
  print ""
  print "Target"
  printf "  one frame mark with nothing to keep < 2 us: %s (%.1f ns)\n", m["mark"] < 2000 ? "MET" : "MISSED", m["mark"]
}' "$tmp/t" "$tmp/ir"
