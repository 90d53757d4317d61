#!/usr/bin/env bash
# run.sh -- the heap snapshot bench (issue 21): for every Lua built, the
# time and the C memory one snapshot of a heap of about 1 M objects takes
# (bench_heap over heap_gen.lua: bench/heap/bench_heap.c says how each is
# measured), medians over the runs, and the targets: under 1 s (wall
# clock; the CPU time is shown beside it, which a loaded machine does not
# inflate), at most 64 bytes of C memory per object (per node of the
# snapshot).
#
#   bench/heap/run.sh [--quick] [--runs N] [--objects N] [--collect]
#                     [--lua "5.4 5.3 ..."] [--build DIR]
#
#   --quick    100,000 objects, 1 run (a few seconds a Lua; targets are
#              then not judged, the figures only show the bench works)
#   --runs N   snapshots a Lua (default 5; the heap is made once)
#   --objects N  the heap's size (default 1000000)
#   --collect  snapshots with a full collection first ({collect = true})
#   --lua L    the Luas, among 5.4 5.3 5.2 5.1 jit (default: each whose
#              bench_heap is built: bench_heap, bench_heap5.N, bench_heapjit)
#   --build D  the build directory (default: $BUILD_DIR, else build/)
#
# Exits non-zero on an error: a run that fails, or a snapshot that changed
# the Lua heap's size without --collect (the contract: no allocation in
# the Lua heap).  A missed target is reported, never an error.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$top/build}
runs=5
objects=1000000
quick=0
collect=()
luas="5.4 5.3 5.2 5.1 jit"
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1; runs=1; objects=100000; shift ;;
    --runs) runs=$2; shift 2 ;;
    --objects) objects=$2; shift 2 ;;
    --collect) collect=(--collect); shift ;;
    --lua) luas=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "heap/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results=$tmp/results
: > "$results"

ran=0
for v in $luas; do
  host=$build/bin/bench_heap
  [[ $v == 5.4 ]] || host=$host$v
  if [[ ! -x $host ]]; then
    echo "heap/run.sh: $v skipped: $host not built" >&2
    continue
  fi
  echo "heap/run.sh: Lua $v, $objects objects, $runs run(s)${collect:+, collect}" >&2
  if ! "$host" --objects "$objects" --runs "$runs" --dir "$tmp" "${collect[@]}" \
       "$here/heap_gen.lua" >> "$results" 2> "$tmp/err"; then
    echo "heap/run.sh: ERROR: Lua $v failed:" >&2
    cat "$tmp/err" >&2
    exit 1
  fi
  ran=$((ran + 1))
done
if [[ $ran == 0 ]]; then
  echo "heap/run.sh: no bench_heap built in $build/bin" >&2
  exit 2
fi

# Every line: lua=V run=I nodes=N edges=E file_bytes=B time_ns=T cpu_ns=U
# peak_kb=K c_bytes=W hwm_reset=R malloc_kept=M gc_delta=G gc_bytes=C
awk -v quick="$quick" -v collect="${#collect[@]}" -v order="$luas" '
function median(s,   a, n, i, j, t) {
  n = split(s, a, " ")
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
  delete f
  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
  v = f["lua"]; seen[v] = 1
  t[v] = t[v] " " f["time_ns"]; cpu[v] = cpu[v] " " f["cpu_ns"]; pk[v] = pk[v] " " f["peak_kb"]; cb[v] = cb[v] " " f["c_bytes"]
  nodes[v] = f["nodes"]; edges[v] = f["edges"]; fb[v] = f["file_bytes"]; gcb[v] = f["gc_bytes"]
  if (f["hwm_reset"] == 0) noreset[v] = 1
  if (f["malloc_kept"] + 0 > kept[v]) kept[v] = f["malloc_kept"] + 0
  if (!collect && f["gc_delta"] != 0) bad[v] = bad[v] " " f["gc_delta"]
}
END {
  n = split(order, L, " ")
  print ""
  print "Heap snapshot: one snapshot of the heap of bench/heap/heap_gen.lua, medians"
  printf "%-5s %9s %9s %8s %8s %8s %8s %8s %9s %9s %9s %8s\n", "Lua", "nodes", "edges", "file MB", \
         "wall ms", "CPU ms", "ns/node", "C MB", "C B/node", "own B/nd", "Lua B/nd", "kept KB"
  err = 0; miss = ""
  for (i = 1; i <= n; i++) {
    v = L[i]; if (!(v in seen)) continue
    tm = median(t[v]) / 1e6; cm = median(cpu[v]) / 1e6; p = median(pk[v]) * 1024
    bpn = p / nodes[v]
    own = median(cb[v])
    printf "%-5s %9d %9d %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f %9s %9.1f %8.1f%s\n", v, nodes[v], edges[v], \
      fb[v] / 1048576, tm, cm, tm * 1e6 / nodes[v], p / 1048576, bpn, \
      own < 0 ? "-" : sprintf("%.1f", own / nodes[v]), gcb[v] / nodes[v], kept[v] / 1024, \
      (v in noreset) ? "  (peak not reset: a lower bound)" : ""
    if (tm >= 1000) miss = miss sprintf(" %s wall %.0f ms (CPU %.0f)", v, tm, cm)
    if (bpn > 64) miss = miss sprintf(" %s %.1f B/node", v, bpn)
    if (v in bad) {
      printf "heap/run.sh: ERROR: Lua %s: the Lua heap changed size during a snapshot (bytes:%s)\n", v, bad[v] > "/dev/stderr"
      err = 1
    }
  }
  print "(wall, CPU: wall-clock and CPU time of the call, ns/node of the wall time;"
  print " C MB: the peak of the resident set during the call over the resident set before it;"
  print " own B/nd: the most C memory the writer counted itself holding (snapshot.lua.c_bytes);"
  print " Lua B/nd: the Lua heap, collectgarbage(\"count\"), per node; kept: malloc bytes still"
  print " in use after the call, the largest over the runs)"
  print ""
  if (quick) print "Targets: not judged at --quick sizes"
  else {
    printf "Targets (under 1 s, at most 64 B of C memory per node): %s%s\n", \
      miss == "" ? "MET" : "MISSED:", miss
  }
  exit err
}' "$results"
