-- heap_sample.lua: a heap of known shape for `luaprof --heap` (heap.sh):
-- 1000 entities in a global, each with a position table, a coroutine
-- suspended with a local, a closure holding a cache through an upvalue.
Game = {world = {entities = {}}}
local function new_entity(i)
  return {pos = {x = i, y = 2 * i}, name = "entity " .. i}
end
for i = 1, 1000 do Game.world.entities[i] = new_entity(i) end

local cache = {}
function Game.remember(v) cache[#cache + 1] = v end
Game.remember({"remembered"})

Game.worker = coroutine.create(function()
  local job = {kind = "job"}
  coroutine.yield(job)
end)
coroutine.resume(Game.worker)

if arg[1] == "exit" then os.exit(0) end
print("done")
