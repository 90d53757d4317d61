#!/usr/bin/env bash
# not_linked.sh -- nothing links libwebsockets: the live server opens it
# (dlopen) when it starts, so that programs that never go live do not pay
# for loading it, libssl, libcrypto and libcap at every start.
#
#   not_linked.sh FILE...   the programs, libraries and Lua modules built,
#                           and the .pc files and CMake package made for
#                           the installation
# Exits 0 when none needs libwebsockets or names it (but in a comment),
# 1 otherwise.
set -euo pipefail
bad=0
for f in "$@"; do
  [[ -e $f ]] || { echo "FAIL: $f: not there" >&2; bad=1; continue; }
  case $f in
    *.pc|*.cmake)
      # (its lines, not its comments)
      if grep -n -v '^[[:space:]]*#' "$f" | grep -i 'websockets\|PkgConfig::LWS' >&2; then
        echo "FAIL: $f names libwebsockets (above)" >&2; bad=1
      fi ;;
    *)
      needed=$(readelf -d "$f" | awk '/\(NEEDED\)/ { print $NF }')
      if grep -i websockets <<<"$needed" >&2; then
        echo "FAIL: $f needs libwebsockets" >&2; bad=1
      fi ;;
  esac
done
[[ $bad == 0 ]] || exit 1
echo "ok: $# files, none links or names libwebsockets"
