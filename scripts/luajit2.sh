#!/usr/bin/env bash
# luajit2.sh -- luainstr built against OpenResty's LuaJIT (Debian's
# luajit2 source package: libluajit2-5.1-dev, the luajit2 interpreter) and
# its LuaJIT tests run against that interpreter, without installing it:
# libluajit2-5.1-dev conflicts with libluajit-5.1-dev, which the main build
# needs, so the binary packages are downloaded and unpacked into a cache
# folder, never installed.
#
#   bash scripts/luajit2.sh [BUILD_DIR [CTEST_ARGS...]]
#        # BUILD_DIR: default build-luajit2/; CTEST_ARGS: default
#        # -R 'luajit|_jit' (every test of the jit runtime)
#
# What it does, each step skipped when its result is there:
#   1. apt-get download libluajit2-5.1-2 libluajit2-5.1-common
#      libluajit2-5.1-dev luajit2 into build-src/luajit2-debs/, unpacked
#      (dpkg-deb -x) into build-src/luajit2-debs/root/
#   2. apt-get source luajit2 into build-src/ (its src/ holds lj_obj.h for
#      the runtime's internals), fetched as scripts/lua-source.sh fetches
#      Debian's luajit (which this runs first: it sets up deb-src)
#   3. a luajit.pc whose prefix is the unpacked usr/, for pkg-config
#   4. cmake -DLUAINSTR_LUA_VERSIONS="5.4;jit" with that pkg-config path and
#      -DLUAINSTR_LUAJIT_INTERNALS=<luajit2's src>; the build's programs
#      find the unpacked libluajit-5.1.so.2 by their build rpath
#   5. ctest, with the unpacked interpreter first on PATH as `luajit`
#      (tests name the stock interpreter so) and its library on
#      LD_LIBRARY_PATH
# Before the tests, luaprofjit must be shown to run OpenResty's LuaJIT:
# the unpacked luajit and luaprofjit both load `table.isempty`, one of
# OpenResty's own extensions, which Debian's stock LuaJIT lacks.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=$root/build-src
build=${1:-$root/build-luajit2}
shift || true
[[ $# -gt 0 ]] || set -- -R 'luajit|_jit'
debs=$cache/luajit2-debs
tree=$debs/root
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
libdir=$tree/usr/lib/$multiarch
packages=(libluajit2-5.1-2 libluajit2-5.1-common libluajit2-5.1-dev luajit2)
say() { echo "luajit2.sh: $*" >&2; }

# A scratch folder the user _apt may write: run as root, apt downloads as
# _apt (lua-source.sh says why).
scratch() {
  local d
  d=$(mktemp -d "${TMPDIR:-/tmp}/luajit2.XXXXXX")
  if [[ $(id -u) -eq 0 ]] && id -u _apt >/dev/null 2>&1; then chown _apt "$d"; fi
  chmod 755 "$d"
  echo "$d"
}

# deb-src and dpkg-dev, and Debian's own LuaJIT source for the main build
bash "$root/scripts/lua-source.sh" jit "$cache" >/dev/null

# 1. the binary packages, unpacked
if [[ ! -x $tree/usr/bin/luajit || ! -f $libdir/pkgconfig/luajit.pc ]]; then
  say "apt-get download ${packages[*]} into $debs"
  fetch=$(scratch)
  (cd "$fetch" && apt-get download -qq "${packages[@]}" >/dev/null)
  rm -rf -- "$tree" && mkdir -p "$tree"
  for p in "${packages[@]}"; do
    deb=$(ls "$fetch"/"${p}"_*.deb)
    dpkg-deb -x "$deb" "$tree"
    mv -- "$deb" "$debs"/
  done
  rm -rf -- "$fetch"
fi

# 2. the source package
src=$(ls -d "$cache"/luajit2-2.1-*/src 2>/dev/null | head -n1 || true)
if [[ -z $src || ! -f $src/lj_obj.h ]]; then
  say "apt-get source luajit2 into $cache"
  fetch=$(scratch)
  (cd "$fetch" && apt-get source -qq luajit2 >/dev/null)
  for f in "$fetch"/*; do
    rm -rf -- "${cache:?}/$(basename "$f")"
    mv -- "$f" "$cache"/
  done
  rm -rf -- "$fetch"
  src=$(ls -d "$cache"/luajit2-2.1-*/src | head -n1)
fi
[[ -f $src/lj_obj.h ]] || { say "no lj_obj.h in $src"; exit 1; }

# 3. pkg-config's view of the unpacked tree
mkdir -p "$debs/pkgconfig"
sed "s|^prefix=/usr\$|prefix=$tree/usr|" "$libdir/pkgconfig/luajit.pc" >"$debs/pkgconfig/luajit.pc"
grep -q "^prefix=$tree/usr\$" "$debs/pkgconfig/luajit.pc" ||
  { say "no 'prefix=/usr' line in luajit2's luajit.pc"; exit 1; }

# 4. the build (its logs in the build folder)
t0=$(date +%s)
mkdir -p "$build"
PKG_CONFIG_PATH=$debs/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} \
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DLUAINSTR_LUA_VERSIONS="5.4;jit" \
        -DLUAINSTR_LUA_INTERNALS="$(bash "$root/scripts/lua-source.sh" 5.4 "$cache")" \
        -DLUAINSTR_LUAJIT_INTERNALS="$src" \
        -DCMAKE_BUILD_RPATH="$libdir" >"$build/luajit2-cmake.log" 2>&1 ||
  { tail -n 30 "$build/luajit2-cmake.log" >&2; say "cmake failed (log: $build/luajit2-cmake.log)"; exit 1; }
cmake --build "$build" -j"$(nproc)" >"$build/luajit2-build.log" 2>&1 ||
  { grep -E 'error|Error' "$build/luajit2-build.log" | head -n 30 >&2; say "the build failed (log: $build/luajit2-build.log)"; exit 1; }
t1=$(date +%s)
say "built in $((t1 - t0)) s"

# 5. the tests, against the unpacked interpreter
mkdir -p "$debs/bin"
ln -sf "$tree/usr/bin/luajit" "$debs/bin/luajit"
export PATH=$debs/bin:$PATH
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
prof=$build/bin/luaprofjit
probe='io.write(tostring(pcall(require, "table.isempty")), " ", jit.version)'
have=$(luajit -e "$probe" </dev/null)
have_prof=$("$prof" -o /dev/null -e "$probe" </dev/null)
if [[ $have != "true LuaJIT"* || $have_prof != "$have" ]]; then
  say "not OpenResty's LuaJIT: luajit says '$have', luaprofjit '$have_prof'"
  exit 1
fi
say "luajit ($(command -v luajit)) and luaprofjit run OpenResty's LuaJIT (table.isempty loads)"
ldd "$prof" | grep -q "$libdir/libluajit" ||
  { say "$prof does not link $libdir's libluajit"; exit 1; }
status=0
ctest --test-dir "$build" -j"$(nproc)" --output-on-failure "$@" || status=$?
t2=$(date +%s)
say "tests run in $((t2 - t1)) s (status $status)"
exit "$status"
