#!/usr/bin/env bash
# ljsyscall_source.sh -- the sources of ljsyscall 0.12 (Debian's
# lua-ljsyscall: Unix system calls for LuaJIT, written in Lua over the FFI),
# fetched once into a cache folder; prints the path of the unpacked tree.
#
#   src=$(bash tests/real/ljsyscall_source.sh [CACHE])   # default build-src/
#
# The binary package installs the library and test/ but not the test
# suite's include/ (luaunit, strict), which upstream keeps beside test/;
# Debian's source package has them in its upstream tarball
# (lua-ljsyscall_0.12.orig.tar.gz).  Only that tarball is used: it is
# checked against the SHA-256 the source package's .dsc gives, so the
# fetch succeeds when the mirror lacks the Debian part (it does here:
# lua-ljsyscall_0.12-1.1.debian.tar.xz is a 404), which holds only the
# packaging.  Needs a deb-src entry (scripts/lua-source.sh adds one).
# Idempotent: nothing is fetched when the tree is there.  Messages go to
# stderr; only the path goes to stdout.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache=${1:-$root/build-src}
tree=$cache/ljsyscall-0.12
if [[ -f $tree/test/test.lua && -f $tree/include/luaunit/luaunit.lua ]]; then
  echo "$tree"
  exit 0
fi

mkdir -p "$cache"
fetch=$(mktemp -d "${TMPDIR:-/tmp}/ljsyscall-source.XXXXXX")
trap 'rm -rf -- "$fetch"' EXIT
# run as root, apt downloads as _apt: into a folder _apt may write
if [[ $(id -u) -eq 0 ]] && id -u _apt >/dev/null 2>&1; then
  chown _apt "$fetch"
fi
chmod 755 "$fetch"
echo "ljsyscall_source.sh: apt-get source --download-only lua-ljsyscall into $cache" >&2
# (its status is not the verdict: the .dsc and the tarball are)
(cd "$fetch" && apt-get source --download-only -qq lua-ljsyscall >/dev/null 2>&1) || true
dsc=$(ls "$fetch"/lua-ljsyscall_*.dsc 2>/dev/null | head -n1 || true)
orig=$(ls "$fetch"/lua-ljsyscall_*.orig.tar.* 2>/dev/null | head -n1 || true)
if [[ -z $dsc || -z $orig ]]; then
  echo "ljsyscall_source.sh: apt-get source lua-ljsyscall gave no .dsc or no upstream tarball" >&2
  exit 1
fi
want=$(awk -v f="$(basename "$orig")" '/^Checksums-Sha256:/ { s = 1; next }
                                       /^[^ ]/ { s = 0 } s && $3 == f { print $1 }' "$dsc")
have=$(sha256sum "$orig" | awk '{ print $1 }')
if [[ -z $want || $want != "$have" ]]; then
  echo "ljsyscall_source.sh: $(basename "$orig") does not match its .dsc (${want:-no checksum})" >&2
  exit 1
fi
# Unpacked beside the cache and moved in whole: two tests that fetch at the
# same time (ctest -j) each see a complete tree or none.
tar -xf "$orig" -C "$fetch"
[[ -f $fetch/ljsyscall-0.12/test/test.lua ]] ||
  { echo "ljsyscall_source.sh: no ljsyscall-0.12/test/test.lua in $(basename "$orig")" >&2; exit 1; }
mv -T -- "$fetch/ljsyscall-0.12" "$tree" 2>/dev/null || [[ -f $tree/test/test.lua ]] ||
  { echo "ljsyscall_source.sh: cannot move the tree to $tree" >&2; exit 1; }
echo "$tree"
