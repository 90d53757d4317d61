#!/usr/bin/env bash
# jit_loader.sh LUAPROFJIT -- the loader's form on LuaJIT, end to end:
# jit_loader.lua (what a program sees of main functions the loader lifted:
# debug.getinfo, error positions and tracebacks, string.dump of main and
# inner functions loaded back, stripped or not, 200 locals at the main
# level, chunks loaded with no string metatable, the string library's and
# package.loaded's contents) run by stock luajit and by luaprofjit, with
# the FFI probe, with the JIT off at load (the C probe), and with option
# probe=api: the same output, and each profiled run's report counts the
# calls of jit_loader.lua's own functions and of the chunks it loads (the
# one of 200 locals too).
# Prints `N passed, N failed`.
set -u
[ $# -eq 1 ] || { echo "usage: $0 LUAPROFJIT" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
. "$here/../behaviour/common.sh"
luaprof=$(abspath "$1")
need_command jit_loader.sh luaprofjit "$luaprof"
if ! command -v luajit >/dev/null 2>&1; then
  . "$here/../shared_missing.sh"
  shared_missing jit_loader.sh "no luajit on the PATH" "Install Debian's package luajit."
fi
clean_lua_env
tmo=120
setup_run jit_loader.sh li-jitloader
cp -- "$here/jit_loader.lua" "$tmp/"

passed=0
failed=0
# side NAME CMD...: run in the scratch folder, output to NAME.out
side() {
  local name=$1
  shift
  (cd "$tmp" && "${run_timeout[@]}" "$@" jit_loader.lua </dev/null >"$name.out" 2>&1)
  echo $? >"$tmp/$name.status"
}
side stock luajit
side ffi "$luaprof" -f json -o ffi.json
side joff "$luaprof" -f json -o joff.json -e "jit.off()"
LUAINSTR_PROBE=api side api "$luaprof" -f json -o api.json
for s in ffi:ffi joff:api api:api; do
  name=${s%%:*} probe=${s#*:}
  why=
  cmp -s "$tmp/stock.status" "$tmp/$name.status" ||
    why+=" exit status $(cat "$tmp/stock.status") vs $(cat "$tmp/$name.status");"
  if ! cmp -s "$tmp/stock.out" "$tmp/$name.out"; then
    why+=" output differs:"$'\n'"$(diff -u "$tmp/stock.out" "$tmp/$name.out" | sed -n '3,20s/^/    /p')"
  fi
  # the report: the probe the chunks got (with -e "jit.off()" that chunk
  # itself was loaded with the JIT on: "ffi+api"), and calls counted in them
  if ! grep -Eq "\"probe\": *\"(ffi\+)?$probe\"" "$tmp/$name.json" 2>/dev/null; then
    why+=" the report does not say probe $probe;"
  fi
  for fn in '"local show"' '"local err"' '"local count"'; do
    grep -q "$fn" "$tmp/$name.json" 2>/dev/null || why+=" no function $fn in the report;"
  done
  # the chunk of 200 locals has its probes (the probe is no local there)
  grep -q '"source": *"locals"' "$tmp/$name.json" 2>/dev/null ||
    why+=" the main function with 200 locals was left without probes;"
  if [ -z "$why" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name:$why"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
