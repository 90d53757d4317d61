-- Frame mode (run with --frames, frames.flags): snapshots inside a frame,
-- right after a frame mark, inside a zone, and from a coroutine resumed
-- within a frame; the frames go on as before.
local H = require("heaphelp")
local p = H.p
local world = {}
local function tick(f)
  for i = 1, 200 do world[i] = (world[i] or 0) + i * f end
  if f == 3 then H.snap("inside_frame", nil, "ok") end
  if f == 5 and p then p.zone_begin("snap zone") end
  if f == 5 then H.snap("inside_zone", { collect = true }, "ok") end
  if f == 5 and p then p.zone_end() end
end
local co = coroutine.create(function()
  while true do
    H.snap("coroutine_in_frame", nil, "ok")
    coroutine.yield(#world)
  end
end)
local sum = 0
for f = 1, 8 do
  tick(f)
  if f % 2 == 0 then
    local _, n = coroutine.resume(co)
    sum = sum + n
  end
  if p then p.frame() end
  if f == 4 then H.snap("between_frames", nil, "ok") end
end
local total = 0
for i = 1, #world do total = total + world[i] end
print("total", total, "sum", sum)
