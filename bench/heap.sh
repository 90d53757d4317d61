#!/usr/bin/env bash
# heap.sh -- what luaheap costs on a big snapshot: read + dominators +
# paths + summary of a synthetic heap of N nodes (bench/heap_gen.lua: a
# game-like heap with a weak cache and a deep list), and a diff of it
# against the same heap with a planted leak; wall time and peak memory
# (GNU time's maximum resident set) of each, the best of R runs.
#
#   bench/heap.sh [--quick] [--nodes N] [--runs R] [--build DIR]
#
#   --quick     N = 100000, 1 run (what a smoke run needs)
#   --nodes N   nodes in the heap (default 1000000)
#   --runs R    runs of each command (default 3)
#   --build D   the build directory with bin/luaheap
#
# The files go to a temporary folder, removed at the end.  Prints one line
# per command; exits non-zero only on an error (a target is reported,
# never failed on).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$top/build}
nodes=1000000
runs=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) nodes=100000; runs=1 ;;
    --nodes) nodes=$2; shift ;;
    --runs) runs=$2; shift ;;
    --build) build=$2; shift ;;
    *) echo "usage: bench/heap.sh [--quick] [--nodes N] [--runs R] [--build DIR]" >&2
       exit 2 ;;
  esac
  shift
done
lh=$build/bin/luaheap
[[ -x $lh ]] || { echo "heap.sh: no $lh (build first)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "heap.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

leak=$((nodes / 100))
lua5.4 "$here/heap_gen.lua" "$nodes" "$tmp/a.heapsnapshot"
lua5.4 "$here/heap_gen.lua" "$nodes" "$tmp/b.heapsnapshot" "$leak"
echo "heap.sh: $(du -m "$tmp/a.heapsnapshot" | cut -f1) MB file; B has $leak more entities"

# measure NAME CMD...: the best wall time and peak RSS of R runs
measure() {
  local name=$1 best_t="" best_m="" t m
  shift
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/out"
    read -r t m <"$tmp/time"
    if [[ -z $best_t ]] || awk -v a="$t" -v b="$best_t" 'BEGIN{exit !(a < b)}'; then
      best_t=$t
    fi
    if [[ -z $best_m || $m -lt $best_m ]]; then best_m=$m; fi
  done
  printf '  %-28s %6s s  %6d MB peak\n' "$name" "$best_t" $((best_m / 1024))
}
measure "summary A" "$lh" summary "$tmp/a.heapsnapshot"
measure "summary --json A" "$lh" summary --json "$tmp/a.heapsnapshot"
measure "diff A B" "$lh" diff "$tmp/a.heapsnapshot" "$tmp/b.heapsnapshot"
sed -n '/By retaining path/,+3p' "$tmp/out"
