#!/usr/bin/env bash
# jit_traces.sh -- LuaJIT's trace counts for a program run plainly under
# luajit and under luaprofjit (the FFI probe), side by side: traces started,
# completed, aborted and blacklisted (bench/jit_traces.lua counts them),
# then every abort reason whose count differs.  Issue 20: the probes must
# not abort or blacklist traces.
#
#   bench/jit_traces.sh [--build DIR] [--luajit-bench DIR] [--sizes quick|param]
#                       [--probe ffi|api] [--runs N] [NAME...]
#
#   --build D         the build directory with bin/luaprofjit (default:
#                     $BUILD_DIR, else build/ at the top of the repo)
#   --luajit-bench D  LuaJIT's bench/ folder (default: $LUAJIT_BENCH, else
#                     ../shared/luajit-tests/bench from the repo); copied to
#                     a temporary folder, never run in place
#   --sizes S         quick (default: each program a fraction of a second)
#                     or param (LuaJIT's PARAM_x86.txt: seconds each)
#   --probe P         luaprofjit's probe (default ffi; api: the C probe,
#                     for comparison)
#   --runs N          runs of each program in each mode (default 3): the
#                     counts vary from run to run, even plainly (LuaJIT's
#                     hot counters are shared by bytecode addresses, which
#                     differ from run to run: ASLR), so the table gives each
#                     count's median and, for aborts, its range
#   NAME...           only these programs (LuaJIT's by file name without
#                     .lua, ours as ours/NAME, any other as a path to a .lua
#                     file, run without arguments); default: all
#
# Programs stock luajit cannot compile or run (ours written for Lua 5.3 and
# 5.4) are left out, and the table says so.
# A program whose run fails (plainly or profiled) is reported and counted;
# the exit status is 1 if any did, else 0 (differences are reported, not
# errors: the figures are for bench/README.md and docs/luajit.md).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$top/build}
ljbench=${LUAJIT_BENCH:-$top/../shared/luajit-tests/bench}
sizes=quick
probe=ffi
runs=3
only=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --luajit-bench) ljbench=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --probe) probe=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    -*) echo "jit_traces.sh: unknown option $1" >&2; exit 2 ;;
    *) only+=("$1"); shift ;;
  esac
done

luaprof=$build/bin/luaprofjit
command -v luajit >/dev/null || { echo "jit_traces.sh: no luajit" >&2; exit 2; }
[[ -x $luaprof ]] || { echo "jit_traces.sh: no $luaprof (build first)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Quick sizes: long enough for every hot loop to be compiled, short enough
# for the whole list in a minute or two.  Programs that read a FASTA file on
# stdin get one from fasta.lua, as PARAM_x86.txt says.
declare -A quick=(
  [array3d]=100 [binary-trees]=12 [chameneos]=1e5 [coroutine-ring]=1e6
  [euler14-bit]=1e6 [fannkuch]=9 [fasta]=1e5 [k-nucleotide]=FASTA
  [life]= [mandelbrot]=500 [mandelbrot-bit]=500 [md5]=500 [meteor]=
  [nbody]=1e5 [nsieve]=8 [nsieve-bit]=8 [nsieve-bit-fp]=8
  [partialsums]=1e6 [pidigits-nogmp]=500 [ray]=5 [recursive-ack]=8
  [recursive-fib]=27 [revcomp]=FASTA [scimark-fft]=2000 [scimark-lu]=200
  [scimark-sor]=2000 [scimark-sparse]=5e3 [series]=500 [spectral-norm]=300
  [sum-file]=SUMCOL)
declare -A ours_quick=(
  [binary_trees]=12 [nbody]=50000 [spectral_norm]=200 [fannkuch]="8 1"
  [richards]=5 [oo_sim]=40 [json]=100 [coroutine_pipeline]=30000 [fib]=27)

# The arguments and stdin of a LuaJIT bench program.
lj_args() {
  local name=$1 a
  if [[ $sizes == param ]]; then
    a=$(awk -v n="$name" '$1 == n { $1 = ""; print; exit }' "$tmp/lj/PARAM_x86.txt")
  else
    a=${quick[$name]-}
  fi
  echo "$a"
}

if [[ -d $ljbench ]]; then
  cp -r "$ljbench" "$tmp/lj"
  # inputs: a FASTA file (fasta.lua's output) and SUMCOL as PARAM says
  luajit "$tmp/lj/fasta.lua" 20000 > "$tmp/FASTA" 2>/dev/null || true
  if [[ $sizes == param ]]; then
    luajit "$tmp/lj/fasta.lua" 5000000 > "$tmp/FASTA" 2>/dev/null || true
  fi
  : > "$tmp/SUMCOL"
  for _ in $(seq 1 $([[ $sizes == param ]] && echo 5000 || echo 200)); do
    cat "$tmp/lj/SUMCOL_1.txt" >> "$tmp/SUMCOL"
  done
else
  echo "jit_traces.sh: no LuaJIT bench folder at $ljbench: ours only" >&2
fi

# run NAME FILE ARGS STDIN MODE I -> counts in $tmp/NAME.MODE.I
run_one() {
  local name=$1 file=$2 args=$3 input=$4 mode=$5 out
  local -a cmd
  out=$tmp/${name//\//_}.$mode.$6
  if [[ $mode == plain ]]; then
    cmd=(luajit "$here/jit_traces.lua" -o "$out" "$file")
  else
    cmd=(env LUAINSTR_PROBE="$probe" "$luaprof" -o /dev/null
         --exclude '*jit_traces.lua' "$here/jit_traces.lua" -o "$out" "$file")
  fi
  # shellcheck disable=SC2086
  (cd "$(dirname "$file")" && "${cmd[@]}" $args < "$input" > /dev/null 2> "$out.err") ||
    { echo "  $name ($mode): failed: $(tail -1 "$out.err")" >&2; return 1; }
}

failed=0
rows=()
diffs=()
skipped=()
# stat KEY FILE... -> "median min max" of KEY's counts
stat() {
  local k=$1; shift
  for f in "$@"; do
    awk -v k="$k" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$f"
  done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'
}
cell() {  # KEY: "plain/prof" medians, with ranges when asked
  local a b
  read -r a pa pb <<< "$(stat "$1" "${pf[@]}")"
  read -r b ja jb <<< "$(stat "$1" "${jf[@]}")"
  if [[ ${2-} == range ]]; then
    printf ' %11s' "$a/$b"
    printf ' %11s' "$pa-$pb/$ja-$jb"
  else
    printf ' %9s' "$a/$b"
  fi
}
compare() {
  local name=$1 file=$2 args=$3 input=$4 i base=$tmp/${1//\//_}
  if ! luajit -e "assert(loadfile('$file'))" 2> /dev/null; then
    skipped+=("$name"); return
  fi
  pf=() jf=()
  for ((i = 1; i <= runs; i++)); do
    if ! run_one "$name" "$file" "$args" "$input" plain "$i" 2>/dev/null; then
      skipped+=("$name"); return        # (plain luajit cannot run it)
    fi
    run_one "$name" "$file" "$args" "$input" prof "$i" || { failed=$((failed + 1)); return; }
    pf+=("$base.plain.$i") jf+=("$base.prof.$i")
  done
  local row; row=$(printf '%-22s' "$name")
  row+=$(cell started)$(cell completed)$(cell aborted range)$(cell blacklisted)
  row+=$(cell probe_started)
  rows+=("$row")
  # abort reasons whose medians differ
  local d
  d=$(awk -v n="$runs" 'FNR == 1 { f++ }
           $1 == "abort" { c = $2; $1 = ""; $2 = ""; sub(/^  /, "")
                           m = f <= n ? 1 : 2; s[$0, m] += c; r[$0] = 1 }
           END { for (k in r) if (s[k, 1] != s[k, 2])
                   printf "    %-46s %6.1f / %-6.1f\n", k, s[k, 1] / n, s[k, 2] / n }' \
         "${pf[@]}" "${jf[@]}")
  [[ -n $d ]] && diffs+=("  $name:"$'\n'"$d")
  return 0
}

want() {
  [[ ${#only[@]} -eq 0 ]] && return 0
  local x; for x in "${only[@]}"; do [[ $x == "$1" ]] && return 0; done
  return 1
}

if [[ -d $tmp/lj ]]; then
  for f in "$tmp"/lj/*.lua; do
    name=$(basename "$f" .lua)
    [[ $name == scimark_lib || $name == scimark-2010-12-20 ]] && continue
    want "$name" || continue
    args=$(lj_args "$name")
    input=/dev/null
    case $args in
      *FASTA*) input=$tmp/FASTA; args=${args//FASTA*/} ;;
      *SUMCOL*) input=$tmp/SUMCOL; args=${args//SUMCOL*/} ;;
    esac
    compare "$name" "$f" "$args" "$input"
  done
fi
for f in "$here"/programs/*.lua; do
  name=ours/$(basename "$f" .lua)
  want "$name" || continue
  args=${ours_quick[$(basename "$f" .lua)]-}
  [[ $sizes == param ]] && args=
  compare "$name" "$f" "$args" /dev/null
done

for x in "${only[@]}"; do
  [[ $x == *.lua && -f $x ]] && compare "$(basename "$x" .lua)" "$(cd "$(dirname "$x")" && pwd)/$(basename "$x")" "" /dev/null
done

echo "trace counts, luajit / luaprofjit (probe $probe, sizes $sizes, median of $runs runs)"
printf '%-22s %9s %9s %11s %11s %9s %9s\n' program started completed aborted "(range)" \
  blacklist inprobe
for r in "${rows[@]}"; do echo "$r"; done
if [[ ${#diffs[@]} -gt 0 ]]; then
  echo
  echo "abort reasons whose counts differ (mean a run, luajit / luaprofjit):"
  for d in "${diffs[@]}"; do echo "$d"; done
fi
if [[ ${#skipped[@]} -gt 0 ]]; then
  echo
  echo "not LuaJIT code (stock luajit cannot compile or run them): ${skipped[*]}"
fi
[[ $failed -eq 0 ]]
