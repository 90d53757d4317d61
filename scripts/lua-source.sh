#!/usr/bin/env bash
# lua-source.sh -- Debian's lua5.N source package, its patches applied,
# fetched once into a cache folder; prints the path of its src/ folder.
#
#   src=$(bash scripts/lua-source.sh [VERSION] [CACHE])
#        # VERSION: 5.1 5.2 5.3, 5.4 (default) or jit (Debian's luajit
#        # source package: its src/ holds lj_obj.h); CACHE: default build-src/
#
# Two builds use it: the WebAssembly build compiles Lua from it
# (LUAINSTR_LUA_SOURCE), and the native builds read Lua's own headers
# (lstate.h) from it for the probe's direct path (LUAINSTR_LUA_INTERNALS,
# runtime/direct.h).  The release must be the one of the installed
# liblua5.4-dev; CMake checks it, and the runtime checks the library it
# runs with.  Idempotent: nothing is installed or fetched again when it is
# there.  Messages go to stderr; only the path goes to stdout.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=5.4
if [[ ${1:-} =~ ^(5\.[1-4]|jit)$ ]]; then version=$1; shift; fi
cache=${1:-$root/build-src}
if [[ $version == jit ]]; then
  package=luajit; glob="luajit-*/src"; header=lj_obj.h; second=lj_api.c
else
  package=lua$version; glob="lua$version-$version.*/src"; header=lstate.h; second=lapi.c
fi

src=$(ls -d "$cache"/$glob 2>/dev/null | head -n1 || true)
if [[ -n $src && -f $src/$header && -f $src/$second ]]; then
  echo "$src"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "lua-source.sh: need root or sudo" >&2; exit 1; }
  sudo=(sudo)
fi
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)

# apt-get source needs a deb-src entry; the machine's sources may have only
# `Types: deb`, so one of our own, beside them.
need_update=0
srcs=/etc/apt/sources.list.d/luainstr-deb-src.sources
if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "lua-source.sh: adding $srcs" >&2
  "${sudo[@]}" tee "$srcs" >/dev/null <<'X'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
X
  need_update=1
fi
# dpkg-dev: dpkg-source, which apt-get source runs to apply the patches
if [[ $(dpkg-query -W -f='${Status}' dpkg-dev 2>/dev/null || true) != "install ok installed" ]]; then
  "${apt[@]}" update -qq
  need_update=0
  echo "lua-source.sh: installing dpkg-dev" >&2
  "${apt[@]}" install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 dpkg-dev >/dev/null
fi
[[ $need_update -eq 1 ]] && "${apt[@]}" update -qq

# Fetched into a scratch folder the user _apt may write, then moved into
# the cache: run as root, apt downloads as _apt, and into a folder _apt
# cannot write it says "Download is performed unsandboxed as root".
mkdir -p "$cache"
echo "lua-source.sh: apt-get source $package into $cache" >&2
fetch=$(mktemp -d "${TMPDIR:-/tmp}/lua-source.XXXXXX")
trap 'rm -rf -- "$fetch"' EXIT
if [[ $(id -u) -eq 0 ]] && id -u _apt >/dev/null 2>&1; then
  chown _apt "$fetch"
fi
chmod 755 "$fetch"
(cd "$fetch" && apt-get source -qq "$package" >/dev/null)
for f in "$fetch"/*; do
  rm -rf -- "${cache:?}/$(basename "$f")"
  mv -- "$f" "$cache"/
done
src=$(ls -d "$cache"/$glob | head -n1)
[[ -f $src/$header ]] || { echo "lua-source.sh: no $header in $src" >&2; exit 1; }
echo "$src"
