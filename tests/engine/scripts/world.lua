-- world.lua: run by the engine with luaL_dofile.  The engine's shared
-- helpers and its physics system.  Every function here is called only by
-- the engine (or by the other scripts), so the engine knows exactly how
-- many times each one ran.

-- Busy-waits ms milliseconds of CPU time (os.clock): the scripts' work,
-- real time without sleeping.
function spin(ms)
  local stop = os.clock() + ms / 1000
  local x = 0
  while os.clock() < stop do x = x + 1 end
  return x
end

World = { bodies = {} }

for i = 1, 64 do
  World.bodies[i] = { x = i, y = 0, vx = 1, vy = 0.5 }
end

-- The physics system: the engine calls it once a tick (lua_pcall).
function physics_step(dt)
  for _, b in ipairs(World.bodies) do
    b.x, b.y = b.x + b.vx * dt, b.y + b.vy * dt
  end
  spin(0.6)
end
