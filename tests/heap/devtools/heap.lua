-- heap.lua -- a known heap for tests/heap/devtools (run.sh): under
-- `luaprof --heap EXIT`, snapshot HEAP_A, then 50 tables leaked through
-- an upvalue, then snapshot HEAP_B (and luaprof's EXIT after the script).
-- Runs on every Lua luaprof supports (5.1 to 5.4, LuaJIT).
local p = require("luainstr")
local a, b = assert(os.getenv("HEAP_A")), assert(os.getenv("HEAP_B"))

Game = {world = {entities = {}}}
for i = 1, 100 do
  Game.world.entities[i] = {pos = {x = i, y = -i}, name = "entity " .. i}
end

-- the cache is remember's upvalue only: a local of a block that ended
do
  local cache = {}
  function Game.remember(k, v) cache[k] = v end
end

assert(p.snapshot(a))
for i = 1, 50 do Game.remember(i, {i}) end
assert(p.snapshot(b))
