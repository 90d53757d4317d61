#!/usr/bin/env bash
# Debian's luacheck (lua-check: /usr/bin/luacheck is `#!/usr/bin/env lua5.1`,
# its modules are installed for 5.1 only) checking this project's Lua files
# (tests/, samples/, bench/: the behaviour programs of every Lua version,
# the samples, the benchmark programs...), under lua5.1 and under
# luaprof5.1 (luacheck, its argparse and the files it loads instrumented),
# or under luajit and luaprofjit (LuaJIT searches the same 5.1 folders).
# Each command's stdout (luacheck's colored report), stderr and exit status
# (2: some files are 5.4 code that 5.1's syntax rejects) must be the same;
# the report must name functions of luacheck and of argparse.  Both sides
# run from the root of the same fresh copy of the Lua files.  Nothing is
# normalised but the address in LuaJIT's tracebacks (common.sh, run_side).
#
# The commands, as `LUA LUACHECK ARGS` and
# `LUAPROF -f csv -o REPORT LUACHECK ARGS`:
#   tree     --no-cache --no-config --codes --ranges tests samples bench
#   plain    --no-cache --no-config --formatter plain --std STD - < FILE
#            (a 5.1 program read from stdin, the Lua's own globals only:
#            STD lua51, or luajit under luajit)
#   version  --version
#
# usage: luacheck.sh LUAPROF_BIN SOURCE_DIR [LUA]
#   LUAPROF_BIN  luaprof5.1 (or luaprofjit)
#   SOURCE_DIR   this project's root (its tests/, samples/, bench/)
#   LUA          the stock interpreter LUAPROF_BIN is built for: lua5.1
#                (default) or luajit
# (LI_LUAPROF_FLAGS: more luaprof options, split at spaces: --memory.)
set -u
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 LUAPROF_BIN SOURCE_DIR [LUA]" >&2; exit 2; }
# shellcheck source=tests/real/common.sh
. "$here/common.sh"
real_init luacheck.sh "$1" "$2" "${3:-lua5.1}"
std=$("$lua" -e 'io.write(jit and "luajit" or "lua51")' </dev/null) || exit 1
root=$(cd "$2" && pwd) || exit 2

need_tool luacheck
luacheck=$(command -v luacheck)
if ! "$lua" "$luacheck" --version >/dev/null 2>&1 </dev/null; then
  echo "$prog: FAIL: $luacheck does not run under $lua (lua-check)" >&2
  exit 1
fi

# The Lua files, with their paths below the root.
src=$tmp/src
while IFS= read -r -d '' f; do
  mkdir -p "$src/$(dirname "$f")" && cp -- "$root/$f" "$src/$f" || exit 2
done < <(cd "$root" && find tests samples bench -name '*.lua' -type f -print0)
nfiles=$(find "$src" -name '*.lua' | wc -l)
one=tests/behaviour/lua51/fenv51.lua
[ -f "$src/$one" ] || one=$(cd "$src" && find tests -name '*.lua' | sort | head -n 1)

run=$tmp/run
out=$tmp/out
names=(tree plain version)
for side in ref prof; do
  fresh_copy "$src" "$run"
  cd "$run" || exit 2
  for k in "${names[@]}"; do
    mkdir -p "$out/$k"
    if [ $side = ref ]; then cmd=("$lua")
    else cmd=("$prof" ${LI_LUAPROF_FLAGS:-} -f csv -o "$out/$k/report.csv"); fi
    stdin_file=
    case $k in
      tree) args=(--no-cache --no-config --codes --ranges tests samples bench) ;;
      plain) args=(--no-cache --no-config --formatter plain --std "$std" -)
             stdin_file=$run/$one ;;
      version) args=(--version) ;;
    esac
    timed_side "$out/$k" $side "${cmd[@]}" "$luacheck" "${args[@]}"
  done
  stdin_file=
  cd "$tmp" || exit 2
done

msgs=
for k in "${names[@]}"; do
  m=$(differs "$out/$k")
  [ -n "$m" ] && msgs+=$'\n'"  [$k]"$'\n'"$m"
done
m=$(report_lacks "$out/tree/report.csv" "luacheck:/luacheck/" "argparse:/argparse\.lua")
[ -n "$m" ] && msgs+=$'\n'"$m"
# The reference must have done its job: every file checked.
total=$(grep -a 'Total:' "$out/tree/ref.stdout" | sed 's/\x1b\[[0-9;]*m//g')
case $total in
  *" in $nfiles files"*) ;;
  *) msgs+=$'\n'"  luacheck under $lua did not check the $nfiles files: '${total:-no Total line}'" ;;
esac
fns=$(grep -c ',[^,]*/luacheck/[^,]*,[0-9]*,[0-9]*,[1-9]' "$out/tree/report.csv" 2>/dev/null)

echo "luacheck: $nfiles files checked, ${total#Total: } (status $(cat "$out/tree/ref.status")), ${fns:-0} of its functions in the report"
echo "run time: $lua ${ms_ref} ms, $(basename "$prof") ${ms_prof} ms"
if [ -z "$msgs" ]; then
  echo "ok   luacheck: stdout, stderr and exit status identical in ${#names[@]} commands; report written"
  exit 0
fi
echo "FAIL luacheck"
printf '%s\n' "$msgs"
exit 1
