#!/usr/bin/env bash
# End to end: snapshots written by luaprof (the Lua API's p.snapshot, and
# `luaprof --heap` at exit) read by luaheap.  leak.lua plants a leak held
# through an upvalue: opening the inventory registers a listener whose
# closure keeps the whole UI alive after it is closed.  `luaheap diff A B
# C` (Miku's rule: in B, still in C, not in A) must find exactly it, under
# `_G.Game.on <upvalue listeners>[*]`, with the UI's 103 tables and the
# listener's closure (the JSON read by node's JSON.parse); the two-way
# diff shows the UI still held by its local as well; `luaheap path` of
# the group's example gives its concrete path; and luaprof --heap's file
# reads with its size against collectgarbage("count"); in memory mode
# the leak's objects are those open_inventory made.
#
# usage: e2e.sh LUAPROF LUAHEAP
set -u
set -o pipefail
[ $# -eq 2 ] || { echo "usage: $0 LUAPROF LUAHEAP" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
prof=$1 lh=$2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }

if "$prof" -o "$tmp/report.txt" "$here/leak.lua" "$tmp" 2>"$tmp/err" &&
   [ -s "$tmp/a.heapsnapshot" ] && [ -s "$tmp/b.heapsnapshot" ] &&
   [ -s "$tmp/c.heapsnapshot" ]; then
  ok "leak.lua under luaprof wrote three snapshots"
else
  ko "leak.lua under luaprof" "$(head -c 500 "$tmp/err")"
fi

# the three-way diff: one leak, where it is held, what it holds
"$lh" diff --json "$tmp/a.heapsnapshot" "$tmp/b.heapsnapshot" "$tmp/c.heapsnapshot" \
  >"$tmp/abc.json" 2>"$tmp/err"
if node -e '
  const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const g = d.groups[0], t = {};
  for (const x of g ? g.types : []) t[x.type] = x.count;
  const why = [];
  if (d.shown !== "C") why.push("shown " + d.shown);
  if (!g || g.path !== "_G.Game.on <upvalue listeners>[*]") why.push("path " + (g && g.path));
  else {
    if (t.table !== 103) why.push(t.table + " tables, not 103");
    if (t.function !== 1) why.push(t.function + " functions, not 1");
    if (!(t.string >= 100)) why.push(t.string + " strings, not 100 or more");
    if (g.example.path !== "_G.Game.on <upvalue listeners>[1]") why.push("example " + g.example.path);
    if (d.new.count !== g.count + d.groups.slice(1).reduce((s, x) => s + x.count, 0))
      why.push("groups do not add up to " + d.new.count);
  }
  if (why.length) { console.error(why.join("; ")); process.exit(1); }
' "$tmp/abc.json" 2>"$tmp/why"; then
  ok "diff A B C: the leak under _G.Game.on <upvalue listeners>[*]"
else
  ko "diff A B C" "$(cat "$tmp/why" "$tmp/err" | head -c 500)"
fi

# the text form says the same
"$lh" diff "$tmp/a.heapsnapshot" "$tmp/b.heapsnapshot" "$tmp/c.heapsnapshot" >"$tmp/abc.txt"
if grep -q '^ *[0-9]* *[0-9]*  _G\.Game\.on <upvalue listeners>\[\*\]$' "$tmp/abc.txt"; then
  ok "diff A B C as text"
else
  ko "diff A B C as text" "$(head -c 500 "$tmp/abc.txt")"
fi

# two snapshots: the UI is also held by the main chunk's local in B
"$lh" diff "$tmp/a.heapsnapshot" "$tmp/b.heapsnapshot" >"$tmp/ab.txt"
if grep -q '(main thread) <local ui in main chunk' "$tmp/ab.txt" &&
   grep -q '_G\.Game\.on <upvalue listeners>\[\*\]' "$tmp/ab.txt"; then
  ok "diff A B: the UI held by its local, the listener by the upvalue"
else
  ko "diff A B" "$(head -c 800 "$tmp/ab.txt")"
fi

# the path of the example, by its id
id=$(node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
              console.log(d.groups[0].example.id)' "$tmp/abc.json")
if [ "$("$lh" path "$tmp/c.heapsnapshot" "$id" | head -1)" = "_G.Game.on <upvalue listeners>[1]" ]; then
  ok "path of the leaked listener"
else
  ko "path of the leaked listener" "$("$lh" path "$tmp/c.heapsnapshot" "$id" 2>&1 | head -3)"
fi

# memory mode: the leak's objects also say which function made them
mkdir -p "$tmp/mem"
if "$prof" -o "$tmp/report3.txt" --memory "$here/leak.lua" "$tmp/mem" 2>"$tmp/err" &&
   "$lh" diff --json "$tmp/mem/a.heapsnapshot" "$tmp/mem/b.heapsnapshot" \
     "$tmp/mem/c.heapsnapshot" >"$tmp/mem.json" &&
   node -e '
     const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
     const g = d.groups[0], s = g && g.sites[0];
     if (!d.memory_mode || !s || !/^local open_inventory \(.*leak\.lua:15\)$/.test(s.site) ||
         s.count < 203) {
       console.error(JSON.stringify(g && g.sites)); process.exit(1);
     }' "$tmp/mem.json" 2>"$tmp/why"; then
  ok "diff A B C in memory mode: made by open_inventory (leak.lua:15)"
else
  ko "diff A B C in memory mode" "$(cat "$tmp/why" "$tmp/err" | head -c 500)"
fi

# luaprof --heap: one snapshot at exit
if "$prof" -o "$tmp/report2.txt" --heap "$tmp/exit.heapsnapshot" "$here/leak.lua" "$tmp" 2>"$tmp/err" &&
   "$lh" summary --json "$tmp/exit.heapsnapshot" >"$tmp/exit.json" &&
   node -e '
     const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
     const why = [];
     if (!s.lua || !s.lua.gc_count_bytes) why.push("no gc_count_bytes");
     else if (s.bytes > s.lua.gc_count_bytes) why.push(`${s.bytes} bytes of objects, more than collectgarbage("count") ${s.lua.gc_count_bytes}`);
     if (!s.retainers.some(o => o.path === "_G.Game")) why.push("no _G.Game among the retainers");
     if (why.length) { console.error(why.join("; ")); process.exit(1); }
   ' "$tmp/exit.json" 2>"$tmp/why"; then
  ok "luaprof --heap: read, within collectgarbage(\"count\")"
else
  ko "luaprof --heap" "$(cat "$tmp/why" "$tmp/err" | head -c 500)"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
