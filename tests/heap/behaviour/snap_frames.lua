-- Frame mode: a game loop that marks frames (p.frame(): a frame when
-- luaprof runs with --frames, false otherwise) and takes snapshots inside
-- frames, between them, inside a zone and from a coroutine the frame
-- resumes.  Prints what the loop computed.
local ok, p = pcall(require, "luainstr")
if not ok then p = nil end
local n = 0
local function snap(opts)
  if not p then return end
  n = n + 1
  local r, err = p.snapshot("frame" .. n .. ".heapsnapshot", opts)
  if not r then io.stderr:write("snapshot failed: ", tostring(err), "\n") end
end

local entities = {}
for i = 1, 30 do entities[i] = { x = i, vx = i % 3 - 1 } end
local ai = coroutine.create(function()
  local thoughts = 0
  while true do
    thoughts = thoughts + 1
    if thoughts % 2 == 0 then snap() end
    coroutine.yield(thoughts)
  end
end)

local log = {}
for frame = 1, 12 do
  for _, e in ipairs(entities) do e.x = e.x + e.vx end
  if frame % 4 == 0 then snap() end
  if frame == 6 and p then p.zone_begin("snapshot zone") end
  if frame == 6 then snap({ collect = true }) end
  if frame == 6 and p then p.zone_end() end
  local _, t = coroutine.resume(ai)
  log[#log + 1] = t
  if p then p.frame() end
  if frame % 5 == 0 then snap() end
end
local sum = 0
for _, e in ipairs(entities) do sum = sum + e.x end
print("positions", sum, "thoughts", table.concat(log, " "))
