#!/usr/bin/env bash
# tests/heap/devtools/run.sh BUILD_DIR -- our .heapsnapshot files loaded by
# Chrome DevTools' own heap snapshot code (check.mjs, devtools.mjs).
#
# Installs the npm packages of package-lock.json (chrome-devtools-frontend,
# typescript) into tests/heap/devtools/node_modules, then:
#   known   the hand-written heaps beside this script (known.heapsnapshot,
#           known2.heapsnapshot), against figures worked out by hand;
#   lua     for every luaprof in BUILD_DIR/bin (luaprof, luaprof5.3,
#           luaprof5.2, luaprof5.1, luaprofjit): heap.lua takes two
#           snapshots with p.snapshot and luaprof --heap a third at exit;
#           each is loaded by DevTools and checked against the file read
#           plainly, and DevTools' Comparison of the first two must show the
#           50 tables heap.lua leaks through an upvalue between them;
#   luaheap on each file above: the objects its summary lists have the same
#           names, self and retained sizes in DevTools (two dominator trees
#           computed apart).
# Without node or npm, or when npm ci fails: exits 77 (ctest: skipped), or 1
# when CI is set (CI has them: never a green skip there).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
root=$(cd "$here/../../.." && pwd) || exit 2
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd) || exit 2
prog=heap_devtools
# shellcheck source=../../shared_missing.sh
. "$here/../../shared_missing.sh"

for tool in node npm; do
  command -v "$tool" >/dev/null ||
    shared_missing "$prog" "$tool is not installed" "scripts/deps.sh installs nodejs and npm"
done
cd "$here" || exit 2
if ! npm ci --no-audit --no-fund --loglevel=error >"$here/npm.log" 2>&1; then
  cat "$here/npm.log" >&2
  rm -f "$here/npm.log"
  shared_missing "$prog" "npm ci failed (no npm registry?)" \
    "the packages: tests/heap/devtools/package-lock.json"
fi
rm -f "$here/npm.log"

status=0
echo "== known heaps"
node check.mjs known || status=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-heap-devtools.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT
luaheap=$build/bin/luaheap
[[ -x $luaheap ]] || { echo "FAIL: no $luaheap"; status=1; }
# against_luaheap FILE...: luaheap's figures (C) are DevTools' (check.mjs)
against_luaheap() {
  local f
  for f in "$@"; do
    if ! "$luaheap" summary --json --top 50 "$f" >"$tmp/summary.json" 2>"$tmp/luaheap.err"; then
      echo "FAIL luaheap summary $f: $(cat "$tmp/luaheap.err")"
      status=1
      continue
    fi
    node check.mjs luaheap "$f" "$tmp/summary.json" || status=1
  done
}
[[ -x $luaheap ]] && against_luaheap "$here/known.heapsnapshot" "$here/known2.heapsnapshot"
ran=0
for name in luaprof luaprof5.3 luaprof5.2 luaprof5.1 luaprofjit; do
  bin=$build/bin/$name
  [[ -x $bin ]] || continue
  ran=$((ran + 1))
  # until the snapshot writer (runtime/heap.c) lands: say so, loudly;
  # once include/luainstr.h has luainstr_snapshot, a luaprof without
  # --heap is a failure
  if ! "$bin" --help 2>&1 | grep -q -- '--heap'; then
    if grep -q 'luainstr_snapshot' "$root/include/luainstr.h"; then
      echo "FAIL $name has no --heap"
      status=1
    else
      echo "NOTE $name has no --heap yet: its snapshots are not checked"
    fi
    continue
  fi
  echo "== $name: heap.lua"
  out=$tmp/$name
  mkdir -p "$out"
  if ! (cd "$out" && HEAP_A=$out/a.heapsnapshot HEAP_B=$out/b.heapsnapshot \
          "$bin" --heap "$out/exit.heapsnapshot" -o /dev/null "$here/heap.lua" >"$out/log" 2>&1); then
    echo "FAIL $name --heap heap.lua:"
    sed 's/^/    /' "$out/log"
    status=1
    continue
  fi
  node check.mjs lua "$out/a.heapsnapshot" "$out/b.heapsnapshot" "$out/exit.heapsnapshot" || status=1
  [[ -x $luaheap ]] && against_luaheap "$out/a.heapsnapshot" "$out/b.heapsnapshot" "$out/exit.heapsnapshot"
done
if [[ $ran == 0 ]]; then
  echo "FAIL: no luaprof in $build/bin"
  status=1
fi
exit "$status"
