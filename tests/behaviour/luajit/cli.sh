#!/usr/bin/env bash
# luaprofjit's command line against luajit's (luajit.c of LuaJIT 2.1):
# each case runs `luajit ARGS` and `luaprofjit -o REPORT ARGS` (from
# cli/, with LUA_INIT as the case sets it) and must give the same stdout,
# stderr and exit status ("[C]: at 0xADDRESS" is not compared), and write
# a report exactly when some code of the program runs (not for -v alone,
# nor -b, which saves or lists bytecode as luajit does, unmeasured).
# Usage errors are luaprof's own (status 2, "luaprof: ..."), as for every
# luaprof: those cases check that instead.
#
# usage: cli.sh LUAPROFJIT [LUAJIT]
set -u
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 LUAPROFJIT [LUAJIT]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
prof=$1
case $prof in /*) ;; */*) prof=$(cd "$(dirname "$prof")" && pwd)/$(basename "$prof") ;; esac
interp=${2:-luajit}
command -v "$prof" >/dev/null 2>&1 || { echo "cli.sh: no luaprofjit at $prof" >&2; exit 2; }
command -v "$interp" >/dev/null 2>&1 || { echo "cli.sh: no $interp" >&2; exit 2; }
. "$here/../common.sh"
clean_lua_env
export LUA_PATH='./?.lua;;'     # (and LuaJIT's own: its jit.* modules)
tmo=${LI_TIMEOUT:-60}
setup_run cli.sh li-jit-cli
cp -- "$here"/cli/*.lua "$tmp/"
cd "$tmp" || exit 2

passed=0
failed=0

# same WANT_REPORT ARGS...: luajit and luaprofjit alike on ARGS (stdin
# from $stdin, /dev/null by default); WANT_REPORT yes/no.
same() {
  local want=$1; shift
  local a b why=()
  rm -f report.txt
  "${run_timeout[@]}" "$interp" "$@" <"${stdin:-/dev/null}" >ref.out 2>ref.err; a=$?
  "${run_timeout[@]}" "$prof" -o report.txt "$@" <"${stdin:-/dev/null}" >prof.out 2>prof.err; b=$?
  for f in ref.out ref.err prof.out prof.err; do
    sed -E -i 's/(\[C\]|\[builtin#[0-9]+\]): at 0x[0-9a-fA-F]+/\1: at 0x?/g' "$f"
  done
  [ "$a" = "$b" ] || why+=("exit status $a vs $b")
  cmp -s ref.out prof.out || why+=("stdout differs")
  cmp -s ref.err prof.err || why+=("stderr differs")
  if [ "$want" = yes ] && [ ! -s report.txt ]; then why+=("no report")
  elif [ "$want" = no ] && [ -e report.txt ]; then why+=("a report was written"); fi
  verdict "$*" ref.out prof.out ref.err prof.err
}

# usage WANT_MSG ARGS...: a bad lua option is luaprof's usage error.
usage() {
  local msg=$1; shift
  local b why=()
  "$prof" -o report.txt "$@" </dev/null >prof.out 2>prof.err; b=$?
  [ "$b" = 2 ] || why+=("exit status $b, not 2")
  grep -qF -- "$msg" prof.err || why+=("no '$msg' on stderr")
  [ -s prof.out ] && why+=("stdout not empty")
  verdict "usage: $*"
}

verdict() {
  local name=$1; shift
  if [ ${#why[@]} -eq 0 ]; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name: ${why[*]}"
    while [ $# -ge 2 ]; do
      cmp -s "$1" "$2" || diff -u --label luajit --label luaprofjit "$1" "$2" | head -20 | sed 's/^/    /'
      shift 2
    done
    failed=$((failed + 1))
  fi
}

# -v prints LuaJIT's banner on stdout, after LUA_INIT; alone, no report
same no -v
LUA_INIT='print("init", arg[0], arg[-1])' same no -v
LUA_INIT='print("init")' same yes -v -e 'print(2)'
LUA_INIT=@init.lua same yes -v args.lua x
LUA_INIT='error("init fails")' same no -v
LUA_INIT='print("not run")' same yes -E -e 'print(os.getenv("LUA_INIT") ~= nil)'
LUA_INIT='print("not run")' same yes -Exyz -e 'print(1)'
# arg: the script at 0, all below 0 without one; the script's arguments
# are arg[1] up to the first nil
same yes args.lua a b c
same yes -e 'print(#arg, arg[-1], arg[-2], arg[-3], arg[0])'
same yes -e 'arg[2] = nil' args.lua a b c
same yes -e 'arg = 5' args.lua a b
same yes -- args.lua -e x
same yes -e 'x = 1' -- args.lua --
stdin=args.lua same yes - a b
stdin=args.lua same yes
stdin=fail.lua same yes
same yes -e -x
# -l: require only, no global
same yes -l mod -e 'print(mod, package.loaded.mod.answer)'
same yes -lmod args.lua
same yes -l nosuchmod -e 'print(1)'
# -j and -O: LuaJIT's control commands
same yes -joff -e 'print(jit.status())'
same yes -joff -jon -e 'print((jit.status()))'
same yes -jflush -e 'print(1)'
same yes -jnosuchcmd -e 'print(1)'
same yes -jon=1,,2 -e 'print(1)'
same yes -O3 -e 'print(1)'
same yes -O-fold,-cse -e 'print(1)'
same yes -Onosuchflag -e 'print(1)'
same yes -jv -e 'print(1)'
same yes -jdump -e 'print(1)'
same yes -jp -e 'print(1)'
# the jit.* modules -j loads are luajit's tools: not in the report
"$prof" -o report.txt -jv -jdump -e 'local s = 0 for i = 1, 300 do s = s + i end' \
  </dev/null >/dev/null 2>&1
why=()
[ -s report.txt ] || why+=("no report")
grep -q 'jit/' report.txt && why+=("the report names jit.* modules")
verdict "-jv -jdump: not measured"
# errors and their messages, the traceback handler, the exit status
same yes fail.lua
same yes -e 'error({})'
same yes -e 'error()'
same yes -e 'error(12)'
same yes -e 'error(setmetatable({}, {__tostring = function() return "custom" end}))'
same yes -e 'error(setmetatable({}, {__tostring = function() return 42 end}))'
same yes -e 'error(setmetatable({}, {__tostring = function() return {} end}))'
same yes -e 'local x = nil; x.y = 1'
same yes -e 'print(1)' -e 'error("second")' -e 'print("not run")'
same yes nosuchfile.lua
same yes -e 'os.exit(3)'
same yes -e 'os.exit(false)'
same yes -e 'os.exit(true, true)'
same yes -e 'io.write("unflushed"); os.exit(0, true)'
# -b: jit.bcsave, luajit's own, no profiler, no report; its failures are
# reported but are not the exit status
same no -bl fail.lua
same no -b fail.lua fail.out
same no -b nosuchfile.lua out.o
same no -b
same no -O3 -bl args.lua
# luaprof's usage errors for what luajit refuses
usage "needs argument" -e
usage "needs argument" -j
usage "must come before" -e 'x=1' -b x.lua
usage "must come before" -E -b x.lua
usage "unrecognized option" -x
usage "unrecognized option" -vx
usage "interactive mode" -i

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
