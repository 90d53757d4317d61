#!/usr/bin/env bash
# Runtime tests with known answers, on one Lua version.  Every
# tests/runtime/*.lua program runs twice: under the stock interpreter
# lua5.N with the C module (`require "luainstr"`, started by the program)
# and under luaprof5.N (started before the program); it checks its own
# profile and exits 1 on a wrong figure.  Every exit/*.lua program ends the
# hard way (os.exit, uncaught error, cleared globals, late finalizers): it
# must exit with its `-- expect-status:` and not crash, under luaprof
# leave a csv report holding each `-- expect-row: NAME CALLS`, and on the
# versions named by a `-- expect-log VERSIONS: LINE` write that line.
#
# The programs are written for every Lua from 5.1 to 5.4 and LuaJIT (what
# differs is chosen in them by version, lib/check.lua's check.lua, and
# check.jit: LuaJIT says it is 5.1, with some of 5.2); a program says in
# its header what it does differently on a version and why, in lines
#     -- variant 5.1 5.2: WHAT AND WHY     (more lines: "--   ...")
# and, if it cannot run on a version at all,
#     -- skip-on 5.1: REASON
# which skips it there with the reason shown.  `run.sh --list` prints which
# program runs on which version, as written (yes) or in a variant (yes*),
# and those lines.
#
# usage: run.sh BUILD_DIR [VERSION]   VERSION 5.1, 5.2, 5.3, 5.4 (the
#            default) or jit: lua5.N with BUILD_DIR/lib/lua/5.N/luainstr.so
#            and BUILD_DIR/bin/luaprof5.N (luaprof for 5.4); luajit with
#            lib/lua/jit/luainstr.so and bin/luaprofjit
#        run.sh --list
# Environment: LI_ONLY=GLOB runs only the tests whose file name matches;
# LI_LUAPROF=CMD runs CMD as luaprof (e.g. the WebAssembly luaprof.js
# through tests/wasm/luaprof_node.sh) and only the luaprof runs, which
# need no luainstr.so (BUILD_DIR is then not used); LI_SKIP="NAME ..." leaves
# out the named programs (said in the output).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
versions="5.1 5.2 5.3 5.4 jit"

# The reason program $1 does not run on Lua $2 (its skip-on line), or
# nothing.
skip_reason() { sed -n "s/^-- skip-on $2: *//p" "$1" | head -n1; }

# The variant lines of program $1 that name Lua $2, with their
# continuation lines.
variant_lines() {
  awk -v v="$2" '
    /^-- variant [0-9a-z. ]+:/ { hdr = $0; sub(/:.*/, "", hdr); on = (" " hdr " " ~ " " v " ") }
    /^-- variant / || /^--   / { if (on) print; next }
    { on = 0 }' "$1"
}

if [ "${1:-}" = --list ]; then
  cd "$here" || exit 2
  printf '%-28s %s\n' program "$versions"
  for t in *.lua exit/*.lua; do
    line=$(printf '%-28s' "${t%.lua}") why=
    for v in $versions; do
      r=$(skip_reason "$t" $v)
      if [ -n "$r" ]; then line="$line no "; why="$why
    not on $v: $r"
      elif [ -n "$(variant_lines "$t" $v)" ]; then line="$line yes*"
      else line="$line yes "; fi
    done
    echo "$line$why"
    awk '/^-- variant / || /^--   / { print "    " substr($0, 4); next }
         /^--( |$)/ { next } { exit }' "$t"
  done
  exit 0
fi

[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR [VERSION] | --list" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
V=${2:-5.4}
case " $versions " in *" $V "*) ;; *) echo "run.sh: no Lua version '$V'" >&2; exit 2 ;; esac
lua=lua$V
[ "$V" = jit ] && lua=luajit
so_dir=$build/lib/lua/$V
if [ "$V" = 5.4 ]; then luaprof=${LI_LUAPROF:-$build/bin/luaprof}
else luaprof=${LI_LUAPROF:-$build/bin/luaprof$V}; fi
only=${LI_ONLY:-*}
modes="module luaprof" exit_modes="module luaprof run"
[ -n "${LI_LUAPROF:-}" ] && modes=luaprof exit_modes=luaprof
[ -n "${LI_LUAPROF:-}" ] || [ -f "$so_dir/luainstr.so" ] ||
  { echo "run.sh: no $so_dir/luainstr.so" >&2; exit 2; }
[ -x "$luaprof" ] || { echo "run.sh: no $luaprof" >&2; exit 2; }
command -v $lua >/dev/null || { echo "run.sh: no $lua" >&2; exit 2; }

unset LUA_INIT LUA_PATH LUA_INIT_5_2 LUA_PATH_5_2 LUA_CPATH_5_2 LUA_INIT_5_3 \
  LUA_PATH_5_3 LUA_CPATH_5_3 LUA_INIT_5_4 LUA_PATH_5_4 LUA_CPATH_5_4
export LUA_CPATH="$so_dir/?.so"
export LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-runtime.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT

passed=0 failed=0

result() {  # name status(0 ok) detail-file
  if [ "$2" -eq 0 ]; then
    passed=$((passed + 1)); echo "pass  $1"
  else
    failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$3"
  fi
}

# A crash shows as a status above 128 (a signal); the message names it.
crashed() { [ "$1" -gt 128 ] && echo "crashed: status $1 (signal $(($1 - 128)))"; }

# A spin that is descheduled at its deadline overshoots by a time slice,
# so on a busy machine a timing test may fail once: it gets up to
# LI_TRIES (3) runs, and passes if one of them passes.  A crash or a wrong
# count fails the same way every time.
tries=${LI_TRIES:-3}

run_timed() {  # mode file: status, output in $tmp/out
  local i st
  for ((i = 1; i <= tries; i++)); do
    rm -f "$tmp/rep"
    if [ "$1" = module ]; then
      $lua "$2" >"$tmp/out" 2>&1; st=$?
    else
      "$luaprof" -f csv -o "$tmp/rep" "$2" >"$tmp/out" 2>&1; st=$?
      [ $st -eq 0 ] && [ ! -s "$tmp/rep" ] && { echo "no report written" >>"$tmp/out"; st=1; }
    fi
    crashed $st >>"$tmp/out" && return $st
    [ $st -eq 0 ] && return 0
    [ $i -lt $tries ] && cp "$tmp/out" "$tmp/out.$i"
  done
  for ((i = 1; i < tries; i++)); do
    { echo "(run $i)"; cat "$tmp/out.$i"; } >>"$tmp/out.all"
  done
  [ -f "$tmp/out.all" ] && { cat "$tmp/out" >>"$tmp/out.all"; mv "$tmp/out.all" "$tmp/out"; }
  return $st
}

cd "$here" || exit 2
for t in *.lua; do
  case $t in $only) ;; *) continue ;; esac
  case " ${LI_SKIP:-} " in *" ${t%.lua} "*) echo "skip  ${t%.lua} (LI_SKIP)"; continue ;; esac
  why=$(skip_reason "$t" $V)
  [ -n "$why" ] && { echo "skip  ${t%.lua} (Lua $V: $why)"; continue; }
  for mode in $modes; do
    run_timed $mode "$t"
    result "${t%.lua} ($mode)" $? "$tmp/out"
  done
done

# The row NAME with CALLS calls in csv report $1?
has_row() {
  awk -F, -v name="$2" -v calls="$3" '
    NR > 1 && $1 == name && $5 == calls { found = 1 }
    END { exit !found }' "$1"
}

for t in exit/*.lua; do
  case ${t#exit/} in $only) ;; *) continue ;; esac
  why=$(skip_reason "$t" $V)
  [ -n "$why" ] && { echo "skip  ${t%.lua} (Lua $V: $why)"; continue; }
  want=$(sed -n 's/^-- expect-status: *//p' "$t")
  rows=$(sed -n 's/^-- expect-row: *//p' "$t")
  logs=$(awk -v v="$V" '/^-- expect-log [0-9a-z. ]+:/ {
      vs = $0; sub(/^-- expect-log /, "", vs); sub(/:.*/, "", vs)
      if ((" " vs " ") ~ (" " v " ")) { l = $0; sub(/^[^:]*: */, "", l); print l } }' "$t")
  for mode in $exit_modes; do
    rm -f "$tmp/rep"
    : >"$tmp/out"
    if [ $mode = module ]; then
      $lua "$t" >"$tmp/log" 2>&1; st=$?
    elif [ $mode = run ]; then
      LUAINSTR_OUT="$tmp/rep" LUAINSTR_FORMAT=csv $lua -l luainstr.run "$t" >"$tmp/log" 2>&1; st=$?
    else
      "$luaprof" -f csv -o "$tmp/rep" "$t" >"$tmp/log" 2>&1; st=$?
    fi
    ok=0
    if [ "$st" != "$want" ]; then
      ok=1
      { echo "exit status $st, expected $want"; crashed $st; sed 's/^/> /' "$tmp/log"; } >>"$tmp/out"
    fi
    while read -r line; do
      [ -n "$line" ] || continue
      grep -qxF -- "$line" "$tmp/log" ||
        { ok=1; echo "no line '$line' written:"; sed 's/^/> /' "$tmp/log"; } >>"$tmp/out"
    done <<<"$logs"
    if [ $mode != module ]; then
      if [ ! -s "$tmp/rep" ]; then
        ok=1; echo "no report written" >>"$tmp/out"
      else
        while read -r line; do
          [ -n "$line" ] || continue
          calls=${line##* } name=${line% *}
          has_row "$tmp/rep" "$name" "$calls" ||
            { ok=1; echo "report lacks row '$name' with $calls call(s)" >>"$tmp/out"; }
        done <<<"$rows"
        [ $ok -eq 0 ] || sed 's/^/| /' "$tmp/rep" >>"$tmp/out"
      fi
    fi
    t2=${t#exit/}
    result "exit/${t2%.lua} ($mode)" $ok "$tmp/out"
  done
done

# `lua5.N -l luainstr.run SCRIPT ARGS`: the script itself is measured, runs
# once, gets its arguments, and fails as under lua5.N (stderr and status).
run_dir=$tmp/run
mkdir -p "$run_dir"
cat >"$run_dir/prog.lua" <<'LUA'
local function square(x) return x * x end
local s = 0
for i = 1, 10 do s = s + square(i) end
local log = io.open("ran.log", "a")    -- (5.1's write returns true)
log:write("ran\n")
log:close()
print("args", select("#", ...), ...)
print("arg", arg[0], arg[1], arg[2])
if arg[1] == "fail" then
  local function deep() error("failed on purpose") end
  deep()
end
return s
LUA
# run_case NAME EXPECT_STATUS ARGS...: stdout, stderr and status as lua5.N's
# (the report goes to a file), the script ran once, its functions are in
# the report.
run_case() {
  local name=$1 want=$2; shift 2
  local ok=0 st
  : >"$tmp/out"
  rm -f "$run_dir/ran.log" "$run_dir/rep.csv"
  ( cd "$run_dir" && $lua prog.lua "$@" >"$tmp/ref.stdout" 2>"$tmp/ref.stderr" )
  rm -f "$run_dir/ran.log"
  ( cd "$run_dir" && LUAINSTR_OUT=rep.csv LUAINSTR_FORMAT=csv \
      $lua -l luainstr.run prog.lua "$@" >"$tmp/run.stdout" 2>"$tmp/run.stderr" )
  st=$?
  [ "$st" = "$want" ] || { ok=1; echo "status $st, expected $want" >>"$tmp/out"; }
  # (LuaJIT's tracebacks name an unnamed C function by its address: the
  # script's caller is luajit's own function stock, the module's under -l)
  [ "$V" = jit ] && sed -i 's/\[C\]: at 0x[0-9a-f]*$/[C]: at ADDRESS/' "$tmp/ref.stderr" "$tmp/run.stderr"
  for s in stdout stderr; do
    cmp -s "$tmp/ref.$s" "$tmp/run.$s" ||
      { ok=1; echo "$s differs from $lua's:"; diff "$tmp/ref.$s" "$tmp/run.$s"; } >>"$tmp/out"
  done
  [ "$(cat "$run_dir/ran.log" 2>/dev/null)" = ran ] ||
    { ok=1; echo "the script ran $(grep -c ran "$run_dir/ran.log" 2>/dev/null || echo 0) times" >>"$tmp/out"; }
  if [ -s "$run_dir/rep.csv" ]; then
    has_row "$run_dir/rep.csv" "local square" 10 ||
      { ok=1; echo "report lacks 'local square' with 10 calls:"; cat "$run_dir/rep.csv"; } >>"$tmp/out"
    has_row "$run_dir/rep.csv" "main chunk" 1 ||
      { ok=1; echo "report lacks the main chunk"; } >>"$tmp/out"
  else
    ok=1; echo "no report written" >>"$tmp/out"
  fi
  result "run/$name" $ok "$tmp/out"
}
if [[ run == $only ]] && [ -z "${LI_LUAPROF:-}" ]; then
  run_case ok 0 a b
  run_case error 1 fail x
  # The report on stderr by default, after the program's own messages.
  : >"$tmp/out"; ok=0
  ( cd "$run_dir" && $lua -l luainstr.run prog.lua >/dev/null 2>"$tmp/run.stderr" ) ||
    { ok=1; echo "status $?" >>"$tmp/out"; }
  grep -q 'local square' "$tmp/run.stderr" || { ok=1; cat "$tmp/run.stderr" >>"$tmp/out"; }
  result "run/report_on_stderr" $ok "$tmp/out"
  # No script: a message naming the usage, status 1, nothing run.
  : >"$tmp/out"; ok=0
  $lua -l luainstr.run </dev/null >"$tmp/run.stdout" 2>"$tmp/run.stderr"; st=$?
  [ $st = 1 ] || { ok=1; echo "status $st, expected 1" >>"$tmp/out"; }
  grep -q 'luainstr.run: no script' "$tmp/run.stderr" ||
    { ok=1; echo "no message:"; cat "$tmp/run.stderr"; } >>"$tmp/out"
  result "run/no_script" $ok "$tmp/out"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
