#!/usr/bin/env bash
# chrome.sh BIN_DIR: trace mode end to end.  luaprof -f chrome on a program
# with coroutines, errors and tail calls; a real JSON parser (python3) reads
# the trace, and on every track the B/E events pair up as calls do, with
# the expected names and counts.  Then a trace with a 10-event buffer: the
# dropped events are counted and said in the output.  Categories are the
# writer's (lua, zone, coroutine, frame), and frame events appear only with
# frame marking on, on a track of their own.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/prog.lua" <<'LUA'
local function leaf(n) return n + 1 end
local function tail(n) if n == 0 then return leaf(0) end return tail(n - 1) end
local function fails() error("x") end
local gen = coroutine.wrap(function()
  for i = 1, 3 do coroutine.yield(leaf(i)) end
end)
for _ = 1, 3 do gen() end
print(tail(5), pcall(fails))
LUA
"$bin/luaprof" -f chrome -o "$tmp/trace.json" "$tmp/prog.lua" >"$tmp/out.txt"
grep -q '^1	false	' "$tmp/out.txt" || { echo "program output wrong"; cat "$tmp/out.txt"; exit 1; }
python3 - "$tmp/trace.json" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
other = d["otherData"]
assert other["tracing"] is True and other["events_dropped"] == 0, other
stacks = collections.defaultdict(list)
calls = collections.Counter()
errors = collections.Counter()
instants = collections.Counter()
last = collections.defaultdict(float)
for e in ev:
    ph = e["ph"]
    if ph == "M":
        continue
    tid = e["tid"]
    assert e["ts"] >= last[tid], ("time goes back", e)
    last[tid] = e["ts"]
    if ph == "B":
        stacks[tid].append(e["name"])
        calls[e["name"]] += 1
    elif ph == "E":
        assert stacks[tid] and stacks[tid][-1] == e["name"], ("unpaired E", e)
        stacks[tid].pop()
        if e.get("args", {}).get("error"):
            errors[e["name"]] += 1
    elif ph == "i":
        instants[e["name"]] += 1
assert all(not s for s in stacks.values()), stacks
names = {n.split(" (")[0]: c for n, c in calls.items()}
assert names["local tail"] == 6, names
assert names["local leaf"] == 4, names
assert names["local fails"] == 1, names
assert names["main chunk"] == 1, names
assert sum(errors.values()) == 1 and list(errors)[0].startswith("local fails"), errors
assert instants["yield"] == 3 and instants["resume"] == 2, instants
assert len(stacks) == 2 or len([t for t in last]) == 2, last
cats = collections.Counter(e.get("cat") for e in ev if e["ph"] != "M")
assert set(cats) <= {"lua", "zone", "coroutine", "frame", None}, cats
framed = [e for e in ev if e.get("cat") == "frame"]
assert other.get("framing", False) or not framed, framed
assert len({e["tid"] for e in framed if e["ph"] == "X"}) <= 1, framed
print("chrome: %d events, %d tracks, calls %s" % (len(ev), len(last), dict(names)))
PY
"$bin/luaprof" --trace=10 -f chrome -o "$tmp/small.json" "$tmp/prog.lua" >/dev/null
python3 - "$tmp/small.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
o = d["otherData"]
assert o["events"] == 10 and o["events_dropped"] > 0 and "dropped" in o["note"], o
assert any("events dropped" in e["name"] for e in d["traceEvents"]), "no note in the trace"
print("chrome: 10-event buffer, %d dropped, said so" % o["events_dropped"])
PY
# The Lua API: p.trace(n) turns trace mode on, p.dump("chrome") shows it.
n=$(LUA_CPATH="$bin/../lib/lua/5.4/?.so" lua5.4 -e '
  local p = require "luainstr"
  assert(p.trace(100)); assert(p.start())
  load("local function f() end for _ = 1, 3 do f() end", "=chunk")()
  assert(p.stop())
  local s = p.dump("chrome")
  local _, n = s:gsub([["ph":"B"]], "")
  print(n)')
[ "$n" = 4 ] || { echo "p.trace/p.dump(\"chrome\"): $n B events, want 4"; exit 1; }
echo "chrome: ok"
