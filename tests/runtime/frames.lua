-- Frames, zones and memory per function, through the text report: 100
-- frames of 1 ms where frames 10, 50 and 90 also spin 20 ms in hitch are
-- listed as spikes (a floor of 10 ms keeps a busy machine's hiccups out),
-- hitch first by self time in each, within 5 % of 21 ms; a frame the
-- machine stretched past the floor (the case measures each frame's length
-- itself) must be listed too, at the length the case saw, and no other;
-- the zone is entered once a frame; the leak is first by live bytes, the
-- garbage back to about nothing after a collection.
-- variant 5.1 5.2 5.3 jit: the zone by p.zone_begin and p.zone_end (<close> is 5.4's)
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
local lengths = check.case("frames")      -- ns, each frame as the case saw it
collectgarbage()
collectgarbage()
local text = assert(p.dump("text"))

-- The spike rule (runtime/frames.c) applied to the case's own lengths:
-- over 10 ms and over 2x the median of the up to 63 frames before, once
-- there are 4.  Both sides read one clock, but the profiler takes the
-- probes' cost out and marks a little earlier than the case reads, so a
-- frame within 5 % of a bound may go either way.
local HITCH = {[10] = true, [50] = true, [90] = true}
local function median_before(i)
  local w = {}
  for k = math.max(1, i - 63), i - 1 do w[#w + 1] = lengths[k] end
  table.sort(w)
  return w[math.floor((#w + 1) / 2)]
end
local sure, maybe = {}, {}     -- frame -> true
for i = 5, 100 do
  local bound = math.max(10e6, 2 * median_before(i))
  if lengths[i] > bound * 1.05 then sure[i] = true
  elseif lengths[i] > bound * 0.95 then maybe[i] = true end
end
for i in pairs(HITCH) do
  check.truthy("frame " .. i .. " as the case saw it: " .. lengths[i] / 1e6 .. " ms", sure[i])
end

-- frames: 100 marked, 100 kept: mean ...; spikes: ... N seen, N kept
check.truthy("frame summary in:\n" .. text, text:find("\nframes: 100 marked, 100 kept", 1, true))
local seen, kept, keep = text:match("; (%d+) seen, (%d+) kept %(the slowest (%d+) keep")
seen, kept, keep = tonumber(seen), tonumber(kept), tonumber(keep)
local nsure, nmaybe = 0, 0
for _ in pairs(sure) do nsure = nsure + 1 end
for _ in pairs(maybe) do nmaybe = nmaybe + 1 end
check.truthy(("spikes seen: %s, the case's lengths say %d to %d"):format(
  tostring(seen), nsure, nsure + nmaybe),
  seen and seen >= nsure and seen <= nsure + nmaybe)
local UNIT = {s = 1e9, ms = 1e6, us = 1e3, ns = 1}
local spikes, extra = {}, {}
for frame, num, unit, top in text:gmatch("\n  frame (%d+)  ([%d.]+) (%a+): ([^\n(]-) %(") do
  local i, ns = tonumber(frame), tonumber(num) * (UNIT[unit] or 0 / 0)
  spikes[#spikes + 1] = i
  if HITCH[i] then
    check.eq("top self time of spike frame " .. frame, top, "local hitch")
    check.near_ms("spike frame " .. frame, ns, 21)
  else
    -- the machine's doing: listed only if the case saw it that long too
    extra[#extra + 1] = ("%d (%.1f ms)"):format(i, lengths[i] / 1e6)
    check.truthy(("spike frame %d (%s %s) was %.3f ms long as the case saw it"):format(
      i, num, unit, lengths[i] / 1e6), sure[i] or maybe[i])
    check.near_ms("spike frame " .. frame .. " against the case's length", ns, lengths[i] / 1e6)
  end
end
check.eq("spikes listed", #spikes, kept)
-- every frame surely a spike is listed while all seen are kept
if seen and seen <= keep then
  for i in pairs(sure) do
    local listed = false
    for _, f in ipairs(spikes) do listed = listed or f == i end
    check.truthy(("frame %d (%.3f ms as the case saw it) listed as a spike"):format(
      i, lengths[i] / 1e6), listed)
  end
end
if #extra > 0 then
  print("frames: the machine stretched frames " .. table.concat(extra, ", ") ..
        " into spikes; listed, as they should be")
end

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
