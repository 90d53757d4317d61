#!/usr/bin/env bash
# run_jit.sh -- bench/run.sh --lua jit: what luaprofjit costs with LuaJIT's
# JIT on, beside what a hook profiler and LuaJIT's own sampler cost.  The
# programs: LuaJIT's bench (LUAJIT_BENCH, default ../shared/luajit-tests/
# bench beside the repository; copied, never edited; the ones of its
# PARAM_x86.txt) and ours (bench/programs/*.lua, through bench/jit_port.lua).
# Each run is one process timed from outside (wall and CPU time, bash's
# `time`), so every mode pays its own start-up, as a user would.  Modes:
#
#   luajit     plain `luajit PROG ARGS`: the baseline
#   prof       `luaprofjit -o REPORT PROG ARGS`: the full profiler, the
#              default (text) report written to a file
#   hook       bench_hostjit hook: the leanest call/return hook profiler
#              (lua_sethook, a table keyed by function, a stack of entry
#              times on the profiler's clock): what every hook profiler pays
#   jitp       `luajit -jp=f,/dev/null`: LuaJIT's sampler (jit.p) at its
#              default interval (10 ms), its report discarded
#   joff       `luajit -joff`: the interpreter alone
#   prof-joff  luaprofjit with the JIT off before the program loads
#              (-joff, or -e "jit.off()" where luaprofjit has no -j)
#
#   bench/run.sh --lua jit [--quick] [--runs N] [--build DIR]
#                [--modes "luajit prof ..."] [--progs "NAME ..."] [--save F]
#
#   --quick    1 round at the sizes of LuaJIT's TEST_md5sum.txt (outputs
#              checked against its md5 sums) or small ones, ours at their
#              quick sizes (checksums checked against lua5.4 running the
#              original, when lua5.4 is installed): outputs only, no
#              figures worth reading; what ctest runs
#   --runs N   rounds (default 5)
#   --build D  the build with bin/luaprofjit and bin/bench_hostjit
#   --modes M  a subset of the modes (luajit always runs: the baseline)
#   --progs P  a subset of the programs (LuaJIT's names, ours as our/NAME)
#   --save F   keep the result lines (one per run) in F
#   --from F   no runs: the tables of the result lines in F (a --save)
#
# Rounds are interleaved: for each round, for each program, every mode in
# an order rotated from program to program and round to round.  Medians
# per program and mode; ratios of the medians.  Per call: (median of a
# profiled mode - median of its baseline) / the calls luaprofjit counted
# (its report's probes / 2).  Exits non-zero only on an error (a run that
# fails, outputs that differ between modes or runs, or from the known
# answer); a missed target is reported, never an error.  Exit 77 (skipped)
# without luajit (LUAJIT: the command, default luajit) or the LuaJIT bench.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$top/build}
ljbench=${LUAJIT_BENCH:-$top/../shared/luajit-tests/bench}
runs=5
quick=0
modes_opt=
progs_opt=
save=
from=
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1; runs=1; shift ;;
    --runs) runs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --modes) modes_opt=$2; shift 2 ;;
    --progs) progs_opt=$2; shift 2 ;;
    --save) save=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    --lua) [[ $2 == jit ]] || { echo "run_jit.sh: --lua $2: this is the LuaJIT bench" >&2; exit 2; }; shift 2 ;;
    -h|--help) sed -n '2,44p' "$0"; exit 0 ;;
    *) echo "run_jit.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

luajit=${LUAJIT:-luajit}
prof=$build/bin/luaprofjit
hosts=$build/bin/bench_hostjit
for f in "$prof" "$hosts"; do
  [[ -x $f ]] || { echo "run_jit.sh: $f not found (build with jit in LUAINSTR_LUA_VERSIONS, or --build DIR)" >&2; exit 2; }
done
# (what the build does not give: skipped, exit 77, as ctest is told)
command -v "$luajit" >/dev/null || { echo "run_jit.sh: skipped: $luajit not found (Debian: luajit)"; exit 77; }
[[ -f $ljbench/PARAM_x86.txt ]] || { echo "run_jit.sh: skipped: no LuaJIT bench in $ljbench (set LUAJIT_BENCH)"; exit 77; }

. "$here/lib.sh"        # progs (ours), quick_args, awk_median

# ---- the programs and their arguments --------------------------------------
# LuaJIT's: PARAM_x86.txt's list (its sizes run for seconds each), at sizes
# where plain luajit takes 0.2-0.5 s on an x86-64 of 2020 or so.  "<FILE"
# is the program's stdin, made before the first round: FASTA_N by fasta.lua
# N, SUMCOL_N by N copies of SUMCOL_1.txt, as LuaJIT's own scripts make them.
declare -A lj_args=(
  [array3d]="300" [binary-trees]="14" [chameneos]="1e6" [coroutine-ring]="5e6"
  [euler14-bit]="5e6" [fannkuch]="10" [fasta]="1e6"
  [k-nucleotide]="<FASTA_500000" [life]="" [mandelbrot]="2000"
  [mandelbrot-bit]="2000" [md5]="6000" [nbody]="2e6" [nsieve]="9"
  [nsieve-bit]="11" [nsieve-bit-fp]="9" [partialsums]="6e6"
  [pidigits-nogmp]="2000" [ray]="5 128" [recursive-ack]="10"
  [recursive-fib]="37" [revcomp]="<FASTA_2500000" [scimark-fft]="5000"
  [scimark-lu]="500" [scimark-sor]="5000" [scimark-sparse]="15e3"
  [series]="5000" [spectral-norm]="2000" [sum-file]="<SUMCOL_5000")
# --quick: TEST_md5sum.txt's size where it has the program (its name there
# in md5_name), else these.
declare -A lj_quick=(
  [array3d]="20" [coroutine-ring]="1e4" [euler14-bit]="1e4" [life]=""
  [md5]="10" [ray]="2 16" [recursive-ack]="5" [recursive-fib]="20"
  [scimark-fft]="20" [scimark-lu]="5" [scimark-sor]="20" [scimark-sparse]="20"
  [series]="10")
declare -A md5_name=(
  [binary-trees]=binarytrees [chameneos]=chameneos [fannkuch]=fannkuch
  [fasta]=fasta [k-nucleotide]=knucleotide [mandelbrot]=mandelbrot
  [mandelbrot-bit]=mandelbrot [nbody]=nbody [nsieve]=nsieve
  [nsieve-bit]=nsievebits [nsieve-bit-fp]=nsievebits [partialsums]=partialsums
  [pidigits-nogmp]=pidigits [revcomp]=revcomp [spectral-norm]=spectralnorm
  [sum-file]=sumfile)
# Ours, where the programs' own defaults are not in 0.2-0.5 s on LuaJIT.
declare -A our_args=(
  [nbody]="1000000" [spectral_norm]="2000" [json]="400"
  [coroutine_pipeline]="150000" [fib]="35")
# Fib-like: nothing but tiny calls (the 2.0x target); the rest: 1.3x.
fiblike=" recursive-fib recursive-ack our/fib "

tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-benchjit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/lj" "$tmp/our" "$tmp/in"
cp -R "$ljbench"/. "$tmp/lj/"

# The known answers: TEST_md5sum.txt's name, size and sum.
declare -A md5_args=() md5_sum=()
while read -r name size sum rest; do
  [[ -n ${sum:-} ]] || continue
  md5_args[$name]=$size; md5_sum[$name]=$sum
  [[ ${rest:-} == "<"* ]] && md5_args[$name]=$rest
done < "$ljbench/TEST_md5sum.txt"

# Every program: id, directory, script, argument words (and "<FILE").
ids=()
declare -A dir_of=() script_of=() args_of=() want_sum=()
while read -r name _; do
  [[ -n $name && -f $ljbench/$name.lua ]] || continue
  ids+=("$name"); dir_of[$name]=$tmp/lj; script_of[$name]=$name.lua
  if [[ $quick == 0 ]]; then args_of[$name]=${lj_args[$name]-}
  elif [[ -n ${md5_name[$name]:-} && -n ${md5_args[${md5_name[$name]}]:-} ]]; then
    args_of[$name]=${md5_args[${md5_name[$name]}]}
    want_sum[$name]=${md5_sum[${md5_name[$name]}]}
  else args_of[$name]=${lj_quick[$name]-}; fi
done < "$ljbench/PARAM_x86.txt"
for p in "${progs[@]}"; do
  id=our/$p
  "$luajit" "$here/jit_port.lua" < "$here/programs/$p.lua" > "$tmp/our/$p.lua"
  ids+=("$id"); dir_of[$id]=$tmp/our; script_of[$id]=$p.lua
  if [[ $quick == 1 ]]; then args_of[$id]=${quick_args[$p]}; else args_of[$id]=${our_args[$p]-}; fi
done
if [[ -n $progs_opt ]]; then
  kept=()
  for id in "${ids[@]}"; do [[ " $progs_opt " == *" $id "* ]] && kept+=("$id"); done
  ids=("${kept[@]}")
  [[ ${#ids[@]} -gt 0 ]] || { echo "run_jit.sh: --progs $progs_opt: no such program" >&2; exit 2; }
fi

# The inputs the programs' arguments name.
for id in "${ids[@]}"; do
  in=${args_of[$id]}
  [[ $in == "<"* ]] || continue
  f=${in#<}
  [[ -f $tmp/in/$f ]] && continue
  case $f in
    FASTA_*) (cd "$tmp/lj" && "$luajit" fasta.lua "${f#FASTA_}") > "$tmp/in/$f" ;;
    SUMCOL_*) for ((i = 0; i < ${f#SUMCOL_}; i++)); do cat "$tmp/lj/SUMCOL_1.txt"; done > "$tmp/in/$f" ;;
    *) echo "run_jit.sh: ERROR: no way to make the input $f" >&2; exit 1 ;;
  esac
done

# ---- the modes ---------------------------------------------------------------
all_modes=(luajit prof hook jitp joff prof-joff)
if [[ -n $modes_opt ]]; then
  modes=(luajit)
  for m in $modes_opt; do
    [[ " ${all_modes[*]} " == *" $m "* ]] || { echo "run_jit.sh: unknown mode $m" >&2; exit 2; }
    [[ $m == luajit ]] || modes+=("$m")
  done
else
  modes=("${all_modes[@]}")
fi
# luaprofjit with the JIT off: its -joff where it has LuaJIT's -j options
if "$prof" -joff -e "" >/dev/null 2>&1; then joff_prof=(-joff); else joff_prof=(-e "jit.off()"); fi

# cmd_of MODE: the command line of MODE, before the script (in cmd)
cmd_of() {
  case $1 in
    luajit) cmd=("$luajit") ;;
    prof) cmd=("$prof" -o "$tmp/report") ;;
    hook) cmd=(env BENCH_STDOUT=program "$hosts" hook) ;;
    # shellcheck disable=SC2054  # (-jp=f,/dev/null is one argument)
    jitp) cmd=("$luajit" -jp=f,/dev/null) ;;
    joff) cmd=("$luajit" -joff) ;;
    prof-joff) cmd=("$prof" -o "$tmp/report" "${joff_prof[@]}") ;;
  esac
}

# The output's sum, with what is not the program's answer taken out:
# series.lua prints its own timing.
out_sum() {
  sed -E 's/^(size [0-9]+), [0-9.]+ s, ([0-9.]+|inf|-?nan) iterations\/s$/\1/' "$1" | md5sum | cut -c1-32
}

results=$tmp/results
: > "$results"
if [[ -n $from ]]; then cp "$from" "$results"; runs=0; fi
TIMEFORMAT='%3R %3U %3S'
[[ -n $from ]] || echo "bench/run.sh --lua jit: ${#ids[@]} programs x ${#modes[@]} modes x $runs run(s)$([[ $quick == 1 ]] && echo ', quick sizes, outputs only'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < runs; r++)); do
  for ((p = 0; p < ${#ids[@]}; p++)); do
    id=${ids[p]}
    read -r -a args <<< "${args_of[$id]}"
    stdin=/dev/null
    if [[ ${#args[@]} -gt 0 && ${args[0]} == "<"* ]]; then stdin=$tmp/in/${args[0]#<}; args=(); fi
    for ((k = 0; k < ${#modes[@]}; k++)); do
      mode=${modes[(k + r + p) % ${#modes[@]}]}
      cmd_of "$mode"
      rm -f "$tmp/report"
      if ! { time (cd "${dir_of[$id]}" && "${cmd[@]}" "${script_of[$id]}" "${args[@]}" \
                    < "$stdin" > "$tmp/out" 2> "$tmp/err"); } 2> "$tmp/time"; then
        echo "run_jit.sh: ERROR: $mode $id failed:" >&2
        tail -n 20 "$tmp/err" >&2
        exit 1
      fi
      read -r wall user sys < "$tmp/time"
      calls=; probe=
      if [[ -f $tmp/report ]]; then
        # "luainstr profile: ..., N probes, ...[, probe through the C API]"
        # (the text summary names the probe only when no FFI probe ran)
        calls=$(sed -n '1s/.* \([0-9][0-9]*\) probes.*/\1/p' "$tmp/report")
        probe=ffi
        grep -q '^luainstr profile: .*probe through the C API' "$tmp/report" && probe=api
      fi
      echo "run=$r prog=$id mode=$mode wall=$wall cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') sum=$(out_sum "$tmp/out") probes=${calls:-0} probe=${probe:-}" >> "$results"
    done
  done
  echo "  round $((r + 1))/$runs done" >&2
done

[[ -z $save ]] || cp "$results" "$save"
[[ -n $from ]] || echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- outputs: the same in every mode and run, and the known answers ----------
status=0
for id in "${ids[@]}"; do
  sums=$(awk -v id="$id" '$2 == "prog=" id { sub("sum=", "", $6); print $6 }' "$results" | sort -u)
  if [[ $(wc -l <<< "$sums") != 1 ]]; then
    echo "run_jit.sh: ERROR: the outputs of $id differ between modes or runs:" >&2
    awk -v id="$id" '$2 == "prog=" id { print "  " $1, $3, $6 }' "$results" >&2
    status=1
  elif [[ -n ${want_sum[$id]:-} && $sums != "${want_sum[$id]}" ]]; then
    echo "run_jit.sh: ERROR: $id: output $sums, TEST_md5sum.txt says ${want_sum[$id]}" >&2
    status=1
  fi
done
if [[ $quick == 1 ]] && command -v lua5.4 >/dev/null; then
  # the ports against the originals: the same checksum line
  for id in "${ids[@]}"; do
    [[ $id == our/* ]] || continue
    p=${id#our/}
    read -r -a args <<< "${args_of[$id]}"
    a=$(cd "$here/programs" && lua5.4 "$p.lua" "${args[@]}" | grep '^checksum ')
    b=$(cd "$tmp/our" && "$luajit" "$p.lua" "${args[@]}" | grep '^checksum ')
    if [[ $a != "$b" ]]; then
      echo "run_jit.sh: ERROR: the LuaJIT port of $p says '$b', lua5.4 '$a'" >&2
      status=1
    fi
  done
fi
[[ $status == 0 ]] || exit "$status"
nk=$(grep -c . <<< "$(for id in "${ids[@]}"; do [[ -n ${want_sum[$id]:-} ]] && echo "$id"; done)" || true)
echo "outputs: the same in every mode and run$([[ $quick == 1 ]] && echo "; $nk equal to TEST_md5sum.txt's sums; ours as lua5.4 computes them")"
if [[ $quick == 1 ]]; then exit 0; fi

# ---- the tables ----------------------------------------------------------------
# which probe ran (ffi: some FFI probe; api: only the C probe), per mode
for m in prof prof-joff; do
  kinds=$(awk -v m="mode=$m" '$3 == m { sub("probe=", "", $8); n[$8]++ } END { for (k in n) printf " %s (%d runs)", k, n[k] }' "$results")
  [[ -z $kinds ]] || echo "luaprofjit's probe, $m:$kinds"
done
awk -v ids="${ids[*]}" -v modes=" ${modes[*]} " -v fiblike="$fiblike" "$awk_median"'
{
  delete f
  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
  key = f["prog"] SUBSEP f["mode"]
  wall[key] = wall[key] " " f["wall"]; cpu[key] = cpu[key] " " f["cpu"]
  if (f["probes"] + 0 > 0) calls[key] = f["probes"] / 2
}
function has(m) { return index(modes, " " m " ") > 0 }
function med(p, m) { return median(wall[p SUBSEP m]) }
function cmed(p, m) { return median(cpu[p SUBSEP m]) }
function ratio(p, m, b) { return has(m) && med(p, b) > 0 ? sprintf("%.2f", med(p, m) / med(p, b)) : "-" }
function percall(p, m, b) {   # ns per call: (m - b) / the calls m counted
  # (where the calls are few, the difference is noise: not shown)
  if (!has(m) || !(p SUBSEP m in calls) || calls[p SUBSEP m] < 1e6) return "-"
  return sprintf("%.1f", (med(p, m) - med(p, b)) * 1e9 / calls[p SUBSEP m])
}
function cpercall(p, m, b) {  # the same in CPU time (user + sys)
  if (!has(m) || !(p SUBSEP m in calls) || calls[p SUBSEP m] < 1e6) return "-"
  return sprintf("%.1f", (cmed(p, m) - cmed(p, b)) * 1e9 / calls[p SUBSEP m])
}
function geo(list, n,   a, i, s) {
  n = split(list, a, " "); s = 0
  for (i = 1; i <= n; i++) s += log(a[i])
  return n ? sprintf("%.3f", exp(s / n)) : "-"
}
END {
  n = split(ids, P, " ")
  print ""
  print "JIT on: wall time, median s; ratios of the medians to luajit; per call: (prof - luajit) / calls"
  printf "| %-22s | %8s | %7s | %11s | %11s | %12s | %7s | %7s | %15s | %11s |\n", "program", "luajit s", "prof s", \
    "prof/luajit", "hook/luajit", "jit.p/luajit", "calls M", "ns/call", "cpu prof/luajit", "cpu ns/call"
  printf "|%s|%s:|%s:|%s:|%s:|%s:|%s:|%s:|%s:|%s:|\n", "---", "---", "---", "---", "---", "---", "---", "---", "---", "---"
  for (i = 1; i <= n; i++) {
    p = P[i]
    c = (p SUBSEP "prof") in calls ? sprintf("%.2f", calls[p SUBSEP "prof"] / 1e6) : "-"
    printf "| %-22s | %8.3f | %7s | %11s | %11s | %12s | %7s | %7s | %15s | %11s |\n", p, med(p, "luajit"), \
      has("prof") ? sprintf("%.3f", med(p, "prof")) : "-", ratio(p, "prof", "luajit"), \
      ratio(p, "hook", "luajit"), ratio(p, "jitp", "luajit"), c, percall(p, "prof", "luajit"), \
      (has("prof") && cmed(p, "luajit") > 0) ? sprintf("%.2f", cmed(p, "prof") / cmed(p, "luajit")) : "-", \
      cpercall(p, "prof", "luajit")
    if (index(fiblike, " " p " ")) {
      r = ratio(p, "prof", "luajit")
      fl = fl sprintf(" %s %s", p, r); if (r != "-" && r + 0 > 2.0) flmiss = 1
      continue
    }
    if (has("prof")) { gp = gp " " med(p, "prof") / med(p, "luajit"); gc = gc " " cmed(p, "prof") / cmed(p, "luajit") }
    if (has("hook")) gh = gh " " med(p, "hook") / med(p, "luajit")
    if (has("jitp")) gj = gj " " med(p, "jitp") / med(p, "luajit")
    nrest++
  }
  if (has("joff") || has("prof-joff")) {
    print ""
    print "JIT off (-joff): wall time, median s; per call: (prof-joff - joff) / calls"
    printf "| %-22s | %6s | %11s | %14s | %7s | %11s | %16s | %11s |\n", "program", "joff s", "prof-joff s", \
      "prof-joff/joff", "ns/call", "joff/luajit", "prof-joff/luajit", "cpu ns/call"
    printf "|%s|%s:|%s:|%s:|%s:|%s:|%s:|%s:|\n", "---", "---", "---", "---", "---", "---", "---", "---"
    for (i = 1; i <= n; i++) {
      p = P[i]
      printf "| %-22s | %6s | %11s | %14s | %7s | %11s | %16s | %11s |\n", p, \
        has("joff") ? sprintf("%.3f", med(p, "joff")) : "-", \
        has("prof-joff") ? sprintf("%.3f", med(p, "prof-joff")) : "-", \
        has("joff") ? ratio(p, "prof-joff", "joff") : "-", \
        has("joff") ? percall(p, "prof-joff", "joff") : "-", ratio(p, "joff", "luajit"), \
        ratio(p, "prof-joff", "luajit"), has("joff") ? cpercall(p, "prof-joff", "joff") : "-"
      if (!index(fiblike, " " p " ") && has("joff") && has("prof-joff")) go = go " " med(p, "prof-joff") / med(p, "joff")
    }
  }
  print ""
  print "Targets (issue 20; luaprofjit/luajit, JIT on)"
  printf "  fib-like at most 2.0x: %s%s\n", fl == "" ? "(none run)" : flmiss ? "MISSED:" : "MET:", fl
  printf "  the rest (%d programs), geometric mean at most 1.3x: %s (%s); CPU time %s\n", nrest, \
    gp == "" ? "-" : geo(gp) + 0 <= 1.3 ? "MET" : "MISSED", geo(gp), geo(gc)
  printf "  beside it, the same geometric means: hook/luajit %s, jit.p/luajit %s, JIT off prof-joff/joff %s\n", \
    geo(gh), geo(gj), geo(go)
}' "$results"
