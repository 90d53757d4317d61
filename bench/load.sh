#!/usr/bin/env bash
# load.sh -- what loading costs against Lua's own compiler (issue 24):
#
#  (1) in-process: on the corpus (tests/corpus/list_corpus.sh), load() of
#      every file's text with Lua's load and with the runtime's loader (the
#      luainstr module's replacement: rewrite, compile, lift), file by
#      file in one state, CPU time (bench/load/inproc.lua); the ratio of
#      the sums;
#  (2) the command: `luainstr FILE > /dev/null` against `luac5.4 -p FILE`,
#      one process per file for both (luainstr takes one file), the
#      commands taking turns file by file; CPU time (user + system) and
#      wall time of the children, summed; also the start-up of each (the
#      median over runs on an empty file) and the ratio without it;
#  (3) generated chunks (bench/load/gen.lua): function-dense (100,000
#      small functions, 7 MB), one Lua rejects (500,000 functions in one
#      function, 37 MB: too many functions), spreadsheet-style data (one
#      table constructor, 18 MB): CPU time and peak RSS of
#      `luaprof -o /dev/null X` against `lua5.4 X` and of `luainstr X`
#      against `luac5.4 -p X`, and peak RSS per input byte.
#
#   bench/load.sh [--quick] [--runs N] [--build DIR] [--base DIR] [--lua V]
#
#   --quick    1 round, the first 100 corpus files, small generated chunks
#              (the rejected one: empty functions just past the limit);
#              a few seconds, what ctest runs
#   --runs N   N rounds (default 5); every figure is the median over them
#   --build D  the build measured (default: $BUILD_DIR, else build/); its
#              bin/luaprof, bin/luainstr, lib/lua/V/luainstr.so
#   --base D   another build (e.g. main before a change) measured in the
#              same rounds, interleaved, its figures beside --build's
#   --lua V    5.4 (default), 5.3, 5.2 or 5.1: lua5.V, luaprof5.V and the
#              module for 5.V; (2) and luainstr in (3) are 5.4's only
#
# bin/load_run (bench/load/load_run.c) is taken from --build, else from
# build/.  Rounds are interleaved: in each round, every build and the
# stock tool take turns in an order rotated from round to round.  Exits
# non-zero only on an error (a run that fails, or an instrumented run
# whose exit status differs from stock Lua's); a missed target is
# reported, never an error.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$top/build}
base=
runs=5
quick=0
lua=5.4
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1; runs=1; shift ;;
    --runs) runs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --lua) lua=$2; shift 2 ;;
    -h|--help) sed -n '2,37p' "$0"; exit 0 ;;
    *) echo "load.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
case $lua in
  5.1|5.2|5.3|5.4) ;;
  *) echo "load.sh: --lua $lua: 5.1, 5.2, 5.3 or 5.4 (LuaJIT: not measured here)" >&2; exit 2 ;;
esac

need() { # a tool this bench cannot do without
  if ! command -v "$1" > /dev/null; then
    echo "load.sh: $1 not found (Debian: ${2:-$1})" >&2
    if [[ ${CI:-} == 1 ]]; then exit 1; fi
    exit 77
  fi
}
need "lua$lua" "lua$lua"
need luac5.4 lua5.4
need lua5.4 lua5.4

runner=$build/bin/load_run
[[ -x $runner ]] || runner=$top/build/bin/load_run
if [[ ! -x $runner ]]; then
  echo "load.sh: load_run not found in $build/bin or build/bin (build its target)" >&2
  exit 2
fi
builds=("$build")
[[ -n $base ]] && builds+=("$base")
suffix=; [[ $lua == 5.4 ]] || suffix=$lua
for b in "${builds[@]}"; do
  for f in "bin/luaprof$suffix" bin/luainstr "lib/lua/$lua/luainstr.so"; do
    if [[ ! -e $b/$f ]]; then
      echo "load.sh: $b/$f not found (build it, or another --build/--base)" >&2
      exit 2
    fi
  done
done
nb=${#builds[@]}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
res=$tmp/results

# ---- inputs -----------------------------------------------------------------
if ! bash "$top/tests/corpus/list_corpus.sh" > "$tmp/corpus" 2> "$tmp/err"; then
  echo "load.sh: no corpus: $(head -n 1 "$tmp/err")" >&2
  if [[ ${CI:-} == 1 ]]; then exit 1; fi
  exit 77
fi
if [[ $quick == 1 ]]; then head -n 100 "$tmp/corpus" > "$tmp/c" && mv "$tmp/c" "$tmp/corpus"; fi
: > "$tmp/empty.lua"
for ((i = 0; i < (quick ? 10 : 40); i++)); do echo "$tmp/empty.lua"; done > "$tmp/empties"

# The limit of functions in one function: MAXARG_Bx, 2^17-1 in 5.4's
# lopcodes.h, 2^18-1 in 5.1-5.3's; the quick rejected chunk goes just past.
limit=262143; [[ $lua == 5.4 ]] && limit=131071
gens=(dense rejected data)
if [[ $quick == 1 ]]; then
  gen_args=("dense 2000" "tiny $((limit + 100))" "data 5000")
else
  gen_args=("dense 100000" "dense 500000" "data 215000")
fi
for ((g = 0; g < ${#gens[@]}; g++)); do
  # shellcheck disable=SC2086  # (kind and count: two words)
  lua5.4 "$here/load/gen.lua" ${gen_args[g]} > "$tmp/${gens[g]}.lua"
done
ncorpus=$(wc -l < "$tmp/corpus")
echo "bench/load.sh: Lua $lua, $runs round(s), $ncorpus corpus files$([[ $quick = 1 ]] && echo ', quick sizes')"
for ((k = 0; k < nb; k++)); do echo "  build $k: ${builds[k]}"; done

# load_run's lines for one measurement, tagged: sec=S what=W round=R cmd=...
tag() { sed "s/^/sec=$1 what=$2 round=$3 /" >> "$res"; }

# ---- the rounds -------------------------------------------------------------
for ((r = 0; r < runs; r++)); do
  # (1) in-process, each build's module in its own process
  for ((j = 0; j < nb; j++)); do
    k=$(((j + r) % nb))
    if ! line=$(LUA_CPATH="${builds[k]}/lib/lua/$lua/?.so" "lua$lua" "$here/load/inproc.lua" "$tmp/corpus" "$r" 2> "$tmp/err"); then
      echo "load.sh: ERROR: inproc.lua with ${builds[k]} failed:" >&2
      cat "$tmp/err" >&2
      exit 1
    fi
    echo "sec=inproc what=corpus round=$r cmd=$k $line" >> "$res"
  done

  # (2) and (3): the stock tool is cmd 0, build k is cmd k+1
  if [[ $lua == 5.4 ]]; then
    cli=(-- luac5.4 -p "{}")
    for b in "${builds[@]}"; do cli+=(-- "$b/bin/luainstr" "{}"); done
    "$runner" --each "$tmp/corpus" --rotate "$r" "${cli[@]}" | tag cli corpus "$r"
    "$runner" --each "$tmp/empties" --rotate "$r" "${cli[@]}" | tag cli empty "$r"
  fi
  for g in "${gens[@]}"; do
    x=$tmp/$g.lua
    run=(-- "lua$lua" "$x")
    for b in "${builds[@]}"; do run+=(-- "$b/bin/luaprof$suffix" -o /dev/null "$x"); done
    "$runner" --rotate "$r" "${run[@]}" | tag run "$g" "$r"
    if [[ $lua == 5.4 ]]; then
      cli=(-- luac5.4 -p "$x")
      for b in "${builds[@]}"; do cli+=(-- "$b/bin/luainstr" "$x"); done
      "$runner" --rotate "$r" "${cli[@]}" | tag cli "$g" "$r"
    fi
  done
  echo "  round $((r + 1))/$runs done" >&2
done
sizes=
for g in "${gens[@]}"; do sizes="$sizes $g=$(stat -c %s "$tmp/$g.lua")"; done

# ---- the tables -------------------------------------------------------------
. "$here/lib.sh"        # awk_median
awk -v nb="$nb" -v quick="$quick" -v lua="$lua" -v sizes="$sizes" -v gens="${gens[*]}" "$awk_median"'
function ms(ns) { return ns / 1e6 }
function tick(ok) { return quick ? "-" : ok ? "met" : "MISSED" }
{
  delete f
  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
  key = f["sec"] SUBSEP f["what"] SUBSEP f["cmd"]
  if (f["sec"] == "inproc") {
    ratio[f["cmd"]] = ratio[f["cmd"]] " " f["instr_s"] / f["plain_s"]
    mbs[f["cmd"]] = mbs[f["cmd"]] " " f["bytes"] / 1e6 / f["plain_s"]
    nfiles = f["files"]; nbytes = f["bytes"]; nskip = f["skipped"]
    next
  }
  cpu[key] = cpu[key] " " f["cpu_ns"]
  wall[key] = wall[key] " " f["wall_ns"]
  runs[key] = f["runs"]
  if (f["maxrss_kb"] + 0 > rss[key]) rss[key] = f["maxrss_kb"] + 0
  fails[key] = f["fails"]
  if (f["differ"] + 0 > 0 && f["what"] != "corpus") {
    printf "load.sh: ERROR: %s: build %d exits other than %s (in %d run(s))\n", f["what"], f["cmd"] - 1, \
      f["sec"] == "run" ? "lua" lua : "luac5.4 -p", f["differ"] > "/dev/stderr"
    bad = 1
  }
  differ[key] = f["differ"]
}
END {
  if (bad) exit 1
  if (quick) print "\n(quick sizes: too small for the targets, which are not judged: \"-\")"
  n = split(sizes, S, " "); for (i = 1; i <= n; i++) { split(S[i], kv, "="); size[kv[1]] = kv[2] }
  ng = split(gens, G, " ")

  printf "\n(1) In-process, corpus: %d files, %.2f MB (%d left out: binary or not compiled by lua%s)\n", nfiles, nbytes / 1e6, nskip, lua
  print  "    load() with the runtime'"'"'s loader / Lua'"'"'s load, CPU time, median of the rounds"
  printf "    %-8s %10s %15s %12s   %s\n", "build", "ratio", "(min-max)", "Lua MB/s", "target <= 1.35"
  for (k = 0; k < nb; k++) {
    r = median(ratio[k]); m = split(ratio[k], R, " "); lo = hi = R[1]
    for (i = 2; i <= m; i++) { if (R[i] < lo) lo = R[i]; if (R[i] > hi) hi = R[i] }
    printf "    %-8d %10.3f %15s %12.1f   %s\n", k, r, sprintf("(%.3f-%.3f)", lo, hi), median(mbs[k]), tick(r <= 1.35)
  }

  if (("cli" SUBSEP "corpus" SUBSEP 0) in cpu) {
    print ""
    print "(2) The command, corpus: luainstr FILE > /dev/null against luac5.4 -p FILE, a process per file"
    print "    CPU (user + system) and wall time, summed over the files, median of the rounds, ms;"
    print "    start-up: per run on an empty file; net: without start-up"
    print  "    (fails: files it refused; differ: files where it and luac5.4 -p disagree)"
    printf "    %-12s %9s %9s %9s %9s %8s %8s %6s %6s   %s\n", "", "CPU ms", "wall ms", "start ms", "net ms", "CPU x", "net x", "fails", "differ", "target (net) <= 1.35"
    for (c = 0; c <= nb; c++) {
      key = "cli" SUBSEP "corpus" SUBSEP c; ekey = "cli" SUBSEP "empty" SUBSEP c
      t = median(cpu[key]); st = median(cpu[ekey]) / runs[ekey]
      net[c] = t - st * runs[key]; tot[c] = t
      printf "    %-12s %9.1f %9.1f %9.3f %9.1f %8s %8s %6d %6d   %s\n", c ? "luainstr " c - 1 : "luac5.4 -p", \
        ms(t), ms(median(wall[key])), ms(st), ms(net[c]), \
        c ? sprintf("%.3f", t / tot[0]) : "", c ? sprintf("%.3f", net[c] / net[0]) : "", fails[key], differ[key], \
        c ? tick(net[c] / net[0] <= 1.35) : ""
    }
  }

  for (s = 0; s < 2; s++) {
    sec = s ? "cli" : "run"
    if (!((sec SUBSEP G[1] SUBSEP 0) in cpu)) continue
    print ""
    if (s) print "(3b) Generated chunks: luainstr X > /dev/null against luac5.4 -p X"
    else   printf "(3a) Generated chunks: luaprof%s -o /dev/null X against lua%s X (load and run)\n", lua == "5.4" ? "" : lua, lua
    print  "     CPU time (user + system) and peak RSS, median of the rounds (RSS: the largest);"
    print  "     MB/MB: peak RSS per MB of input; targets on dense: time <= 1.5x, peak <= 2x"
    printf "     %-9s %6s %-12s %9s %9s %8s %8s %7s %7s %6s  %s\n", "chunk", "MB", "", "CPU ms", "wall ms", "peak MB", "MB/MB", "time x", "peak x", "exit", "targets"
    for (g = 1; g <= ng; g++) {
      for (c = 0; c <= nb; c++) {
        key = sec SUBSEP G[g] SUBSEP c
        t = median(cpu[key]); m = rss[key] / 1024
        if (c == 0) { t0 = t; m0 = m }
        tg = ""
        if (c > 0 && G[g] == "dense") tg = sprintf("time %s, peak %s", tick(t / t0 <= 1.5), tick(m / m0 <= 2))
        printf "     %-9s %6s %-12s %9.1f %9.1f %8.1f %8.2f %7s %7s %6s  %s\n", c ? "" : G[g], \
          c ? "" : sprintf("%.1f", size[G[g]] / 1e6), \
          c ? (s ? "luainstr " : "luaprof ") c - 1 : (s ? "luac5.4 -p" : "lua" lua), \
          ms(t), ms(median(wall[key])), m, m / (size[G[g]] / 1048576), \
          c ? sprintf("%.2f", t / t0) : "", c ? sprintf("%.2f", m / m0) : "", \
          fails[key] + 0 ? "refused" : "ok", tg
      }
    }
  }
}' "$res"

# ---- (helper-reject) (4) a chunk Lua rejects after parsing ------------------
# gen.lua reject: the dense chunk with a `break` outside any loop at its
# end, which Lua finds only once it has compiled everything.  luaprof's
# loader stops its scan there (LI_EREJECT) and compiles the original once,
# so that Lua's rejection is all it adds to the scan: target luaprof <= Lua
# + the scan, the scan measured alone as `luainstr --lua 5.3 X` (the
# rewriter's verdict, nothing compiled: LI_EREJECT, exit 1).  Each figure
# is a whole process (start-up included: about 1 ms each).
rn=100000; [[ $quick == 1 ]] && rn=2000
lua5.4 "$here/load/gen.lua" reject "$rn" > "$tmp/reject.lua"
: > "$res.reject"
for ((r = 0; r < runs; r++)); do
  run=(-- "lua$lua" "$tmp/reject.lua")
  for b in "${builds[@]}"; do run+=(-- "$b/bin/luaprof$suffix" -o /dev/null "$tmp/reject.lua"); done
  for b in "${builds[@]}"; do run+=(-- "$b/bin/luainstr" --lua 5.3 -o /dev/null "$tmp/reject.lua"); done
  "$runner" --rotate "$r" "${run[@]}" >> "$res.reject"
done
awk -v nb="$nb" -v quick="$quick" -v lua="$lua" -v mb="$(stat -c %s "$tmp/reject.lua")" "$awk_median"'
{
  delete f
  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
  c = f["cmd"]; cpu[c] = cpu[c] " " f["cpu_ns"]; if (f["maxrss_kb"] + 0 > rss[c]) rss[c] = f["maxrss_kb"] + 0
  if (f["differ"] + 0 > 0 && c <= nb) bad = 1      # luaprof exits as lua does
  # every command rejects it, but a --base build older than LI_EREJECT,
  # whose luainstr --lua 5.3 writes the chunk out (its "scan" is a rewrite)
  if (f["fails"] + 0 != f["runs"] + 0 && c <= nb + 1) bad = 1
}
END {
  printf "\n(4) A chunk Lua rejects after parsing (gen.lua reject %s: %.1f MB, a break outside a loop at its end)\n", quick ? "2000" : "100000", mb / 1e6
  print  "    CPU time (user + system), median of the rounds, ms, and peak RSS; the scan: luainstr --lua 5.3 X"
  printf "    %-12s %9s %9s %9s %9s   %s\n", "build", "lua ms", "luaprof ms", "scan ms", "peak MB", "target luaprof <= lua + scan"
  t0 = median(cpu[0])
  for (k = 0; k < nb; k++) {
    tp = median(cpu[1 + k]); ts = median(cpu[1 + nb + k])
    printf "    %-12d %9.1f %9.1f %9.1f %9.1f   %s (%.2fx Lua)\n", k, t0 / 1e6, tp / 1e6, ts / 1e6, rss[1 + k] / 1024, \
      quick ? "-" : tp <= t0 + ts ? "met" : "MISSED", tp / t0
  }
  if (bad) { print "load.sh: ERROR: (4): a command accepted the chunk, or luaprof exited other than lua" lua > "/dev/stderr"; exit 1 }
}' "$res.reject"
