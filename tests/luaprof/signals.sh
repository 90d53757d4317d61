#!/usr/bin/env bash
# How programs are really stopped (issue 33): SIGTERM and SIGHUP, as
# timeout, systemd, docker and CI send them, must write the report and then
# end the process by the same signal, as the stock interpreter ends (the
# same status); a signal the parent left ignored stays ignored; a program
# blocked in C code ends within the grace period, saying the profile is
# lost; and a signal that comes while the report is being written waits
# for it: the report is whole and no temporary file is left.
#
# usage: signals.sh LUAPROF [INTERP]
#   INTERP  the stock interpreter LUAPROF is built for (default lua5.4)
# Prints a line a case and `N passed, N failed`; exits 1 if any failed.
# On LuaJIT (INTERP luajit) the program loops run with the JIT off (-joff)
# where the report is expected: compiled code never reaches a hook
# (docs/limits.md), and the case that shows it expects the lost profile.
set -u
set -o pipefail

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 LUAPROF [INTERP]" >&2; exit 2; }
prof=$1
case $prof in /*) ;; */*) prof=$(cd "$(dirname "$prof")" && pwd)/$(basename "$prof") ;; esac
interp=${2:-lua5.4}
command -v "$prof" >/dev/null 2>&1 || { echo "signals.sh: no luaprof at $prof" >&2; exit 2; }
command -v "$interp" >/dev/null 2>&1 || { echo "signals.sh: no interpreter $interp" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "signals.sh: needs python3" >&2; exit 2; }
jit=0
"$interp" -e 'os.exit(jit and 0 or 1)' </dev/null && jit=1
joff=()
[ $jit = 1 ] && joff=(-joff)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-signals.XXXXXX") || exit 2
pids=()
cleanup() {
  local p
  for p in ${pids[@]+"${pids[@]}"}; do kill -KILL "$p" 2>/dev/null; done
  rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cd "$tmp" || exit 2

# Programs: each says "ready" on stdout once it is where the signal must
# find it.
cat >loop.lua <<'EOF'
local function work(i) return i * 2 end
local function spin()
  local s = 0
  io.stdout:write("ready\n") io.stdout:flush()
  while true do
    for i = 1, 1000 do s = s + work(i) end
  end
end
spin()
EOF
cat >coroutine.lua <<'EOF'
local function work(i) return i * 2 end
local co = coroutine.wrap(function()
  local s = 0
  io.stdout:write("ready\n") io.stdout:flush()
  while true do
    for i = 1, 1000 do s = s + work(i) end
  end
end)
co()
EOF
cat >read.lua <<'EOF'
local function work(i) return i * 2 end
for i = 1, 10 do work(i) end
io.stdout:write("ready\n") io.stdout:flush()
local line = io.read("l")
print("read returned", line)
EOF
cat >blocked.lua <<'EOF'
local function work(i) return i * 2 end
for i = 1, 10 do work(i) end
io.stdout:write("ready\n") io.stdout:flush()
os.execute("exec sleep 30")
print("after")
EOF

passed=0
failed=0
why=()
fail() { why+=("$*"); }
verdict() {
  if [ ${#why[@]} -eq 0 ]; then echo "ok   $1"; passed=$((passed + 1))
  else local r; r=$(IFS=';'; echo "${why[*]}"); echo "FAIL $1: ${r//;/; }"; failed=$((failed + 1)); fi
  why=()
}

# wait_ready OUT PID: until OUT says ready (up to 60 s: a busy machine).
wait_ready() {
  local i
  for ((i = 0; i < 600; i++)); do
    grep -q '^ready$' "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# start NAME CMD...: CMD in the background, its stdout in NAME.out, its
# stderr in NAME.err, stdin from $input (default /dev/null); sets pid.
input=/dev/null
start() {
  local n=$1; shift
  "$@" <"$input" >"$n.out" 2>"$n.err" &
  pid=$!
  pids+=("$pid")
}

# the status of the stock interpreter's run of PROG when sent SIG once ready
stock_status() {
  local prog=$1 sig=$2 st
  start "stock-$prog-$sig" "$interp" ${joff[@]+"${joff[@]}"} "$prog.lua"
  wait_ready "stock-$prog-$sig.out" "$pid" || { echo "never ready"; return; }
  kill -"$sig" "$pid"
  wait "$pid"; st=$?
  echo "$st"
}

# check_report FILE [FUNCTION]: a whole json report, naming FUNCTION
check_report() {
  python3 - "$@" <<'EOF' || return 1
import json, sys
rep = json.load(open(sys.argv[1]))
names = [f["name"] for f in rep["functions"]]
if len(sys.argv) > 2 and not any(sys.argv[2] in n for n in names):
    sys.exit("no %s in %s" % (sys.argv[2], names))
EOF
}

# leftovers DIR: files beside the report that a write left behind
leftovers() {
  ls -A "$1" | grep -v '^report\.json$' || true
}

# case NAME PROG SIG: luaprof -o a file, SIG once ready: the stock
# interpreter's status, a whole report naming `work`, nothing else left.
signal_case() {
  local name=$1 prog=$2 sig=$3 st want left
  want=$(stock_status "$prog" "$sig")
  mkdir -p "$name"
  start "$name" "$prof" -f json -o "$name/report.json" ${joff[@]+"${joff[@]}"} "$prog.lua"
  if ! wait_ready "$name.out" "$pid"; then
    fail "never ready: $(head -c 300 "$name.err")"
  else
    kill -"$sig" "$pid"
    wait "$pid"; st=$?
    [ "$st" = "$want" ] || fail "status $st, the stock interpreter's $want"
    [ -s "$name/report.json" ] || fail "no report"
    [ -s "$name/report.json" ] && ! err=$(check_report "$name/report.json" work 2>&1) &&
      fail "report: $err"
    left=$(leftovers "$name")
    [ -z "$left" ] || fail "left behind: $left"
    [ -s "$name.err" ] && fail "stderr: $(head -c 200 "$name.err")"
  fi
  verdict "$name"
}

signal_case term_loop loop TERM
signal_case hup_loop loop HUP
if [ $jit = 0 ]; then
  # (in a coroutine the main thread's hook waits: the probes act)
  signal_case term_coroutine coroutine TERM
fi
# blocked in a read: the read returns to Lua, which goes no further
mkfifo read.in
exec 7<>read.in                         # (held open: the read blocks)
input=read.in
signal_case term_read read TERM
input=/dev/null
exec 7>&-
grep -q '^ready$' term_read.out || fail "the program never read"
grep -q "read returned" term_read.out && fail "the program saw its read return"
verdict term_read_unseen

# A signal the parent left ignored stays ignored (nohup and SIGHUP).
name=hup_ignored
mkdir -p "$name"
( trap '' HUP; exec "$prof" -f json -o "$name/report.json" ${joff[@]+"${joff[@]}"} loop.lua ) \
  </dev/null >"$name.out" 2>"$name.err" &
pid=$!; pids+=("$pid")
if wait_ready "$name.out" "$pid"; then
  kill -HUP "$pid"; sleep 1
  kill -0 "$pid" 2>/dev/null || fail "SIGHUP ended it: the parent ignored it"
  kill -TERM "$pid"; wait "$pid"; st=$?
  [ "$st" = 143 ] || fail "status $st after SIGTERM, not 143"
  check_report "$name/report.json" work >/dev/null 2>&1 || fail "no whole report after SIGTERM"
else
  fail "never ready"
fi
verdict "$name"

# Blocked in C code (os.execute waits for its child): within the grace
# period (5 s) the process ends by the signal, saying the profile is lost.
name=term_blocked
mkdir -p "$name"
start "$name" "$prof" -f json -o "$name/report.json" blocked.lua
if wait_ready "$name.out" "$pid"; then
  t0=$SECONDS
  kill -TERM "$pid"; wait "$pid"; st=$?
  [ "$st" = 143 ] || fail "status $st, not 143"
  [ $((SECONDS - t0)) -le 60 ] || fail "took $((SECONDS - t0)) s to end"
  grep -q "the profile is lost" "$name.err" || fail "nothing said: $(head -c 200 "$name.err")"
  left=$(ls -A "$name")
  [ -z "$left" ] || fail "left behind: $left"
  pkill -f "sleep 30" 2>/dev/null   # (its child, which a plain run leaves too)
else
  fail "never ready"
fi
verdict "$name"

# A second signal while the report is written waits for it: the report
# goes to a FIFO, whose open blocks until it is read; the second SIGTERM
# comes then, and the process must live until the report is read whole.
name=second_signal_waits
mkdir -p "$name"
mkfifo "$name/fifo"
start "$name" "$prof" -f json -o "$name/fifo" ${joff[@]+"${joff[@]}"} loop.lua
if wait_ready "$name.out" "$pid"; then
  kill -TERM "$pid"
  # (until the write waits for its reader: wchan says so on Linux)
  for ((i = 0; i < 600; i++)); do
    [ "$(cat /proc/$pid/wchan 2>/dev/null)" = wait_for_partner ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -TERM "$pid" 2>/dev/null
  sleep 0.5
  if kill -0 "$pid" 2>/dev/null; then
    timeout 60 cat "$name/fifo" >"$name.json"
    wait "$pid"; st=$?
    [ "$st" = 143 ] || fail "status $st, not 143"
    err=$(check_report "$name.json" work 2>&1) || fail "report: $(tail -n 1 <<<"$err")"
  else
    fail "the second SIGTERM (or the first) ended it before the report was written"
  fi
else
  fail "never ready"
fi
verdict "$name"

if [ $jit = 1 ]; then
  # Compiled code never reaches the hook: the grace period ends it.
  name=jit_on_loop_lost
  mkdir -p "$name"
  start "$name" "$prof" -f json -o "$name/report.json" loop.lua
  if wait_ready "$name.out" "$pid"; then
    kill -TERM "$pid"; wait "$pid"; st=$?
    [ "$st" = 143 ] || fail "status $st, not 143"
    grep -q "the profile is lost" "$name.err" || fail "nothing said: $(head -c 200 "$name.err")"
  else
    fail "never ready"
  fi
  verdict "$name"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
