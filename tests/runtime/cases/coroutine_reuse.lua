-- Case of coroutine_reuse.lua: coroutines made and dropped, collected
-- between, so that new ones are made where collected ones were.
local check, rounds, stock_resume = ...
local finalized = check.finalized     -- (a table with __gc; 5.1: a userdata)
local function leaf() end
local function body(n) for _ = 1, n do leaf() end end
local function ybody(n) for _ = 1, n do leaf(); coroutine.yield() end end
-- as ybody, and a finalizer is made after the coroutine's first probe
local function gbody(fin)
  leaf()
  finalized(fin)
  coroutine.yield()
  leaf()
end

-- runs to its end
local function spawn_done()
  local co = coroutine.create(body)
  assert(coroutine.resume(co, 2))
end

-- left suspended with open frames, dropped
local function spawn_abandoned()
  local co = coroutine.create(ybody)
  assert(coroutine.resume(co, 5))
end

-- resumed by the stock resume (as a host's lua_resume): only its probes
-- tell the profiler it runs; its calls hang at the root
local function spawn_stock(n)
  local co = coroutine.create(n == 2 and body or ybody)
  assert(stock_resume(co, n))
end

local function finalizer_spawns()
  finalized(function()
    if stock_resume then spawn_stock(2); spawn_stock(5) end
    spawn_done()
  end)
end

for i = 1, rounds do
  spawn_done()
  spawn_abandoned()
  if stock_resume then spawn_stock(2); spawn_stock(5) end
  finalizer_spawns()
  if i % 2 == 0 then collectgarbage() else
    for _ = 1, i % 7 do collectgarbage("step", 0) end
  end
end
collectgarbage(); collectgarbage()
return {body = body, gbody = gbody}
