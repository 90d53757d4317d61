#!/usr/bin/env bash
# reference_jit.sh DRIVER GARBLE_DRIVER [SUITE] -- the lift of LuaJIT's dumps
# (runtime/bytecode.c) against what LuaJIT itself compiles.
#
# For every Lua file of a corpus that luajit compiles, ref.lua (run by
# luajit) dumps the file wrapped as the loader's form is without probes and
# the file itself as the main function (with and without debug info);
# `DRIVER lift` of the first must give the second byte for byte: the inner
# function made the main one (vararg, first line 0, the text's lines, line
# info re-encoded, the wrapper gone) is exactly LuaJIT's main function of
# the text.  The corpus: tests/bytecode/chunks, the behaviour programs of
# LuaJIT (../behaviour/lua51, ../luajit/dialect), LuaJIT's own modules
# (jit/*.lua), LuaJIT's test suite when SUITE is there (test/, bench/), the
# Debian corpus when its packages are installed (../corpus/list_corpus.sh),
# and ref.lua's generated chunks (lines needing 1-, 2- and 4-byte line info
# either side of the lift, a `#!` line, cdata constants, an empty chunk).
# What runs the lifted chunks is tests/bytecode/run.sh (and jit_loader.sh).
# The wrapper dumps of the small generated chunks whose lift widens the
# line info (1 to 2 and 1 to 4 bytes an entry), with and without debug
# info, and of one with cdata constants go through GARBLE_DRIVER (the
# driver built with AddressSanitizer): every strict prefix refused, no read
# past the end, whatever a changed byte makes of it.
#
# Prints a line per mismatch and `N passed, N failed`; exits 1 on a failure
# or when fewer than 300 files could be compared.
set -u
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 DRIVER GARBLE_DRIVER [SUITE]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
. "$here/../behaviour/common.sh"
driver=$(abspath "$1")
garble=$(abspath "$2")
suite=${3:-}
need_command reference_jit.sh driver "$driver"
need_command reference_jit.sh driver "$garble"
if ! command -v luajit >/dev/null 2>&1; then
  . "$here/../shared_missing.sh"
  shared_missing reference_jit.sh "no luajit on the PATH" "Install Debian's package luajit."
fi
jitdir=$(luajit -e 'local p = package.searchpath("jit.bc", package.path) print(p and p:match("^(.*)/[^/]*$") or "")')
clean_lua_env
tmo=600
setup_run reference_jit.sh li-bcref

{
  ls "$here"/chunks/*.lua "$here"/../behaviour/lua51/*.lua "$here"/../behaviour/lua51/modules/*.lua \
     "$here"/../luajit/dialect/*.lua
  [ -n "$jitdir" ] && ls "$jitdir"/*.lua
  if [ -n "$suite" ] && [ -d "$suite/test" ]; then
    find "$suite/test" "$suite/bench" -name '*.lua' | LC_ALL=C sort
  else
    echo "reference_jit.sh: note: LuaJIT's test suite is not at '$suite': left out" >&2
  fi
  bash "$here/../corpus/list_corpus.sh" 2>/dev/null ||
    echo "reference_jit.sh: note: the Debian corpus is not installed: left out" >&2
} >"$tmp/list"
mkdir -p "$tmp/out"
if ! (cd "$tmp" && luajit "$here/ref.lua" "$tmp/list" "$tmp/out") >"$tmp/written" 2>"$tmp/ref.err"; then
  echo "FAIL ref.lua: $(head -n 5 "$tmp/ref.err")"
  echo "0 passed, 1 failed"
  exit 1
fi

passed=0
failed=0
while read -r n name; do
  [ "$n" = skip ] && continue
  bad=
  for kind in "" s; do
    if ! "$driver" lift "$tmp/out/$n.wrap$kind" "$tmp/out/$n.lift$kind" 2>"$tmp/out/$n.err"; then
      bad+=" lift${kind:+ (stripped)} refused: $(head -c 200 "$tmp/out/$n.err")"
    elif ! cmp -s "$tmp/out/$n.lift$kind" "$tmp/out/$n.ref$kind"; then
      bad+=" lift${kind:+ (stripped)} differs from LuaJIT's main function: $(cmp "$tmp/out/$n.lift$kind" "$tmp/out/$n.ref$kind" 2>&1 | head -n 1)"
    fi
  done
  if [ -z "$bad" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name:$bad"
  fi
done <"$tmp/written"
garbled=0
while read -r n name; do
  case $name in "generated 3+300"|"generated 3+70000"|"generated cdata") ;; *) continue ;; esac
  for kind in "" s; do
    garbled=$((garbled + 1))
    if ! "$garble" garble "$tmp/out/$n.wrap$kind" >"$tmp/out/$n.garble$kind" 2>&1; then
      failed=$((failed + 1))
      echo "FAIL garbled $name${kind:+ (stripped)}: $(head -n 5 "$tmp/out/$n.garble$kind")"
    fi
  done
done <"$tmp/written"
if [ "$garbled" -ne 6 ]; then
  echo "FAIL $garbled dumps garbled, not 6"
  failed=$((failed + 1))
fi
echo "$(grep -c '^skip ' "$tmp/written") files not compared (luajit rejects them, or a comment may end them):"
grep '^skip ' "$tmp/written" | head -n 5 | sed 's/^/    /'
if [ "$passed" -lt 300 ]; then
  echo "FAIL only $passed files compared"
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
