#!/usr/bin/env bash
# run.sh -- the runtime-overhead bench: every program of bench/programs/ in
# the six modes of bench_host (plain, floor, full, hook, frames, memory),
# interleaved, then medians, ratios, peak RSS, the rewriter's figures and
# which targets are met.  frames: full with frame marking on and a mark at
# most every BENCH_FRAME_US (default 1000) from the programs' main loops;
# memory: full with memory mode on (issue 12).
#
#   bench/run.sh [--quick] [--runs N] [--build DIR] [--wasm DIR]
#
#   --quick    1 run, small sizes (a few seconds; what ctest runs), and
#              the heap snapshot bench at its quick size (bench/heap/run.sh)
#   --runs N   N rounds (default 5)
#   --build D  the build directory with bin/bench_host and bin/bench_rewrite
#              (default: $BUILD_DIR, else build/ at the top of the repo)
#   --lua V    the runtime built for Lua V (5.1, 5.2, 5.3: bin/bench_host5.V;
#              default 5.4, bin/bench_host); programs that stock luaV
#              cannot run at their quick size (5.3's integer operators and
#              math.type on 5.1 and 5.2) are left out, and it says so;
#              jit: LuaJIT with its JIT on, a bench of its own, beside
#              luajit, a hook profiler and jit.p (bench/run_jit.sh; its
#              options: run.sh --lua jit --help)
#   --wasm D   also run D/bin/bench_host.js (the WebAssembly build of
#              scripts/wasm.sh, D usually build-wasm/) under node, modes
#              plain, floor, full and fullhost (full with performance.now()
#              as the host's clock), interleaved with the native runs, same
#              programs and arguments, checksums compared with native; adds
#              the wasm table, the ratio target and D/bin/clock_cost.js;
#              and D/bin/bench_host_web.js in headless Chromium (plain and
#              full, bench/wasm/chromium.js) with its table and target
#
# Rounds are interleaved: for each round, for each program, every mode
# in an order rotated from program to program and round to round, so slow
# phases of a shared machine fall on every mode alike.  Exits non-zero only
# on an error (a run that fails, checksums that differ between runs or
# modes); a missed target is reported, never an error.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$top/build}
runs=5
quick=0
wasm=
chrome_host=   # (--wasm: D/bin/bench_host_web.js when Chromium runs it)

# LuaJIT: bench/run_jit.sh, which takes the same options and a few more
for ((i = 1; i < $#; i++)); do
  j=$((i + 1))
  if [[ ${!i} == --lua && ${!j} == jit ]]; then exec bash "$here/run_jit.sh" "$@"; fi
done
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1; runs=1; shift ;;
    --runs) runs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --wasm) wasm=$2; shift 2 ;;
    --lua) lua=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

lua=${lua:-5.4}
host=$build/bin/bench_host
[[ $lua == 5.4 ]] || host=$host$lua
rewrite=$build/bin/bench_rewrite
if [[ ! -x $host ]]; then
  echo "run.sh: $host not found (build first, or --build DIR)" >&2
  exit 2
fi

. "$here/lib.sh"        # progs, quick_args, awk_median
if [[ $lua != 5.4 ]]; then     # the programs this Lua compiles
  kept=()
  for p in "${progs[@]}"; do
    # shellcheck disable=SC2086  # (the quick sizes are several words)
    if (cd "$here/programs" && "lua$lua" "$p.lua" ${quick_args[$p]}) >/dev/null 2>&1; then
      kept+=("$p")
    else
      echo "bench/run.sh: $p left out: lua$lua cannot run it" >&2
    fi
  done
  progs=("${kept[@]}")
fi
modes=(plain floor full hook frames memory)
# Every run of a round, for one program: native modes, then wasm ones as
# wasm:MODE (their result lines say mode=wasm_MODE).
wasm_modes=(plain floor full fullhost)
runs_of=("${modes[@]}")
if [[ -n $wasm ]]; then
  wasm_host=$wasm/bin/bench_host.js
  if [[ ! -f $wasm_host ]]; then
    echo "run.sh: $wasm_host not found (scripts/wasm.sh builds it)" >&2
    exit 2
  fi
  command -v node >/dev/null || { echo "run.sh: --wasm needs node" >&2; exit 2; }
  # Debian's node modules, as scripts/wasm.sh sets them
  export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
  for m in "${wasm_modes[@]}"; do runs_of+=("wasm:$m"); done
  # The same host in a page of headless Chromium (bench_host_web.js through
  # bench/wasm/chromium.js: a fresh browser a run, cross-origin isolated).
  chrome_host=$wasm/bin/bench_host_web.js
  chrome_modes=(plain full)
  if [[ -f $chrome_host ]] && command -v chromium >/dev/null; then
    for m in "${chrome_modes[@]}"; do runs_of+=("chrome:$m"); done
  elif [[ ${CI:-} == 1 ]]; then
    echo "run.sh: --wasm needs chromium and $chrome_host under CI" >&2; exit 2
  else
    echo "run.sh: no chromium or no $chrome_host: the Chromium columns are left out" >&2
    chrome_host=
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results=$tmp/results

echo "bench/run.sh: ${#progs[@]} programs x ${#runs_of[@]} modes x $runs run(s)$([[ $quick = 1 ]] && echo ', quick sizes')$([[ -n $wasm ]] && echo ", with wasm ($wasm)")"
for ((r = 0; r < runs; r++)); do
  for ((p = 0; p < ${#progs[@]}; p++)); do
    prog=${progs[p]}
    args=()
    if [[ $quick = 1 ]]; then read -r -a args <<< "${quick_args[$prog]}"; fi
    for ((k = 0; k < ${#runs_of[@]}; k++)); do
      mode=${runs_of[(k + r + p) % ${#runs_of[@]}]}
      cmd=("$host" "$mode") engine=
      # --no-liftoff: V8's optimizing tier from the start (bench/wasm/chromium.js
      # says why: without it plain runs stay in the baseline tier)
      if [[ $mode == wasm:* ]]; then mode=${mode#wasm:}; cmd=(node --no-liftoff "$wasm_host" "$mode") engine=wasm_; fi
      if [[ $mode == chrome:* ]]; then
        mode=${mode#chrome:} engine=chrome_
        cmd=(node "$here/wasm/chromium.js" "$chrome_host" "$mode")
      fi
      if ! line=$("${cmd[@]}" "$here/programs/$prog.lua" "${args[@]}" 2> "$tmp/err"); then
        echo "run.sh: ERROR: $mode $prog failed:" >&2
        cat "$tmp/err" >&2
        exit 1
      fi
      line=$(grep '^mode=' <<< "$line" || true)
      if [[ -z $line ]]; then
        echo "run.sh: ERROR: $mode $prog printed no result line" >&2
        exit 1
      fi
      if [[ -n $engine ]]; then line=${line/mode=/mode=$engine}; fi
      echo "run=$r $line" >> "$results"
    done
  done
  echo "  round $((r + 1))/$runs done" >&2
done

# ---- the tables, from the result lines ------------------------------------
# Every line: run=R mode=M prog=P wall_ns=... load_ns=... run_ns=...
# dump_ns=... maxrss_kb=... checksum=C [hook_...]
status=0
awk -v progs="${progs[*]}" -v modes="${modes[*]}" -v wasm="${wasm:+${wasm_modes[*]}}" \
    -v chrome="${chrome_host:+${chrome_modes[*]}}" "$awk_median"'
function ms(ns) { return ns / 1e6 }
{
  delete f
  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
  key = f["prog"] SUBSEP f["mode"]
  wall[key] = wall[key] " " f["wall_ns"]
  load[key] = load[key] " " f["load_ns"]
  dump[key] = dump[key] " " f["dump_ns"]
  if (f["maxrss_kb"] + 0 > rss[key]) rss[key] = f["maxrss_kb"] + 0
  if ("frames" in f) marks[f["prog"]] = marks[f["prog"]] " " f["frames"]
  if (!(f["prog"] in sum)) sum[f["prog"]] = f["checksum"]
  else if (sum[f["prog"]] != f["checksum"]) {
    bad[f["prog"]] = bad[f["prog"]] " " f["mode"] "(run " f["run"] "): " f["checksum"]
  }
}
END {
  np = split(progs, P, " "); nm = split(modes, M, " ")
  err = 0
  for (i = 1; i <= np; i++) if (P[i] in bad) {
    printf "run.sh: ERROR: checksums of %s differ: first %s, then%s\n", P[i], sum[P[i]], bad[P[i]] > "/dev/stderr"
    err = 1
  }
  if (err) exit 1

  print ""
  print "Wall time (load + run), median ms, and ratios of the medians"
  printf "%-19s %8s %8s %8s %8s %7s %7s %7s %7s %7s\n", "program", "plain", "floor", "full", "hook", \
         "full/", "floor/", "full/", "hook/", "full/"
  printf "%-19s %8s %8s %8s %8s %7s %7s %7s %7s %7s\n", "", "", "", "", "", \
         "plain", "plain", "floor", "plain", "hook"
  logsum = 0; nreal = 0
  for (i = 1; i <= np; i++) {
    p = P[i]
    for (j = 1; j <= nm; j++) med[M[j]] = median(wall[p SUBSEP M[j]])
    r_fp[p] = med["full"] / med["plain"]; r_fl[p] = med["full"] / med["floor"]
    r_fh[p] = med["full"] / med["hook"]
    printf "%-19s %8.1f %8.1f %8.1f %8.1f %7.2f %7.2f %7.2f %7.2f %7.2f\n", p, \
      ms(med["plain"]), ms(med["floor"]), ms(med["full"]), ms(med["hook"]), \
      r_fp[p], med["floor"] / med["plain"], r_fl[p], med["hook"] / med["plain"], r_fh[p]
    if (p != "fib") { logsum += log(r_fp[p]); nreal++ }
  }
  geo = exp(logsum / nreal)
  printf "geometric mean of full/plain over the %d realistic programs (all but fib): %.3f\n", nreal, geo

  print ""
  print "Load time (read + rewrite + compile), median ms; full: report dump to /dev/null"
  printf "%-19s %8s %8s %8s %8s %10s %9s\n", "program", "plain", "floor", "full", "hook", "full/plain", "dump ms"
  for (i = 1; i <= np; i++) {
    p = P[i]
    lp = median(load[p SUBSEP "plain"]); lf = median(load[p SUBSEP "full"])
    printf "%-19s %8.2f %8.2f %8.2f %8.2f %10.2f %9.2f\n", p, ms(lp), ms(median(load[p SUBSEP "floor"])), \
      ms(lf), ms(median(load[p SUBSEP "hook"])), lf / lp, ms(median(dump[p SUBSEP "full"]))
  }

  print ""
  print "Peak RSS (getrusage ru_maxrss at exit, max over runs), MB"
  printf "%-19s %8s %8s %8s %8s %10s %14s\n", "program", "plain", "floor", "full", "hook", "full/plain", "limit (1.3x+5)"
  for (i = 1; i <= np; i++) {
    p = P[i]
    rp = rss[p SUBSEP "plain"] / 1024; rf = rss[p SUBSEP "full"] / 1024
    limit[p] = 1.3 * rp + 5; rssf[p] = rf
    printf "%-19s %8.1f %8.1f %8.1f %8.1f %10.2f %14.1f\n", p, rp, rss[p SUBSEP "floor"] / 1024, \
      rf, rss[p SUBSEP "hook"] / 1024, rf / rp, limit[p]
  }

  print ""
  print "Frames and memory mode (issue 12): wall time, median ms, ratios of the medians"
  print "(frames: a mark at most every BENCH_FRAME_US from the main loop, marks = median count;"
  print " memory x = (memory/plain) / (full/plain), target <= 1.3)"
  printf "%-19s %8s %8s %8s %7s %7s %7s %7s %6s %8s %8s\n", "program", "full", "frames", "memory", \
         "full/", "frames/", "memory/", "memory", "marks", "RSS MB", "RSS MB"
  printf "%-19s %8s %8s %8s %7s %7s %7s %7s %6s %8s %8s\n", "", "", "", "", \
         "plain", "plain", "plain", "x", "", "full", "memory"
  miss = ""; memlog = 0; frlog = 0
  for (i = 1; i <= np; i++) {
    p = P[i]
    pl = median(wall[p SUBSEP "plain"]); fu = median(wall[p SUBSEP "full"])
    fr = median(wall[p SUBSEP "frames"]); me = median(wall[p SUBSEP "memory"])
    mx[p] = (me / pl) / (fu / pl)
    printf "%-19s %8.1f %8.1f %8.1f %7.2f %7.2f %7.2f %7.2f %6d %8.1f %8.1f %s\n", p, ms(fu), ms(fr), ms(me), \
      fu / pl, fr / pl, me / pl, mx[p], median(marks[p]), rss[p SUBSEP "full"] / 1024, \
      rss[p SUBSEP "memory"] / 1024, mx[p] <= 1.3 ? "met" : "MISSED"
    if (mx[p] > 1.3) miss = miss sprintf(" %s %.2f", p, mx[p])
    memlog += log(mx[p]); frlog += log(fr / fu)
  }
  printf "geometric mean over the %d programs: frames/full %.3f, memory x %.3f\n", np, exp(frlog / np), exp(memlog / np)

  print ""
  print "Targets"
  printf "  full/plain geomean <= 1.25 (realistic): %s (%.3f)\n", geo <= 1.25 ? "MET" : "MISSED", geo
  printf "  fib full/plain <= 3.0:                  %s (%.2f)\n", r_fp["fib"] <= 3.0 ? "MET" : "MISSED", r_fp["fib"]
  miss = ""; for (i = 1; i <= np; i++) if (r_fl[P[i]] > 1.2) miss = miss sprintf(" %s %.2f", P[i], r_fl[P[i]])
  printf "  full <= 1.2x floor on every program:    %s%s\n", miss == "" ? "MET" : "MISSED:", miss
  miss = ""; for (i = 1; i <= np; i++) if (r_fh[P[i]] >= 1) miss = miss sprintf(" %s %.2f", P[i], r_fh[P[i]])
  printf "  full < hook on every program:           %s%s\n", miss == "" ? "MET" : "MISSED (full/hook):", miss
  miss = ""; for (i = 1; i <= np; i++) if (rssf[P[i]] > limit[P[i]]) miss = miss sprintf(" %s %.1f>%.1f MB", P[i], rssf[P[i]], limit[P[i]])
  printf "  peak RSS full <= 1.3x plain + 5 MB:     %s%s\n", miss == "" ? "MET" : "MISSED:", miss
  miss = ""; for (i = 1; i <= np; i++) if (mx[P[i]] > 1.3) miss = miss sprintf(" %s %.2f", P[i], mx[P[i]])
  printf "  memory mode <= 1.3x the time-only ratio: %s%s\n", miss == "" ? "MET" : "MISSED:", miss
  if (wasm == "") exit 0

  print ""
  print "WebAssembly (node, bench_host.js) against native: wall time (load + run), median ms"
  print "(fullhost: full with performance.now() as the host clock; x = wasm full/plain over native full/plain)"
  printf "%-19s %8s %8s %8s | %8s %8s %8s %8s | %6s %6s %6s %6s %6s %6s\n", "program", "plain", "floor", "full", \
         "w.plain", "w.floor", "w.full", "w.fullh", "full/", "w.full", "x", "w.flr/", "w.fh/", "x fh"
  printf "%-19s %8s %8s %8s | %8s %8s %8s %8s | %6s %6s %6s %6s %6s %6s\n", "", "", "", "", "", "", "", "", \
         "plain", "/plain", "", "plain", "plain", ""
  miss = ""; missh = ""; logx = 0; logxh = 0
  for (i = 1; i <= np; i++) {
    p = P[i]
    np_ = median(wall[p SUBSEP "plain"]); nfl = median(wall[p SUBSEP "floor"]); nfu = median(wall[p SUBSEP "full"])
    wp = median(wall[p SUBSEP "wasm_plain"]); wfl = median(wall[p SUBSEP "wasm_floor"])
    wfu = median(wall[p SUBSEP "wasm_full"]); wfh = median(wall[p SUBSEP "wasm_fullhost"])
    rn = nfu / np_; rw = wfu / wp; rh = wfh / wp
    printf "%-19s %8.1f %8.1f %8.1f | %8.1f %8.1f %8.1f %8.1f | %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f\n", p, \
      ms(np_), ms(nfl), ms(nfu), ms(wp), ms(wfl), ms(wfu), ms(wfh), rn, rw, rw / rn, wfl / wp, rh, rh / rn
    if (rw / rn > 1.3) miss = miss sprintf(" %s %.2f", p, rw / rn)
    if (rh / rn > 1.3) missh = missh sprintf(" %s %.2f", p, rh / rn)
    logx += log(rw / rn); logxh += log(rh / rn)
    slow = slow sprintf(" %s %.1f", p, wp / np_)
  }
  printf "wasm plain / native plain (the engine itself):%s\n", slow
  printf "geometric mean over the %d programs of x: full %.3f, fullhost %.3f\n", np, exp(logx / np), exp(logxh / np)
  print ""
  print "Target (WebAssembly)"
  printf "  wasm full/plain <= 1.3x native full/plain on every program: %s%s\n", miss == "" ? "MET" : "MISSED:", miss
  printf "    with performance.now() as the clock (fullhost):          %s%s\n", missh == "" ? "MET" : "MISSED:", missh
  if (chrome == "") exit 0

  print ""
  print "WebAssembly (headless Chromium, bench_host_web.js, cross-origin isolated) against native:"
  print "wall time (load + run), median ms; x = Chromium full/plain over native full/plain"
  printf "%-19s %8s %8s | %8s %8s | %6s %6s %6s\n", "program", "plain", "full", "c.plain", "c.full", \
         "full/", "c.full", "x"
  printf "%-19s %8s %8s | %8s %8s | %6s %6s %6s\n", "", "", "", "", "", "plain", "/plain", ""
  miss = ""; logx = 0; slow = ""
  for (i = 1; i <= np; i++) {
    p = P[i]
    np_ = median(wall[p SUBSEP "plain"]); nfu = median(wall[p SUBSEP "full"])
    cp = median(wall[p SUBSEP "chrome_plain"]); cf = median(wall[p SUBSEP "chrome_full"])
    rn = nfu / np_; rc = cf / cp
    printf "%-19s %8.1f %8.1f | %8.1f %8.1f | %6.2f %6.2f %6.2f\n", p, ms(np_), ms(nfu), ms(cp), ms(cf), rn, rc, rc / rn
    if (rc / rn > 1.3) miss = miss sprintf(" %s %.2f", p, rc / rn)
    logx += log(rc / rn)
    slow = slow sprintf(" %s %.1f", p, cp / np_)
  }
  printf "Chromium plain / native plain:%s\n", slow
  printf "geometric mean over the %d programs of x: %.3f\n", np, exp(logx / np)
  printf "  Chromium full/plain <= 1.3x native full/plain on every program: %s%s\n", miss == "" ? "MET" : "MISSED:", miss
}' "$results" || status=$?
if [[ $status != 0 ]]; then exit "$status"; fi

# ---- the cost of one clock read in WebAssembly --------------------------------
if [[ -n $wasm ]]; then
  echo
  if [[ -f $wasm/bin/clock_cost.js ]]; then
    echo "  node:"
    node "$wasm/bin/clock_cost.js" $([[ $quick = 1 ]] && echo 200000) | sed 's/^/  /'
    if [[ -n $chrome_host ]]; then
      echo "  headless Chromium, cross-origin isolated:"
      node "$here/wasm/chromium.js" "$wasm/bin/clock_cost.js" $([[ $quick = 1 ]] && echo 200000) | sed 's/^/  /'
    fi
  else
    echo "  (no $wasm/bin/clock_cost.js: clock costs not measured)"
  fi
fi

# ---- the rewriter's figures -------------------------------------------------
echo
echo "Rewriter (bench_rewrite --quick over tests/corpus/list_corpus.sh: one pass)"
if [[ ! -x $rewrite ]]; then
  echo "  skipped: $rewrite not built"
elif ! bash "$top/tests/corpus/list_corpus.sh" > "$tmp/corpus" 2> "$tmp/err"; then
  echo "  skipped: no corpus ($(head -n 1 "$tmp/err"))"
else
  if ! "$rewrite" --quick "$tmp/corpus" > "$tmp/rw" 2> "$tmp/err"; then
    echo "run.sh: ERROR: bench_rewrite failed:" >&2
    cat "$tmp/err" >&2
    exit 1
  fi
  head -n 1 "$tmp/rw" | sed 's/^/  /'
  awk '/\(a\) rewrite/ { printf "  rewrite throughput:            %s MB/s\n", $(NF - 3) }
       /\(b\) \(rewrite\+compile\)/ { printf "  load-time ratio (rewrite+compile)/compile: %s\n", $(NF - 3) }
       /\(c\) compile of output/ { printf "  of which compiling the longer output:      %s\n", $(NF - 3) }' "$tmp/rw"
fi
# Loading against Lua's own compiler (issue 24): bench/load.sh --quick, a
# few seconds (the full bench, with --base for before/after, is run by
# hand: bench/README.md "Loading")
echo
echo "Loading (bench/load.sh --quick: in-process, the luainstr command, generated chunks)"
load_status=0
bash "$here/load.sh" --quick --build "$build" --lua "$lua" > "$tmp/load" 2> "$tmp/err" || load_status=$?
if [[ $load_status == 77 ]]; then
  echo "  skipped: $(head -n 1 "$tmp/err")"
elif [[ $load_status != 0 ]]; then
  echo "run.sh: ERROR: bench/load.sh failed:" >&2
  cat "$tmp/err" >&2
  exit 1
else
  sed 's/^/  /' "$tmp/load"
fi

# ---- heap snapshots (issue 21): bench/heap/run.sh at its quick size ----------
# (--quick only, this Lua: about a second; the full bench takes half a
# minute and is run by hand, bench/README.md "Heap snapshots")
if [[ $quick = 1 ]]; then
  echo
  bash "$here/heap/run.sh" --quick --lua "$lua" --build "$build" 2>&1 | sed 's/^/  /'
fi
