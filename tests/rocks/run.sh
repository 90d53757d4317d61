#!/usr/bin/env bash
# run.sh -- the rock, for one Lua, built and used as a user would
# (docs/luarocks.md):
#   1. a copy of the source tree (what git tracks, and new files it does
#      not ignore): luarocks builds in the folder it is given, and ctest
#      runs the versions at once, so never in the source tree itself;
#   2. `luarocks --lua-version V --tree TMP/tree make` there, with nothing
#      of the user's (HOME is a scratch folder) and, for LuaJIT, a luarocks
#      config naming luajit and its headers (pkg-config luajit);
#   3. that tree's paths (`luarocks path`) must find the rock's
#      luainstr.so first, and `lua5.N -l luainstr.run known.lua` must run
#      the program as the plain interpreter does (output, status) and write
#      a csv report holding the call counts known.lua's `-- expect` lines
#      state.
# The build takes what the rockspec's CMake mode builds: the module alone
# (cmake --build's jobs: CMAKE_BUILD_PARALLEL_LEVEL, 2 unless set).
#
# usage: run.sh VERSION     VERSION: 5.1, 5.2, 5.3, 5.4 or jit
# Exits 0 when all passed, 1 at the first failure, 77 (a skip) when a tool
# is missing, unless CI is set: there a missing tool is a failure.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
src=$(cd "$here/../.." && pwd) || exit 2
prog=rocks/run.sh

fail() { echo "$prog: FAIL: $*" >&2; exit 1; }
missing() {
  if [ -n "${CI:-}" ]; then
    echo "$prog: FAIL: $* (CI is set: scripts/deps.sh installs it)" >&2
    exit 1
  fi
  echo "$prog: SKIP: $* (scripts/deps.sh installs it)" >&2
  exit 77
}

[ $# -eq 1 ] || { echo "usage: $0 5.1|5.2|5.3|5.4|jit" >&2; exit 2; }
v=$1
case $v in
  5.[1-4]) interp=lua$v lv=$v ;;
  jit) interp=luajit lv=5.1 ;;      # (LuaJIT's modules live where 5.1's do)
  *) echo "usage: $0 5.1|5.2|5.3|5.4|jit" >&2; exit 2 ;;
esac
for tool in luarocks cmake re2c lemon cc git tar "$interp"; do
  command -v "$tool" >/dev/null 2>&1 || missing "no $tool"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/luainstr-rock-$v.XXXXXX") || exit 2
if [ "${LI_KEEP:-0}" = 1 ]; then
  echo "$prog: keeping $tmp"
else
  trap 'rm -rf -- "$tmp"' EXIT
fi
trap 'exit 130' INT TERM

# A clean luarocks and Lua: nothing from the user's home or environment.
export HOME=$tmp/home
unset LUAROCKS_CONFIG LUA_INIT LUA_PATH LUA_CPATH
for s in 5_1 5_2 5_3 5_4; do
  unset "LUAROCKS_CONFIG_$s" "LUA_INIT_$s" "LUA_PATH_$s" "LUA_CPATH_$s"
done
export LC_ALL=C
mkdir -p "$HOME"
if [ "$v" = jit ]; then
  # luarocks finds lua5.1 first for 5.1: a config names luajit, and the
  # headers luajit's own pkg-config file gives (libluajit-5.1-dev).
  command -v pkg-config >/dev/null 2>&1 || missing "no pkg-config"
  flags=$(pkg-config --cflags-only-I luajit 2>/dev/null) || missing "no luajit.pc (libluajit-5.1-dev)"
  incdir=$(sed -n 's/^-I\([^ ]*\).*/\1/p' <<<"$flags")
  [ -f "$incdir/luajit.h" ] || missing "no luajit.h where pkg-config luajit says ('$flags')"
  bindir=$(dirname "$(command -v luajit)")
  cat >"$tmp/config.lua" <<EOF
lua_interpreter = "luajit"
variables = { LUA_BINDIR = "$bindir", LUA_INCDIR = "$incdir" }
EOF
  export LUAROCKS_CONFIG=$tmp/config.lua
fi
rocks() { luarocks --lua-version "$lv" --tree "$tmp/tree" "$@"; }

# --- 1. the copy ------------------------------------------------------------
mkdir -p "$tmp/src"
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || fail "$src is not a git checkout (the copy is what git lists)"
git -C "$src" ls-files -z -c -o --exclude-standard |
  while IFS= read -r -d '' f; do [ -e "$src/$f" ] && printf '%s\0' "$f"; done |
  tar -C "$src" --null -T - -cf - | tar -C "$tmp/src" -xf - || fail "copying the tree"
specs=("$tmp"/src/luainstr-*.rockspec)
if [ ${#specs[@]} -ne 1 ] || [ ! -f "${specs[0]}" ]; then
  fail "not one luainstr-*.rockspec at the top of the tree: ${specs[*]}"
fi

# --- 2. luarocks make ---------------------------------------------------------
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
start=$SECONDS
(cd "$tmp/src" && rocks make "$(basename "${specs[0]}")") >"$tmp/make.log" 2>&1 || {
  tail -n 40 "$tmp/make.log" >&2
  fail "luarocks --lua-version $lv make (Lua $v)"
}
echo "ok: luarocks make for Lua $v in $((SECONDS - start)) s"
grep -q "Lua $v (headers" "$tmp/make.log" ||
  fail "the rock's CMake did not build for Lua $v: $(grep 'LuaRocks build' "$tmp/make.log")"
# only the module was built: no program, no library of the full build
grep -E "Linking C (executable|static library|shared library)" "$tmp/make.log" >&2 &&
  fail "the rock built more than the module"
mod=$tmp/tree/lib/lua/$lv/luainstr.so
[ -f "$mod" ] || fail "no $mod after luarocks make"
rock_version=$(rocks list --porcelain | awk '$1 == "luainstr" { print $2 }')
[ -n "$rock_version" ] || fail "luarocks list has no luainstr"

# --- 3. the tree's paths, luainstr.run, the report ----------------------------
eval "$(rocks path)" || fail "luarocks path"
# (Lua 5.1 has no package.searchpath: the cpath walked as require does)
found=$("$interp" -e '
  for p in package.cpath:gmatch("[^;]+") do
    local f = p:gsub("%?", "luainstr")
    local h = io.open(f, "rb")
    if h then h:close() print(f) return end
  end')
[ "$found" = "$mod" ] || fail "the tree's paths find '$found' first, not $mod"
# the module's own version is the rock's (less the rockspec's revision)
mod_version=$("$interp" -e 'print(require("luainstr").version)') || fail "require 'luainstr' failed"
[ "$mod_version" = "${rock_version%-*}" ] ||
  fail "require('luainstr').version is '$mod_version', the rock is $rock_version"

cp "$here/known.lua" "$tmp/known.lua"
(cd "$tmp" && "$interp" known.lua) >"$tmp/plain.out" 2>&1 || fail "$interp known.lua failed"
(cd "$tmp" && LUAINSTR_FORMAT=csv LUAINSTR_OUT=report.csv "$interp" -l luainstr.run known.lua) \
  >"$tmp/prof.out" 2>&1 || { cat "$tmp/prof.out" >&2; fail "$interp -l luainstr.run known.lua failed"; }
cmp -s "$tmp/plain.out" "$tmp/prof.out" ||
  { diff "$tmp/plain.out" "$tmp/prof.out" >&2; fail "the output differs under luainstr.run"; }
[ -s "$tmp/report.csv" ] || fail "no report (LUAINSTR_OUT=report.csv)"

# Each `-- expect: calls=N` (on a function's line) and `-- expect-main`
# against the csv's rows of known.lua (columns by the header's names).
awk -F, -v prog=known.lua '
  NR == FNR {
    if (match($0, /-- expect: calls=[0-9]+/)) want[FNR] = substr($0, RSTART + 17, RLENGTH - 17) + 0
    if (match($0, /-- expect-main: calls=[0-9]+/)) want[0] = substr($0, RSTART + 22, RLENGTH - 22) + 0
    next
  }
  FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  {
    n = split($(col["source"]), parts, "/")
    if (parts[n] != prog) next
    line = $(col["line"]) + 0
    got[line] += $(col["calls"])
  }
  END {
    bad = 0
    for (l in want) {
      if (!(l in got)) { printf "line %d: not in the report\n", l; bad = 1 }
      else if (got[l] != want[l]) { printf "line %d: %d calls, expected %d\n", l, got[l], want[l]; bad = 1 }
      else printf "ok: line %d: %d calls\n", l, got[l]
      checked++
    }
    if (checked < 4) { print "fewer than 4 expectations read"; bad = 1 }
    exit bad
  }' "$tmp/known.lua" "$tmp/report.csv" || { cat "$tmp/report.csv" >&2; fail "wrong call counts (Lua $v)"; }
echo "ok: Lua $v: the rock's luainstr.run profiled known.lua"
