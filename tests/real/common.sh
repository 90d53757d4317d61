# shellcheck shell=bash
# common.sh -- what the real-suite runners share.  Sourced, not run.
#
# Every runner compares one run under the reference interpreter (side
# `ref`: lua5.4, or the stock lua5.N a runner is given) with one under
# luaprof (side `prof`: luaprof, or the luaprof5.N for that Lua).  Both sides run in the same
# absolute directory, each in a fresh copy of the suite, so that paths in
# messages, tracebacks and generated files need no normalising.
#
# Uses and sets: prog (runner name, for messages), lua (the reference
# interpreter), tmo (seconds per run), run_timeout, tmp (scratch directory,
# removed at exit unless LI_KEEP=1).

# real_init PROG LUAPROF SUITES [LUA]: check the arguments, clean the
# environment, make the scratch directory.  LUA is the stock interpreter
# of the Lua LUAPROF is built for (default lua5.4).  (A runner that reads
# SUITES checks it with need_suite.)
real_init() {
  prog=$1
  prof=$2
  suites=$3
  lua=${4:-lua5.4}
  case $prof in /*) ;; */*) prof=$(cd "$(dirname "$prof")" && pwd)/$(basename "$prof") ;; esac
  if [ ! -x "$prof" ]; then
    echo "$prog: FAIL: no luaprof binary at $prof" >&2
    exit 1
  fi
  need_tool "$lua"
  # luaprof5.N runs the Lua of lua5.N: a mismatch would compare two Luas.
  local v1 v2
  v1=$("$lua" -e 'io.write(_VERSION)') || exit 1
  v2=$("$prof" -o /dev/null -e 'io.write(_VERSION)' </dev/null 2>/dev/null) || v2="?"
  if [ "$v1" != "$v2" ]; then
    echo "$prog: FAIL: $lua is $v1, $prof runs ${v2}" >&2
    exit 1
  fi
  # The installed libraries are what runs, so Lua's default search paths
  # stay; only what could make the two sides differ goes.
  unset LUA_INIT LUA_INIT_5_1 LUA_INIT_5_2 LUA_INIT_5_3 LUA_INIT_5_4 \
        LUA_PATH LUA_PATH_5_1 LUA_PATH_5_2 LUA_PATH_5_3 LUA_PATH_5_4 \
        LUA_CPATH LUA_CPATH_5_1 LUA_CPATH_5_2 LUA_CPATH_5_3 LUA_CPATH_5_4
  export LC_ALL=C TZ=UTC
  tmo=${LI_TIMEOUT:-120}
  run_timeout=()
  command -v timeout >/dev/null 2>&1 && run_timeout=(timeout -k 5 "$tmo")
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-real.XXXXXX") || exit 2
  if [ "${LI_KEEP:-0}" = 1 ]; then
    echo "$prog: keeping $tmp"
  else
    trap 'rm -rf -- "$tmp"' EXIT
  fi
  trap 'exit 130' INT TERM
}

# need_suite SUB: the folder SUITES/SUB (a project's release sources, not in
# this repository) must be there; missing, the test skips (exit 77), or
# fails when CI is set.  Sets src to its absolute path.
need_suite() {
  local sub=$1 proj
  case $sub in
    penlight-*) proj="penlight ${sub#penlight-} (github.com/lunarmodules/Penlight, tag ${sub#penlight-})" ;;
    luassert-*) proj="luassert ${sub#luassert-} (github.com/lunarmodules/luassert, tag v${sub#luassert-})" ;;
    *) proj=$sub ;;
  esac
  if [ ! -d "$suites/$sub" ]; then
    . "$here/../shared_missing.sh"
    shared_missing "$prog" "the sources of $sub are not at '$suites/$sub'" \
      "They are the release sources of $proj, or its LuaRocks" \
      "source rock, unpacked as $sub/ in ../shared/real-suites beside the project" \
      "(where CI keeps them), or in the folder given by -DLI_REAL_SUITES=/path."
  fi
  src=$(cd "$suites/$sub" && pwd)
}

# need_tool CMD: fail clearly when a Debian package is missing.
need_tool() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "$prog: FAIL: '$1' not found (scripts/deps.sh installs it)" >&2
    exit 1
  fi
}

# fresh_copy SRC DEST: DEST becomes an untouched copy of SRC.
fresh_copy() {
  rm -rf -- "$2" && mkdir -p -- "$(dirname "$2")" && cp -R -- "$1" "$2"
}

# run_side OUT SIDE CMD...: run CMD in the current directory with stdin
# closed (or reading the file named by stdin_file, when set); OUT/SIDE.stdout,
# .stderr and .status receive what it did.
#
# One line is normalised, in stdout and stderr: the last line of LuaJIT's
# tracebacks, `[C]: at 0x55e5eff9a2c0` (a test runner may print them to
# stdout), names the interpreter's own C entry point by its address, which
# ASLR moves on every run of luajit itself (PUC Lua prints `[C]: in ?`
# there, which the rule does not touch).  That whole line becomes
# `[C]: at 0x@`; the raw output stays as SIDE.stdout.raw, SIDE.stderr.raw
# (LI_KEEP=1).
run_side() {
  local out=$1 side=$2 s
  shift 2
  "${run_timeout[@]}" "$@" <"${stdin_file:-/dev/null}" >"$out/$side.stdout.raw" 2>"$out/$side.stderr.raw"
  echo $? >"$out/$side.status"
  for s in stdout stderr; do
    sed -E 's/^(\t\[C\]: at )0x[0-9a-f]+$/\10x@/' "$out/$side.$s.raw" >"$out/$side.$s"
    # LuaJIT's pcall and xpcall are Lua wrappers under the profiler
    # (runtime/boundary.c, docs/luajit.md "Limits"): a traceback taken inside one
    # shows "[C]: in function 'pcall'" twice, the original's line then the
    # wrapper's.  With LI_JIT_WRAPPERS=1 the first is left out of the
    # profiled side (as tests/behaviour/run_luaprof.sh does).
    if [ "$side" = prof ] && [ "${LI_JIT_WRAPPERS:-0}" = 1 ]; then
      awk -f "$here/../jit_wrappers.awk" "$out/$side.$s" >"$out/$side.$s.tmp" &&
        mv -f -- "$out/$side.$s.tmp" "$out/$side.$s"
    fi
  done
}

# timed_side OUT SIDE CMD...: run_side, adding the milliseconds it took to
# the running total of SIDE (ms_ref, ms_prof).
ms_ref=0
ms_prof=0
timed_side() {
  local t0 t1
  t0=$(date +%s%N)
  run_side "$@"
  t1=$(date +%s%N)
  if [ "$2" = ref ]; then ms_ref=$((ms_ref + (t1 - t0) / 1000000))
  else ms_prof=$((ms_prof + (t1 - t0) / 1000000)); fi
}

# differs OUT: compare OUT/ref.* with OUT/prof.*; print what differs with
# the diffs (cut to LI_DIFF_LINES, default 40); status 0 when they differ.
differs() {
  local out=$1 s bad=1
  if ! cmp -s "$out/ref.status" "$out/prof.status"; then
    echo "  exit status: $lua $(cat "$out/ref.status"), luaprof $(cat "$out/prof.status")"
    bad=0
  fi
  for s in stdout stderr; do
    if ! cmp -s "$out/ref.$s" "$out/prof.$s"; then
      echo "  --- $s differs ($lua vs luaprof):"
      diff -u --label "$lua $s" --label "luaprof $s" -a "$out/ref.$s" "$out/prof.$s" \
        | head -n "${LI_DIFF_LINES:-40}" | sed 's/^/    /'
      bad=0
    fi
  done
  return $bad
}

# report_lacks CSV WHAT:ERE...: status 0 (with a message) when the csv
# report is missing or empty, or has no function called at least once
# whose source contains a match of ERE (which must not match a comma), for
# any WHAT:ERE pair.
report_lacks() {
  local csv=$1 pair what ere bad=1
  shift
  if [ ! -s "$csv" ]; then
    echo "  no report written at $csv"
    return 0
  fi
  for pair in "$@"; do
    what=${pair%%:*}
    ere=${pair#*:}
    # name,source,line,lastline,calls,...: names may hold quoted commas, so
    # the source is found by the numbers that follow it.
    if ! grep -Eq ",[^,]*${ere}[^,]*,[0-9]+,[0-9]+,[1-9][0-9]*," "$csv"; then
      echo "  the report names no function of $what (source ~ $ere)"
      bad=0
    fi
  done
  return $bad
}
