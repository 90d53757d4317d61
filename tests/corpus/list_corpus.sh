#!/usr/bin/env bash
# list_corpus.sh -- print the real-world corpus, one path a line: every
# *.lua and *.nse file that the Debian packages below install (regular
# files only, symbolic links resolved, each file once).  Used by
# run_corpus.sh and by bench_rewrite.
set -euo pipefail

packages=(lua-penlight luarocks lua-busted lua-ldoc lua-luassert prosody
          nmap-common)

for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
       grep -q 'install ok installed'; then
    echo "list_corpus.sh: package $p is not installed (scripts/deps.sh)" >&2
    exit 1
  fi
done

dpkg -L "${packages[@]}" |
  grep -E '\.(lua|nse)$' |
  while IFS= read -r f; do
    if [[ -f $f ]]; then readlink -f -- "$f"; fi
  done |
  LC_ALL=C sort -u
