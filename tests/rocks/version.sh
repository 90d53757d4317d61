#!/usr/bin/env bash
# version.sh -- the rockspec's version is CMake's project() version: its
# file name (luainstr-X.Y.Z-R.rockspec) and its `version` field (read by
# Lua itself: a rockspec is a Lua chunk), and its source tag vX.Y.Z.
#
# usage: version.sh CMAKE_VERSION LUA     (LUA: lua5.2 or later: loadfile's env)
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 CMAKE_VERSION LUA" >&2; exit 2; }
want=$1 lua=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd) || exit 2
fail() { echo "rocks/version.sh: FAIL: $*" >&2; exit 1; }

specs=("$src"/luainstr-*.rockspec)
if [ ${#specs[@]} -ne 1 ] || [ ! -f "${specs[0]}" ]; then
  fail "not one luainstr-*.rockspec at the top of the tree: ${specs[*]##*/}"
fi
name=${specs[0]##*/}
[[ $name =~ ^luainstr-([0-9][0-9.]*)-([0-9]+)\.rockspec$ ]] || fail "$name: not luainstr-VERSION-REVISION.rockspec"
file_version=${BASH_REMATCH[1]} revision=${BASH_REMATCH[2]}
[ "$file_version" = "$want" ] || fail "$name: version $file_version in the file name, CMake's is $want"

fields=$(ROCKSPEC=${specs[0]} "$lua" -e '
  local env = {}
  local chunk = assert(loadfile(os.getenv("ROCKSPEC"), "t", env))
  chunk()
  print(env.package, env.version, env.source and env.source.tag, env.build and env.build.type)') ||
  fail "$name: $lua cannot load it"
read -r package version tag build <<<"$fields"
[ "$package" = luainstr ] || fail "$name: package '$package', not luainstr"
[ "$version" = "$want-$revision" ] || fail "$name: version field '$version', the file name and CMake say $want-$revision"
[ "$tag" = "v$want" ] || fail "$name: source.tag '$tag', not v$want"
[ "$build" = cmake ] || fail "$name: build.type '$build', not cmake"
echo "ok: $name: version $version, CMake's project() version $want"
