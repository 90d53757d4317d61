#!/usr/bin/env bash
# `luaprof --heap FILE`: a heap snapshot written when the script ends (after
# it returns, fails or calls os.exit), before the report; a valid JSON file
# (python3 -m json.tool) whose flat arrays hold what docs/heap.md says and
# the objects heap_sample.lua made; with --memory, allocation sites; a path
# that cannot be written: a message, exit status 1 and no file.
#
# usage: heap.sh LUAPROF_BIN
set -u
[ $# -eq 1 ] || { echo "usage: $0 LUAPROF_BIN" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prof=$1
case $prof in /*) ;; */*) prof=$(cd "$(dirname "$prof")" && pwd)/$(basename "$prof") ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (run from there: the chunk's name, as the names in the file show it, is
# heap_sample.lua)
cp "$here/heap_sample.lua" "$tmp/" && cd "$tmp" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check FILE [sites]: the file is JSON, its arrays are consistent, and the
# sample's objects are in it, reachable as _G.Game.world.entities[N].pos
check() {
  python3 -m json.tool "$1" >/dev/null || { fail "$1 is not JSON"; return; }
  python3 - "$1" "${2:-}" <<'PY' || fail "$1: ${2:-}"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["snapshot"]
nodes, edges, strings = d["nodes"], d["edges"], d["strings"]
assert list(d)[:3] == ["snapshot", "nodes", "edges"] and list(d)[-1] == "strings"
n, e = len(nodes) // 7, len(edges) // 3
assert s["node_count"] == n and s["edge_count"] == e, "counts"
assert sum(nodes[i * 7 + 4] for i in range(n)) == e, "edge counts add up"
assert all(edges[k * 3 + 2] % 7 == 0 and edges[k * 3 + 2] // 7 < n for k in range(e))
et = s["meta"]["edge_types"][0]
first, out = 0, []
for i in range(n):
    c = nodes[i * 7 + 4]
    out.append([(et[edges[k * 3]], edges[k * 3 + 1], edges[k * 3 + 2] // 7)
                for k in range(first, first + c)])
    first += c
def name(i): return strings[nodes[i * 7 + 1]]
def follow(i, t, nm):
    for (tt, x, to) in out[i]:
        if tt == t and (x if t in ("element", "hidden") else strings[x]) == nm:
            return to
    raise SystemExit("no %s edge %r from %s" % (t, nm, name(i)))
tables = sum(1 for i in range(n) if name(i) == "table")
assert tables >= 2003, "%d tables" % tables
i = follow(follow(follow(follow(1, "property", "_G"), "property", "Game"),
                  "property", "world"), "property", "entities")
assert sum(1 for (t, x, to) in out[i] if t == "element") == 1000
pos = follow(follow(i, "element", 3), "property", "pos")
assert name(pos) == "table"
w = follow(follow(follow(1, "property", "_G"), "property", "Game"), "property", "worker")
job = follow(w, "context", "job in anonymous (heap_sample.lua:14)")
assert name(follow(job, "property", "kind")) == "job"
rem = follow(follow(follow(1, "property", "_G"), "property", "Game"), "property", "remember")
assert name(rem) == "function Game.remember (heap_sample.lua:11)", name(rem)
follow(rem, "context", "cache")
if sys.argv[2] == "sites":
    sites = s["lua"]["sites"]
    ent = follow(i, "element", 3)
    assert [ent * 7, "local new_entity (heap_sample.lua:5)"] in sites, "sites"
PY
}

"$prof" -o "$tmp/report.txt" --heap "$tmp/a.heapsnapshot" heap_sample.lua >"$tmp/out" 2>&1 ||
  fail "the run failed: $(cat "$tmp/out")"
check "$tmp/a.heapsnapshot"
[ -s "$tmp/report.txt" ] || fail "no report"

# os.exit: the snapshot first
"$prof" -o /dev/null --heap "$tmp/b.heapsnapshot" heap_sample.lua exit >"$tmp/out" 2>&1 ||
  fail "os.exit run failed: $(cat "$tmp/out")"
check "$tmp/b.heapsnapshot"

# memory mode: who allocated each object (and a relative path, --heap=)
"$prof" -o /dev/null --memory --heap=c.heapsnapshot heap_sample.lua >out 2>&1 ||
  fail "--memory run failed: $(cat "$tmp/out")"
check "$tmp/c.heapsnapshot" sites

# a path that cannot be written
"$prof" -o /dev/null --heap "$tmp/none/d.heapsnapshot" heap_sample.lua >"$tmp/out" 2>&1
st=$?
[ $st -eq 1 ] || fail "unwritable path: exit status $st"
grep -q "cannot write the heap snapshot to '$tmp/none/d.heapsnapshot'" "$tmp/out" ||
  fail "unwritable path: message: $(cat "$tmp/out")"
[ ! -e "$tmp/none" ] || fail "unwritable path: something written"

"$prof" --help | grep -q -- '--heap FILE' || fail "--help does not mention --heap"

[ $fails -eq 0 ] && echo "heap.sh: all passed ($prof)"
exit $((fails > 0))
