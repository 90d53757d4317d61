#!/usr/bin/env bash
# rewrite.sh LUAINSTR [SUITE] -- the rewriter's LuaJIT dialect on real
# LuaJIT code: LuaJIT's own Lua modules (jit/*.lua of the luajit on the
# PATH: bc, bcsave, dump, p, v, zone, the disassemblers ...), when SUITE
# (LuaJIT's test suite, ../shared/luajit-tests) is there every .lua file of
# its test/ and bench/, and the real-world corpus (tests/corpus: Lua code of
# Debian packages, much of it 5.1 code that luajit compiles).
#
# Each file is instrumented with `LUAINSTR --lua jit`, and lines.lua (run
# by luajit) checks that every file luajit compiles still compiles
# instrumented, with the same functions on the same lines and code on every
# line that had code.  An output identical to its input passes only with a
# warning saying why.  A missing SUITE is said and its files left out; with
# CI set it is a failure (CI keeps it beside the project).
set -u
prog=rewrite.sh
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 LUAINSTR [SUITE]" >&2; exit 2; }
luainstr=$1
suite=${2:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
command -v luajit > /dev/null 2>&1 || {
  . "$here/../shared_missing.sh"
  shared_missing "$prog" "no luajit on the PATH" "Install Debian's package luajit."
}

# LuaJIT's own modules: the folder of jit.bc on luajit's package.path.
jitdir=$(luajit -e 'local p = package.searchpath("jit.bc", package.path) print(p and p:match("^(.*)/[^/]*$") or "")')
files=()
if [ -n "$jitdir" ] && [ -d "$jitdir" ]; then
  for f in "$jitdir"/*.lua; do files+=("$f"); done
fi
[ ${#files[@]} -ge 5 ] || { echo "$prog: FAIL: LuaJIT's jit/*.lua not found (jit.bc at '$jitdir')"; exit 1; }
if [ -n "$suite" ] && [ -d "$suite/test" ]; then
  while IFS= read -r f; do files+=("$f"); done < <(find "$suite/test" "$suite/bench" -name '*.lua' | sort)
elif [ -n "${CI:-}" ]; then
  echo "$prog: FAIL: LuaJIT's test suite is not at '$suite' (CI is set: it must be there)"
  exit 1
else
  echo "$prog: note: LuaJIT's test suite is not at '$suite': its files are left out"
fi

corpus=$(bash "$here/../corpus/list_corpus.sh") || { echo "$prog: FAIL: list_corpus.sh failed"; exit 1; }
while IFS= read -r f; do files+=("$f"); done <<< "$corpus"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-luajit-rewrite.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT
pass=0 failed=0 rejected=0
for f in "${files[@]}"; do
  st=0
  "$luainstr" --lua jit "$f" > "$tmp/out.lua" 2> "$tmp/err" || st=$?
  # compiled from the file's folder, so chunk names are short
  verdict=$(cd "$(dirname "$f")" && luajit "$here/lines.lua" "$(basename "$f")" "$tmp/out.lua" 2>&1)
  case $verdict in
    rejected*) rejected=$((rejected + 1)); continue ;;
  esac
  why=
  if [ $st -ne 0 ]; then
    why="luainstr exited $st: $(head -c 300 "$tmp/err")"
  elif [ "${verdict%% *}" != ok ]; then
    why=$verdict
  elif cmp -s "$f" "$tmp/out.lua" && [ ! -s "$tmp/err" ]; then
    why="output is the input, and no warning says why"
  fi
  if [ -n "$why" ]; then
    echo "FAIL $f: $why"
    failed=$((failed + 1))
  else
    pass=$((pass + 1))
  fi
done
echo "$pass passed, $failed failed ($rejected files luajit rejects itself left out)"
[ $failed -eq 0 ]
