#!/usr/bin/env bash
# compare.sh -- two builds side by side: `full` of a build before a change
# and of the build after it, with `plain` and `hook` (the leanest hook
# profiler of bench_host) of the build after, interleaved in every round
# (order rotated from program to program and round to round), medians.
#
#   bench/compare.sh --before DIR [--after DIR] [--runs N] [--quick]
#
#   --before D  a build directory of the older commit (bin/bench_host)
#   --after D   the newer one (default: $BUILD_DIR, else build/)
#   --runs N    rounds (default 5)
#   --quick     1 round, small sizes (seconds)
#
# Prints per program the median wall ms of each and the ratios
# after/before, full/plain and full/hook before and after (the hook and
# plain of the same run, so a slow phase of a shared machine falls on all
# four alike).  Exits non-zero only on an error (a run that fails, or
# checksums that differ between the runs of a program).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
after=${BUILD_DIR:-$here/../build}
before=
runs=5
quick=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --before) before=$2; shift 2 ;;
    --after) after=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --quick) quick=1; runs=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -n $before ]] || { echo "compare.sh: --before DIR is needed" >&2; exit 2; }
for d in "$before" "$after"; do
  [[ -x $d/bin/bench_host ]] || { echo "compare.sh: no $d/bin/bench_host" >&2; exit 2; }
done

. "$here/lib.sh"        # progs, quick_args, awk_median
# run KIND: "before full", "after plain", "after full", "after hook"
kinds=("after plain" "before full" "after full" "after hook")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "bench/compare.sh: ${#progs[@]} programs x 4 runs x $runs round(s)" >&2
for ((r = 0; r < runs; r++)); do
  for ((p = 0; p < ${#progs[@]}; p++)); do
    prog=${progs[p]}
    args=()
    if [[ $quick = 1 ]]; then read -r -a args <<< "${quick_args[$prog]}"; fi
    for ((k = 0; k < ${#kinds[@]}; k++)); do
      read -r side mode <<< "${kinds[(k + r + p) % ${#kinds[@]}]}"
      dir=$after; [[ $side == before ]] && dir=$before
      if ! line=$("$dir/bin/bench_host" "$mode" "$here/programs/$prog.lua" "${args[@]}" 2>"$tmp/err"); then
        echo "compare.sh: ERROR: $side $mode $prog failed:" >&2
        cat "$tmp/err" >&2
        exit 1
      fi
      line=$(grep '^mode=' <<< "$line" || true)
      [[ -n $line ]] || { echo "compare.sh: ERROR: $side $mode $prog: no result line" >&2; exit 1; }
      echo "side=$side $line" >> "$tmp/results"
    done
  done
  echo "  round $((r + 1))/$runs done" >&2
done

awk -v progs="${progs[*]}" "$awk_median"'
{
  delete f
  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
  key = f["prog"] SUBSEP f["side"] " " f["mode"]
  wall[key] = wall[key] " " f["wall_ns"]
  if ((f["prog"] in sum) && sum[f["prog"]] != f["checksum"]) bad = bad " " f["prog"]
  sum[f["prog"]] = f["checksum"]
}
END {
  if (bad != "") { print "compare.sh: ERROR: checksums differ:" bad > "/dev/stderr"; exit 1 }
  printf "| program | plain | full before | full after | hook | after/before | full/plain before | full/plain after | full/hook before | full/hook after |\n"
  printf "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
  n = split(progs, P, " ")
  for (i = 1; i <= n; i++) {
    p = P[i]
    pl = median(wall[p SUBSEP "after plain"]) / 1e6
    fb = median(wall[p SUBSEP "before full"]) / 1e6
    fa = median(wall[p SUBSEP "after full"]) / 1e6
    hk = median(wall[p SUBSEP "after hook"]) / 1e6
    printf "| %s | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
      p, pl, fb, fa, hk, fa / fb, fb / pl, fa / pl, fb / hk, fa / hk
  }
}' "$tmp/results"
