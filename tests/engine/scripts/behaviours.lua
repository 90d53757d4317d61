-- behaviours.lua: loaded by the engine with lua_load and its own reader
-- (a few bytes a call).  The bodies of the coroutines the engine's
-- scheduler resumes with lua_resume, and what they call on each resume.

-- One patrol step: once per resume of a patrol.
function patrol_step(id)
  spin(0.4)
  return id
end

-- A patrol never ends: a step, then it yields until the next tick.
function patrol(id)
  while true do
    patrol_step(id)
    coroutine.yield()
  end
end

function cutscene_shot(i)
  spin(0.8)
  return i
end

-- A cutscene of `shots` shots, one a tick, then it ends.
function cutscene(shots)
  for i = 1, shots do
    cutscene_shot(i)
    coroutine.yield(i)
  end
  return "done"
end

function faulty_step(n)
  spin(0.3)
  if n == 2 then error("faulty: second step fails") end
end

-- Fails on its second resume.
function faulty()
  local n = 0
  while true do
    n = n + 1
    faulty_step(n)
    coroutine.yield()
  end
end

-- Builds n tables: the allocations the memory check charges to it.
function make_tables(n)
  local t = {}
  for i = 1, n do t[i] = { i, i + 1 } end
  return t
end

-- Each resume builds n tables (kept until the next resume).
function builder(n)
  local keep
  while true do
    keep = make_tables(n)
    coroutine.yield(#keep)
  end
end

function task_step()
  spin(0.5)
end

-- The task the director resumes through the engine's C function.
function task_body()
  while true do
    task_step()
    coroutine.yield()
  end
end
