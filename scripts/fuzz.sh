#!/usr/bin/env bash
# fuzz.sh [SECONDS] -- build the libFuzzer targets of tests/fuzz/ into
# build-fuzz/ (clang, -fsanitize=fuzzer,address,undefined), make their seed
# corpora from the Debian corpus (tests/corpus/list_corpus.sh) and run each
# target for SECONDS (default 60), as many at a time as there are cores
# (FUZZ_JOBS).  Prints the
# executions of each target; exits 1 if any target found a crash, a leak,
# undefined behaviour, a timeout or a failed property (the input is saved
# under build-fuzz/fuzz/artifacts/ and the log beside it).
#
# Corpora grow across runs in build-fuzz/fuzz/corpus/TARGET (seeds are
# read from build-fuzz/fuzz/seeds/TARGET and never written).  Inputs that
# hit the known depth limit (docs/limits.md) are kept in
# build-fuzz/fuzz/depth/ and counted, not failed; LI_FUZZ_DEPTH_STRICT=1
# fails them too.  FUZZ_TARGETS="fuzz_report" runs only some targets.
# fuzz_readjson (the json report's reader) runs for a third of SECONDS:
# CI's time is short, and fuzz_report reads back every report it writes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || {
  echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2; }
targets=(${FUZZ_TARGETS:-fuzz_rewrite fuzz_factory fuzz_report fuzz_heapread fuzz_heap fuzz_live fuzz_readjson fuzz_figures})

bash scripts/deps.sh
cc=$(command -v clang-14 || command -v clang) || {
  echo "fuzz.sh: clang not found (scripts/deps.sh installs clang-14)" >&2; exit 1; }
b=build-fuzz
lua_src=$(bash scripts/lua-source.sh)   # Lua's headers: the probe's direct path
CC=$cc cmake -S . -B $b -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLUAINSTR_FUZZ=ON -DBUILD_TESTING=OFF -DLUAINSTR_LUA_INTERNALS="$lua_src" >/dev/null
cmake --build $b -j2 --target fuzz

# --- seeds (generated, never committed) ------------------------------------
w=$b/fuzz
mkdir -p $w/seeds $w/artifacts $w/depth $w/logs
if [[ ! -f $w/seeds/.done ]]; then
  rm -rf $w/seeds && mkdir -p $w/seeds/fuzz_rewrite $w/seeds/fuzz_factory \
                             $w/seeds/fuzz_report
  mapfile -t files < <(bash tests/corpus/list_corpus.sh)
  n=0
  for f in "${files[@]}" tests/behaviour/lua54/*.lua tests/fuzz/regressions/*; do
    [[ -f $f ]] || continue
    # small files only: the target compiles each input four times
    if [[ $(stat -c %s "$f") -le 8192 ]]; then
      cp "$f" "$w/seeds/fuzz_rewrite/seed-$n"; n=$((n + 1))
    fi
  done
  echo "fuzz.sh: $n rewriter seeds"
  $b/bin/fuzz_seeds $w/seeds/fuzz_factory "${files[@]}"
  for i in $(seq 1 16); do
    head -c $((i * 64)) /dev/urandom > "$w/seeds/fuzz_report/random-$i"
  done
  touch $w/seeds/.done
fi
# fuzz_heapread: luaheap's hand-written snapshots, good and malformed
if [[ ! -d $w/seeds/fuzz_heapread ]]; then
  mkdir -p $w/seeds/fuzz_heapread
  cp tests/heap/luaheap/*.heapsnapshot tests/heap/luaheap/bad/*.heapsnapshot \
     $w/seeds/fuzz_heapread/
fi
# fuzz_readjson: real json reports (tests/merge/known.lua's, frames, memory
# and a trace ring)
if [[ ! -d $w/seeds/fuzz_readjson ]]; then
  mkdir -p $w/seeds/fuzz_readjson
  cp tests/fuzz/readjson/*.json $w/seeds/fuzz_readjson/
fi
# fuzz_heap's seeds: random bytes (a flags byte, then operations), made
# apart so that a seed directory from before the target also gets them
if [[ ! -d $w/seeds/fuzz_heap ]]; then
  mkdir -p $w/seeds/fuzz_heap
  for i in $(seq 1 16); do
    head -c $((i * 32)) /dev/urandom > "$w/seeds/fuzz_heap/random-$i"
  done
fi

# fuzz_figures' seeds: random bytes (a tree, raw tallies, a calibration)
if [[ ! -d $w/seeds/fuzz_figures ]]; then
  mkdir -p $w/seeds/fuzz_figures
  for i in $(seq 1 16); do
    head -c $((i * 64)) /dev/urandom > "$w/seeds/fuzz_figures/random-$i"
  done
fi
# fuzz_report's and fuzz_figures' regressions: inputs they once failed on
# (every run: a seed directory from before them gets them too)
cp tests/fuzz/regressions/report/* $w/seeds/fuzz_report/
cp tests/fuzz/regressions/figures/* $w/seeds/fuzz_figures/

# fuzz_live's seeds: clients' commands (a first byte 0: the parser) and
# random records (a first byte 1: a view)
if [[ ! -d $w/seeds/fuzz_live ]]; then
  mkdir -p $w/seeds/fuzz_live
  i=0
  for c in '{"cmd":"subscribe","state":1}' '{"cmd":"start","id":1}' \
           '{"cmd":"stop"}' '{"cmd":"pause"}' '{"cmd":"resume"}' \
           '{"cmd":"reset","state":0,"id":null}' \
           '{"cmd":"spike_rule","factor":2.5,"ms":16.6}' \
           '{"cmd":"snapshot","collect":true}' '{"cmd":"report","format":"html"}' \
           '{"cmd":"\u0073tart","id":18446744073709551615}'; do
    { printf '\0'; printf '%s' "$c"; } > "$w/seeds/fuzz_live/cmd-$i"
    i=$((i + 1))
  done
  for i in $(seq 1 16); do
    { printf '\1'; head -c $((i * 64)) /dev/urandom; } > "$w/seeds/fuzz_live/view-$i"
  done
fi

# --- run ---------------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LI_FUZZ_DEPTH_DIR=$root/$w/depth
# one target: its run, then its line of the summary in $w/logs/$t.result
# and its status (0 or 1) in $w/logs/$t.status
run_target() {
  local t=$1 log=$w/logs/$1.log secs=$seconds rc=0 dict execs persec result
  mkdir -p $w/corpus/$t
  [[ $t == fuzz_readjson ]] && secs=$(( (seconds + 2) / 3 ))
  echo "fuzz.sh: $t for ${secs}s (log $log)"
  dict=tests/fuzz/lua.dict              # (a target's own, when it has one)
  [[ -f tests/fuzz/$t.dict ]] && dict=tests/fuzz/$t.dict
  $b/bin/$t -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -dict=$dict \
    -artifact_prefix="$w/artifacts/$t-" \
    $w/corpus/$t $w/seeds/$t >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  persec=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  execs=${execs:-0}; persec=${persec:-0}
  if [[ $rc -ne 0 ]] || grep -qE '^(==[0-9]+==ERROR|SUMMARY: )' "$log"; then
    echo 1 > $w/logs/$t.status
    result="FAILED (exit $rc)"
    grep -E 'property failed|ERROR|SUMMARY|Test unit written' "$log" | head -5 >&2 || true
  else
    echo 0 > $w/logs/$t.status
    result=ok
  fi
  printf '%-13s %10s executions  %6s/s  %8s per 60 s  %s\n' \
    "$t" "$execs" "$persec" $((persec * 60)) "$result" > $w/logs/$t.result
}

# FUZZ_JOBS targets at a time (default: one a core; each libFuzzer process
# is one thread), every target for its whole time
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
status=0
summary=()
running=0
for t in "${targets[@]}"; do
  rm -f $w/logs/$t.result $w/logs/$t.status
  if [[ $running -ge $jobs ]]; then wait -n || true; running=$((running - 1)); fi
  run_target "$t" &
  running=$((running + 1))
done
wait || true
for t in "${targets[@]}"; do
  if [[ -f $w/logs/$t.status && $(cat $w/logs/$t.status) == 0 ]]; then :; else status=1; fi
  summary+=("$(cat $w/logs/$t.result 2>/dev/null || echo "$t: did not finish")")
done
echo
echo "fuzz.sh: ${seconds}s per target"
printf '  %s\n' "${summary[@]}"
depth=$(find $w/depth -type f | wc -l)
echo "  known depth limit (docs/limits.md): $depth distinct inputs kept in $w/depth"
exit $status
