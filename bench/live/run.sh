#!/usr/bin/env bash
# run.sh -- what the live view (issue 22) costs the program it watches,
# with bench_live (bench/live/bench_live.c) and real WebSocket clients
# (client.py, python3-websocket).  Prints a small table:
#   mark      ns per luainstr_frame, live off and on (the server's thread
#             taking the records, no client), each the median of ROUNDS
#             runs (each run the median of its 5 rounds of 20000 marks);
#             target: on under 2 us
#   game      a game loop's frame time (bench/live/game.lua, ~2 ms of Lua a
#             frame, 600 frames), live on with 0 clients and with 4,
#             runs alternated, the median of the runs' medians; target:
#             4 clients within 2 % of none
#   latency   from a mark (CLOCK_MONOTONIC just before luainstr_frame) to
#             a client's receiving that frame (time.monotonic_ns), over
#             every frame of the 4-client runs: median, 95th percentile
#   fib       instructions per call of fib under callgrind (as
#             bench/callgrind.sh counts them: fib.lua 25 less fib.lua 2),
#             live off, and live "page" with frame mode off (the probes
#             poll it, the fast path off); only with valgrind
#
#   bench/live/run.sh [--build DIR] [--rounds N]     (default: build/, 5)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$top/build}
rounds=5
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bin=$build/bin/bench_live
[[ -x $bin ]] || { echo "run.sh: $bin not found (build first, or --build DIR)" >&2; exit 2; }
# Debian's python3 has python3-websocket (another python3 first in PATH may not)
py=python3
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import websocket' 2>/dev/null; then py=$p; break; fi
done
"$py" -c 'import websocket' 2>/dev/null ||
  { echo "run.sh: python3-websocket missing (scripts/deps.sh)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-live-bench.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

median() { sort -g | awk '{v[NR]=$1} END {print NR ? v[int((NR+1)/2)] : "nan"}'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }

# ---- mark -----------------------------------------------------------------
for r in $(seq "$rounds"); do
  "$bin" mark off 20000 5 | field ns_per_mark >>"$tmp/mark_off"
  "$bin" mark 127.0.0.1:0 20000 5 2>/dev/null | field ns_per_mark >>"$tmp/mark_on"
done

# ---- game -----------------------------------------------------------------
# game_run NCLIENTS N: one run; its median frame time to $tmp/game_N, the
# clients' frame times to $tmp/recv_N_*, the marks' to $tmp/marks_N
game_run() {
  local nc=$1 n=$2 i url=
  mkfifo "$tmp/go_$n"
  "$bin" game 127.0.0.1:0 "$here/game.lua" 600 "$tmp/marks_$n" \
    <"$tmp/go_$n" >"$tmp/out_$n" 2>"$tmp/err_$n" &
  local game=$!
  pids+=("$game")
  exec 7>"$tmp/go_$n"
  for i in $(seq 100); do
    url=$(grep -o 'http://[^ ]*' "$tmp/err_$n" 2>/dev/null | head -1 || true)
    [[ -n $url ]] && grep -q ready "$tmp/out_$n" 2>/dev/null && break
    sleep 0.1
  done
  [[ -n $url ]] || { cat "$tmp/err_$n" >&2; echo "run.sh: no URL from bench_live" >&2; exit 1; }
  for i in $(seq "$nc"); do
    "$py" "$here/client.py" "$url" "$tmp/recv_${n}_$i" >"$tmp/client_${n}_$i" 2>&1 &
    pids+=($!)
  done
  for i in $(seq "$nc"); do
    local k
    for k in $(seq 100); do
      grep -q connected "$tmp/client_${n}_$i" 2>/dev/null && break
      sleep 0.1
    done
    grep -q connected "$tmp/client_${n}_$i" ||
      { cat "$tmp/client_${n}_$i" >&2; echo "run.sh: client $i did not connect" >&2; exit 1; }
  done
  echo go >&7
  exec 7>&-
  wait "$game"
  wait                                  # (the clients end at "end")
  field median_ns <"$tmp/out_$n" >>"$tmp/game_$nc"
}
for r in $(seq "$rounds"); do
  game_run 0 "0_$r"
  game_run 4 "4_$r"
done

# latency: every frame every client got, against its mark
cat "$tmp"/marks_4_* >/dev/null
lat=$("$py" - "$tmp" "$rounds" <<'EOF'
import glob, os, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
lat = []
for r in range(1, rounds + 1):
    marks = dict(map(int, l.split()) for l in open(os.path.join(tmp, "marks_4_%d" % r)))
    for f in glob.glob(os.path.join(tmp, "recv_4_%d_*" % r)):
        for l in open(f):
            i, t = map(int, l.split())
            if i in marks:
                lat.append(t - marks[i])
lat.sort()
if not lat:
    print("nan nan nan 0")
else:
    q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
    print("%.1f %.1f %.1f %d" % (q(0.5) / 1e6, q(0.95) / 1e6, lat[-1] / 1e6, len(lat)))
EOF
)

# ---- fib under callgrind --------------------------------------------------
fib_line="(valgrind not installed)"
if command -v valgrind >/dev/null && [[ -z ${LI_SANITIZER:-} ]]; then
  ir() {  # Ir LIVE ARG: the median of 3 runs
    local i
    for i in 1 2 3; do
      valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
        "$bin" fib "$1" "$top/bench/programs/fib.lua" "$2" >/dev/null 2>&1
      sed -n 's/^summary: //p' "$tmp/cg"
    done | median
  }
  per_call() {
    local a b
    a=$(ir "$1" 25); b=$(ir "$1" 2)
    awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", (a - b) / 485569}'
  }
  fib_off=$(per_call off)
  fib_page=$(per_call page)
  fib_line="$fib_off         $fib_page"
fi

m_off=$(median <"$tmp/mark_off")
m_on=$(median <"$tmp/mark_on")
g0=$(median <"$tmp/game_0")
g4=$(median <"$tmp/game_4")
read -r l50 l95 lmax ln <<<"$lat"
echo "live view costs ($rounds rounds; $(nproc) cores; $(date -u +%Y-%m-%d))"
printf '%-28s %12s %12s %s\n' "" "live off" "live on" ""
printf '%-28s %12.1f %12.1f %s\n' "mark, ns" "$m_off" "$m_on" \
  "$(awk -v x="$m_on" 'BEGIN {print (x < 2000) ? "target < 2000 ns: met" : "target < 2000 ns: MISSED"}')"
printf '%-28s %12s %12s %s\n' "" "0 clients" "4 clients" ""
printf '%-28s %12.3f %12.3f %s\n' "game frame, ms (median)" \
  "$(awk -v x="$g0" 'BEGIN {print x / 1e6}')" "$(awk -v x="$g4" 'BEGIN {print x / 1e6}')" \
  "$(awk -v a="$g0" -v b="$g4" 'BEGIN {d = (b - a) / a * 100; printf "%+.2f %% (target within 2 %%: %s)", d, (d <= 2) ? "met" : "MISSED"}')"
printf '%-28s median %s ms, p95 %s ms, max %s ms (%s frames)\n' \
  "latency, mark -> client" "$l50" "$l95" "$lmax" "$ln"
printf '%-28s %s\n' "fib Ir/call (off, page)" "$fib_line"
