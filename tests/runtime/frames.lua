-- Frames, zones and memory per function, through the text report: 100
-- frames of 1 ms where frames 10, 50 and 90 also spin 20 ms in hitch are
-- listed as exactly those three spikes (a floor of 10 ms keeps a busy
-- machine's hiccups out), hitch first by self time in each, within 5 %
-- of 21 ms; the zone is entered once a frame; the leak is first by live
-- bytes, the garbage back to about nothing after a collection.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"
local p = check.p

-- what a table of one and of three values takes here (64 and 32 bits
-- differ), as Lua counts it
local function size_of(make)
  collectgarbage("stop")
  local c0 = collectgarbage("count")
  local t = make()
  local bytes = (collectgarbage("count") - c0) * 1024
  collectgarbage("restart")
  return bytes, t
end
local size1 = size_of(function() return {1} end)
local size3 = size_of(function() return {1, 2, 3} end)

assert(p.frames(true))
assert(p.option("spike_ms", "10"))
assert(p.memory(true))
check.case("frames")
collectgarbage()
collectgarbage()
local text = assert(p.dump("text"))

-- frames: 100 marked, 100 kept: mean ..., spikes: ... N seen, N kept
check.truthy("frame summary in:\n" .. text, text:find("\nframes: 100 marked, 100 kept", 1, true))
local spikes = {}
for frame, ms, unit, top in text:gmatch("\n  frame (%d+)  ([%d.]+) (%a+): ([^\n(]-) %(") do
  spikes[#spikes + 1] = tonumber(frame)
  check.eq("top self time of spike frame " .. frame, top, "local hitch")
  check.eq("unit of spike frame " .. frame, unit, "ms")
  check.near_ms("spike frame " .. frame, tonumber(ms) * 1e6, 21)
end
check.eq("spike frames", table.concat(spikes, " "), "10 50 90")

check.fn("zone update", {calls = 100, errors = 0}, "zone")
check.fn("local hitch", {calls = 3, total = 60})

-- memory: the live ranking puts leak first
local live = text:match("\nlive at the end, most first:\n([^\n]*)")
check.truthy("a live-bytes ranking in:\n" .. text, live)
check.truthy("leak is first by live bytes: " .. tostring(live),
             live and live:find("local leak", 1, true))
local g, l = check.row("local garbage"), check.row("local leak")
check.truthy("garbage allocated: " .. (g and g.alloc_bytes or "?") .. " B",
             g and tonumber(g.alloc_bytes) >= 100 * 200 * size1)
check.truthy("garbage freed: live " .. (g and g.live_bytes or "?"),
             g and tonumber(g.live_bytes) < tonumber(g.alloc_bytes) / 20)
check.truthy("leak live: " .. (l and l.live_bytes or "?") .. " B",
             l and tonumber(l.live_bytes) >= 100 * size3)
check.done()
