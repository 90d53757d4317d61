-- heap_gen.lua -- the benchmark heap of bench/heap/run.sh: about N objects
-- (default 1,000,000) shaped like a game's world, kept in the global HEAP.
--
--   lua heap_gen.lua [N]          (any Lua from 5.1 on, LuaJIT)
--
-- Every entity is a table with a hash part (id, name, pos, vel, tags,
-- items, update, world, parent), its position (hash part) and velocity
-- (array part of numbers), a tags array of shared strings, an inventory
-- array of item tables, some items with a description string of their
-- own, a closure with upvalues (the entity, a shared config, a counter of
-- its own), and for every eighth entity a full userdata whose uservalue
-- is the entity (a cycle through the uservalue), made by the host's
-- bench_udata() when it has one (bench_heap), or by newproxy() on 5.1 and
-- LuaJIT; none otherwise.  The world holds every entity in an array and
-- by name in a hash; entities point back at the world and at a parent
-- (cycles).  Every thousandth entity also has a coroutine suspended two
-- calls deep with the entity in its locals.  Deterministic: no random
-- numbers.  Returns (and sets HEAP_OBJECTS to) the objects it counted
-- (tables, strings, closures, userdata, threads made; shared strings and
-- prototypes are not counted, the snapshot's node count is the figure).
local N = tonumber((...)) or tonumber(arg and arg[1]) or 1000000

local made = 0
local udata = bench_udata or newproxy   -- (bench_udata: bench_heap.c)
local config = { gravity = -9.81, friction = 0.8, tick = 1 / 60 }
local tagpool = {}
for i = 1, 50 do tagpool[i] = "tag" .. i end
local kinds = { "sword", "shield", "potion", "arrow", "coin", "key", "map" }

local world = { entities = {}, byname = {}, config = config, tick = 0 }
made = made + 3

local function behaviour(e, steps)
  local function walk(n)
    local here = e.pos
    coroutine.yield(here.x + n)
    return n
  end
  for s = 1, steps do walk(s) end
end

local i = 0
while made < N do
  i = i + 1
  local name = string.format("entity:%d", i)
  local e = {
    id = i,
    name = name,
    pos = { x = i * 0.5, y = i % 97, z = -i },
    vel = { i % 7, i % 11, i % 13 },
    tags = { tagpool[i % 50 + 1], tagpool[(i * 7) % 50 + 1], tagpool[(i * 13) % 50 + 1] },
    items = {},
    world = world,
  }
  made = made + 6
  for k = 1, i % 4 do
    local item = { kind = kinds[(i + k) % #kinds + 1], count = k * i % 100 }
    made = made + 1
    if (i + k) % 4 == 0 then
      item.desc = string.format("a %s found at %d,%d", item.kind, i, k)
      made = made + 1
    end
    e.items[k] = item
  end
  local counter = 0
  e.update = function(dt)
    counter = counter + 1
    local p, v = e.pos, e.vel
    p.x = p.x + v[1] * dt * config.friction
    return counter
  end
  made = made + 1
  if i > 1 then e.parent = world.entities[i - (i % 5) > 0 and i - (i % 5) or 1] end
  if udata and i % 8 == 0 then
    e.handle = bench_udata and bench_udata(e) or newproxy(true)
    made = made + 1
  end
  if i % 1000 == 0 then
    local co = coroutine.create(behaviour)
    coroutine.resume(co, e, 3)
    e.brain = co
    made = made + 1
  end
  world.entities[i] = e
  world.byname[name] = e
end

HEAP = world
HEAP_OBJECTS = made
return made
