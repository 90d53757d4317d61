#!/usr/bin/env bash
# phases.sh -- how right the profiler's times are on call-heavy code (issue
# 32): bench/phases/phases.lua, phases of known shape (tiny calls, nested
# calls, recursion, methods, closures, no calls, builtins, 1 us bodies,
# coroutines), each a global function phase_KIND called once a round.
# The truth is a plain run that reads a C clock (bench/phases/clock.c)
# around each phase call; the profiled figure is luaprof's total_ns for
# phase_KIND in its json report, and beside it what the hook profiler of
# bench_host reports.  Per Lua, per condition, N pairs of runs (plain,
# luaprof, hook: the three in an order that turns from pair to pair); the
# table (bench/phases/table.py) gives per phase the true time, the ratio
# profiled/true raw and normalised by the call-free phases of the same
# run, and how much slower the phase ran under each profiler.
#
#   bench/phases.sh [--quick] [--pairs N] [--rounds R] [--scale S]
#                   [--lua "5.4 5.1 jit"] [--busy | --both] [--build DIR]
#                   [--keep DIR] [--inproc [--count-small]]
#
#   --quick    1 pair, 2 rounds at scale 0.25, on 5.4 unless --lua says:
#              it ran and made the table, nothing about the figures (what
#              ctest runs)
#   --pairs N  pairs of runs per Lua and condition (default 5)
#   --rounds R rounds in each run (default 5): every phase once a round
#   --scale S  work per phase call, a factor (default 1: 20-60 ms a phase
#              on Lua 5.4 here)
#   --lua L    the Luas, of 5.4 5.1 jit (default all three; LuaJIT with its
#              JIT on); a Lua whose binaries or headers are missing is
#              skipped, and it says what to build
#   --busy     with two busy spinner processes running beside the runs
#              (killed at exit, whatever happens)
#   --both     idle, then busy, a table each
#   --build D  the build with bin/luaprof[5.1|jit] and bin/bench_host[5.1|jit]
#              (default: $BUILD_DIR, else build/ at the top of the repo)
#   --keep D   keep every run's output in D (else a temporary folder)
#   --inproc   the truth measured in the profiled process itself: N runs of
#              bench/phases/inproc.lua, which calls each phase of a copy
#              luaprof instruments and of one it leaves alone in turn (no
#              hook, no normalising: bench/phases/inproc.py's table)
#   --count-small  with --inproc: runs with luaprof --count-small too, in
#              turn with the default's, and a second table for them
#
# The plain run is bench_host's plain mode: the same Lua library (Debian's
# shared liblua) as luaprof and the hook, not the stock interpreter, which
# is linked statically.  Exits non-zero only on an error (a run that fails,
# checksums that differ between modes, a phase missing from a report);
# the figures are reported, never judged.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$top/build}
pairs=5
rounds=5
scale=1
luas="5.4 5.1 jit"
lua_opt=
conds=idle
keep=
quick=0
inproc=0
count=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1; shift ;;
    --pairs) pairs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --lua) luas=$2 lua_opt=$2; shift 2 ;;
    --busy) conds=busy; shift ;;
    --both) conds="idle busy"; shift ;;
    --build) build=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --inproc) inproc=1; shift ;;
    --count-small) count=1; shift ;;
    -h|--help) sed -n '2,45p' "$0"; exit 0 ;;
    *) echo "phases.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ $quick == 1 ]]; then pairs=1 rounds=2 scale=0.25 luas=${lua_opt:-5.4}; fi
command -v python3 >/dev/null || { echo "phases.sh: needs python3" >&2; exit 2; }
command -v cc >/dev/null || { echo "phases.sh: needs a C compiler (cc)" >&2; exit 2; }

spinners=()
tmp=$(mktemp -d)
stop_spinners() {
  local pid
  for pid in "${spinners[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${spinners[@]}"; do wait "$pid" 2>/dev/null || true; done
  spinners=()
}
trap 'stop_spinners; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
out=${keep:-$tmp/runs}
mkdir -p "$out"

# suffix of the binaries, pkg-config name of the headers, per Lua
declare -A suffix=([5.4]="" [5.1]=5.1 [jit]=jit)
declare -A pcname=([5.4]=lua5.4 [5.1]=lua5.1 [jit]=luajit)
declare -A target=([5.4]="luaprof bench_host" [5.1]="luaprof_51 bench_host_51"
                   [jit]="luaprof_jit bench_host_jit")

# The clock module for Lua $1 into $tmp, from its -dev package's headers
# (no library linked: the host that opens it has Lua's symbols).
build_clock() {
  local flags
  flags=$(pkg-config --cflags "${pcname[$1]}" 2>/dev/null) || return 1
  # shellcheck disable=SC2086  # (several flags)
  cc -O2 -shared -fPIC $flags -o "$tmp/clock-$1.so" "$here/phases/clock.c"
}

# One run: $1 mode (plain, prof, hook), $2 folder; the program's output
# (and luaprof's report) go there.
run_one() {
  local mode=$1 dir=$2 args=("$here/phases/phases.lua" "$clock" "$rounds" "$scale")
  case $mode in
    plain) "$host" plain "${args[@]}" > "$dir/plain.out" 2> "$dir/plain.err" ;;
    hook) "$host" hook "${args[@]}" > "$dir/hook.out" 2> "$dir/hook.err" ;;
    prof) "$prof" -f json -o "$dir/prof.json" "${args[@]}" > "$dir/prof.out" 2> "$dir/prof.err" ;;
    inproc) "$prof" --exclude phases-plain -f json -o "$dir/prof.json" "$here/phases/inproc.lua" \
              "$clock" "$rounds" "$scale" "$here/phases/phases.lua" \
              > "$dir/inproc.out" 2> "$dir/inproc.err" ;;
    inproc-count) "$prof" --count-small --exclude phases-plain -f json -o "$dir/prof-count.json" \
              "$here/phases/inproc.lua" "$clock" "$rounds" "$scale" "$here/phases/phases.lua" \
              > "$dir/inproc-count.out" 2> "$dir/inproc-count.err" ;;
  esac || {
    echo "phases.sh: ERROR: the $mode run failed ($dir):" >&2
    cat "$dir/$mode.err" >&2
    exit 1
  }
}

ran=0
modes=(plain prof hook)
if [[ $inproc == 1 ]]; then modes=(inproc); fi
if [[ $inproc == 1 && $count == 1 ]]; then modes=(inproc inproc-count); fi
for lua in $luas; do
  [[ -n ${suffix[$lua]+x} ]] || { echo "phases.sh: --lua $lua: one of 5.4 5.1 jit" >&2; exit 2; }
  prof=$build/bin/luaprof${suffix[$lua]}
  host=$build/bin/bench_host${suffix[$lua]}
  if [[ ! -x $prof || ! -x $host ]]; then
    echo "phases.sh: Lua $lua skipped: $prof or $host not built" \
         "(cmake --build $build --target ${target[$lua]})" >&2
    continue
  fi
  if ! build_clock "$lua"; then
    echo "phases.sh: Lua $lua skipped: no headers for the clock module" \
         "(pkg-config ${pcname[$lua]}: Debian's ${pcname[$lua]/lua/liblua}-dev)" >&2
    continue
  fi
  clock=$tmp/clock-$lua.so
  for cond in $conds; do
    dir=$out/$lua-$cond
    if [[ -e $dir ]]; then
      echo "phases.sh: $dir exists (an earlier --keep?): its runs would mix with these" >&2
      exit 2
    fi
    mkdir -p "$dir"
    if [[ $cond == busy ]]; then
      # two spinners (the machine has 2 cores here), killed below or at exit
      for _ in 1 2; do ( while :; do :; done ) & spinners+=($!); done
    fi
    load0=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "phases.sh: Lua $lua, $cond: $pairs pair(s) x $rounds round(s), scale $scale" >&2
    for ((p = 0; p < pairs; p++)); do
      mkdir -p "$dir/$p"
      for ((k = 0; k < ${#modes[@]}; k++)); do
        run_one "${modes[(k + p) % ${#modes[@]}]}" "$dir/$p"
      done
    done
    load1=$(cut -d' ' -f1-3 /proc/loadavg)
    stop_spinners
    title="Lua $lua, $cond"
    if [[ $lua == jit ]]; then title="LuaJIT (JIT on), $cond"; fi
    if [[ $cond == busy ]]; then title="$title (2 busy spinners beside)"; fi
    if [[ $scale != 1 ]]; then title="$title, scale $scale"; fi
    if [[ $inproc == 1 ]]; then
      python3 "$here/phases/inproc.py" "$dir" "$title, truth in the same process" > "$dir/table.md"
      if [[ $count == 1 ]]; then
        echo >> "$dir/table.md"
        python3 "$here/phases/inproc.py" "$dir" "$title, truth in the same process, --count-small" \
          -count >> "$dir/table.md"
      fi
    else
      python3 "$here/phases/table.py" "$dir" "$title" > "$dir/table.md"
    fi
    if [[ $lua == jit && $inproc == 0 ]]; then
      echo "hook on LuaJIT: compiled code calls the hook on returns but not on calls, so" \
           "its stack of entry times falls out of step: its columns are not measurements" \
           "there (bench/README.md)" >> "$dir/table.md"
    fi
    cat "$dir/table.md"
    echo "load average before: $load0; after: $load1"
    echo
    ran=$((ran + 1))
  done
done
if [[ $ran == 0 ]]; then
  echo "phases.sh: ERROR: nothing ran: build first (docs/building.md), e.g." >&2
  [[ -f $build/CMakeCache.txt ]] ||
    echo "  cmake -S $top -B $build -DCMAKE_BUILD_TYPE=RelWithDebInfo \$(bash scripts/lua-internals.sh)" >&2
  echo "  cmake --build $build --target luaprof bench_host" >&2
  exit 2
fi
