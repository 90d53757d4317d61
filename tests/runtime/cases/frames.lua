-- Frames: 100 frames of 1 ms; frames 10, 50 and 90 also spin 20 ms in
-- hitch.  A zone in every frame; garbage and a leak in memory mode.
local check = ...
local p, clock = check.p, check.p.clock

local function spin(ms)
  local t = clock() + ms * 1e6
  while clock() < t do end check.over(clock() - t, ms)
end

local function normal() spin(1) end
-- the spin inline: the time is hitch's self time
local function hitch()
  local t = clock() + 20e6 while clock() < t do end check.over(clock() - t, 20)
end
KEPT = {}
-- (each table stored where it escapes the loop: LuaJIT's compiled code
-- makes none that does not)
local function garbage() for i = 1, 200 do LAST = {i} end end
local function leak(i) KEPT[#KEPT + 1] = {i, i, i} end

-- Each frame's length as the case sees it on the same wall clock, from
-- one mark to the next (the first from here): a machine that deschedules
-- the case in a 1 ms frame makes it a real spike, which the test then
-- expects.
local function update(i)
  garbage()
  leak(i)
  if i == 10 or i == 50 or i == 90 then hitch() end
end
-- The zone around it: a <close> variable on Lua 5.4 (the function is in a
-- file of its own, which older Luas cannot parse), p.zone_begin and
-- p.zone_end before.
local zoned
if check.lua >= 5.4 then
  zoned = assert(loadfile(check.dir .. "/cases/frames_zone54.lua"))(p)
else
  zoned = function(name, f, i) p.zone_begin(name); f(i); p.zone_end() end
end

local lengths, last = {}, clock()
for i = 1, 100 do
  normal()
  zoned("update", update, i)
  assert(p.frame() == true, "p.frame() ended no frame")
  local now = clock()
  lengths[i], last = now - last, now
end
return lengths
