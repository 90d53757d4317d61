#!/usr/bin/env bash
# rewrite.sh LUAINSTR [SUITE] -- the rewriter's LuaJIT dialect on real
# LuaJIT code: LuaJIT's own Lua modules (jit/*.lua of the luajit on the
# PATH: bc, bcsave, dump, p, v, zone, the disassemblers ...), when SUITE
# (LuaJIT's test suite, ../shared/luajit-tests) is there every .lua file of
# its test/ and bench/, and the real-world corpus (tests/corpus: Lua code of
# Debian packages, much of it 5.1 code that luajit compiles).
#
# Each file is instrumented with `LUAINSTR --lua jit` (two at a time, into
# a temporary folder), then one luajit runs lines.lua on all of them: every
# file luajit compiles must still compile instrumented, with the same
# functions on the same lines and code on every line that had code.  An
# output identical to its input passes only with a warning saying why.  A
# missing SUITE is said and its files left out; with CI set it is a failure
# (CI keeps it beside the project).  Ends with the line "N passed, N failed
# (...)"; exits 1 if any failed (a file lines.lua gave no verdict on
# fails), 2 on bad usage.
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
n=${#files[@]}

# File i instrumented to $tmp/i.lua, its stderr to $tmp/i.err and a
# non-zero exit status to $tmp/i.st; two workers (CI has two cores), each
# every other file.
instrument() {
  local i
  for ((i = $1; i < n; i += 2)); do
    "$luainstr" --lua jit "${files[i]}" > "$tmp/$i.lua" 2> "$tmp/$i.err" || echo $? > "$tmp/$i.st"
  done
}
instrument 0 &
instrument 1 &
wait

# One luajit checks every pair, one verdict a line in the files' order
# (ORIG's chunk name its base name, so messages are short).
for ((i = 0; i < n; i++)); do
  printf '%s\t%s\n' "${files[i]}" "$tmp/$i.lua"
done > "$tmp/pairs"
lst=0
luajit "$here/lines.lua" < "$tmp/pairs" > "$tmp/verdicts" 2> "$tmp/lines.err" || lst=$?
mapfile -t verdicts < "$tmp/verdicts"

pass=0 failed=0 rejected=0
for ((i = 0; i < n; i++)); do
  f=${files[i]}
  if [ $i -lt ${#verdicts[@]} ]; then
    verdict=${verdicts[i]}
  else
    verdict="lines.lua gave no verdict (it exited $lst: $(head -c 300 "$tmp/lines.err"))"
  fi
  case $verdict in
    rejected*) rejected=$((rejected + 1)); continue ;;
  esac
  st=0
  [ -e "$tmp/$i.st" ] && read -r st < "$tmp/$i.st"
  why=
  if [ "$st" -ne 0 ]; then
    why="luainstr exited $st: $(head -c 300 "$tmp/$i.err")"
  elif [ "${verdict%% *}" != ok ]; then
    why=$verdict
  elif [ "${verdict##* }" = same ] && [ ! -s "$tmp/$i.err" ]; then
    why="output is the input, and no warning says why"
  fi
  if [ -n "$why" ]; then
    echo "FAIL $f: $why"
    failed=$((failed + 1))
  else
    pass=$((pass + 1))
  fi
done
if [ $lst -ne 0 ]; then
  echo "FAIL lines.lua exited $lst: $(head -c 300 "$tmp/lines.err")"
  failed=$((failed + 1))
fi
echo "$pass passed, $failed failed ($rejected files luajit rejects itself left out)"
[ $failed -eq 0 ]
