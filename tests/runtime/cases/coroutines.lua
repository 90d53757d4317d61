-- Coroutines: each has its own stack; suspended time is charged to nobody.
local check = ...
local clock = check.p.clock

local function spin(ms)
  local t = clock() + ms * 1e6
  while clock() < t do end check.over(clock() - t, ms)
end

-- 1. create/resume/yield: 10 ms, yield, (resumer 30 ms), 10 ms
local function cobody()
  spin(10)
  coroutine.yield()
  spin(10)
end
local function resumer()
  local co = coroutine.create(cobody)
  assert(coroutine.resume(co))
  local t = clock() + 30e6 while clock() < t do end check.over(clock() - t, 30) -- inline: self 30 ms
  assert(coroutine.resume(co))
  assert(coroutine.status(co) == "dead")
end

-- 2. wrap, yields from a nested call
local function inner(ms) spin(ms); coroutine.yield(ms) end
local function genbody() for _ = 1, 3 do inner(5) end end
local function consumer()
  local gen = coroutine.wrap(genbody)
  for _ = 1, 3 do assert(gen() == 5); spin(10) end
  gen()                                             -- genbody returns
end

-- 3. yields from metamethods (__index and __call functions; Lua 5.2 on:
-- 5.1 cannot yield across a metamethod)
local mt = {
  __index = function(_, k) spin(5); coroutine.yield(k); spin(5); return k end,
  __call = function(_, a) spin(5); coroutine.yield(a); spin(5); return a end,
}
local obj = setmetatable({}, mt)
local function mmbody()
  assert(obj.x == "x")
  assert(obj(42) == 42)
end
local function mmdriver()
  local co = coroutine.create(mmbody)
  for _ = 1, 3 do assert(coroutine.resume(co)); spin(20) end
  assert(coroutine.status(co) == "dead")
end

-- 4. errors inside coroutines
local function cthrow() spin(5); error({}) end
local function cerr() spin(5); cthrow() end
local function cerr2() spin(5); coroutine.yield(); spin(5); error("late") end
local function errdriver()
  local co = coroutine.create(cerr)
  assert(not coroutine.resume(co))
  co = coroutine.create(cerr2)
  assert(coroutine.resume(co))
  spin(20)
  local ok, e = coroutine.resume(co)
  assert(not ok and e:find("late"))
end
-- an error out of a wrapped coroutine into instrumented frames of the
-- resumer, caught by pcall further down
local function wbody() spin(5); error("through wrap") end
local function wcaller() local g = coroutine.wrap(wbody); g(); spin(100) end
local function wdriver() assert(not pcall(wcaller)) end

-- 5. abandoned coroutines: never finished, collected later
local function abody() spin(10); coroutine.yield(); spin(1000) end
local function abandon()
  local co = coroutine.create(abody)
  assert(coroutine.resume(co))
  local g = coroutine.wrap(abody)
  g()
end

-- 6. coroutine.close of a suspended coroutine (Lua 5.4)
local function cbody() spin(10); coroutine.yield(); spin(1000) end
local function closer()
  local co = coroutine.create(cbody)
  assert(coroutine.resume(co))
  spin(20)
  assert(coroutine.close(co))
end

-- 7. a coroutine resuming another one
local function nest_inner() spin(5); coroutine.yield(); spin(5) end
local function nest_outer()
  local co = coroutine.create(nest_inner)
  spin(5)
  assert(coroutine.resume(co))
  spin(5)
  coroutine.yield()
  assert(coroutine.resume(co))
end
local function nestdriver()
  local co = coroutine.create(nest_outer)
  assert(coroutine.resume(co))
  spin(20)
  assert(coroutine.resume(co))
  assert(coroutine.status(co) == "dead")
end

-- 8. one function active in a suspended coroutine and in the main thread
local function shared(ms, y)
  spin(ms)
  if y then coroutine.yield(); spin(ms) end
end
local function shareddriver()
  local co = coroutine.create(shared)
  assert(coroutine.resume(co, 5, true))
  shared(10, false)
  assert(coroutine.resume(co))
end

-- 9. resuming a coroutine that is not suspended fails, and closes nothing:
-- the running one (main thread or a coroutine) and a normal one (the
-- coroutine that resumed the running one).  (On Lua 5.1 the main thread
-- is no coroutine: coroutine.running() is nil there.)
local function selfresume()
  local running = coroutine.running()
  if running then assert(not coroutine.resume(running)) end
  spin(5)
end
local function normal_body(outer)
  assert(not coroutine.resume(coroutine.running()))
  assert(not coroutine.resume(outer))             -- it is normal, not suspended
  spin(5)
end
local function normal_outer()
  local co = coroutine.create(normal_body)
  assert(coroutine.resume(co, coroutine.running()))
  spin(5)
end
local function normaldriver()
  local co = coroutine.create(normal_outer)
  assert(coroutine.resume(co))
  spin(5)
end

-- 10. yields across pcall and xpcall, and an error after a yield caught by
-- the pcall (Lua 5.2 on: 5.1 cannot yield across a C call)
local function py_inner(fail)
  spin(5); coroutine.yield(); spin(5)
  if fail then error("after the yield") end
end
local function py_body()
  assert(pcall(py_inner))
  assert(xpcall(py_inner, debug.traceback))
  assert(not pcall(py_inner, true))
end
local function pydriver()
  local co = coroutine.create(py_body)
  for _ = 1, 3 do assert(coroutine.resume(co)); spin(10) end
  assert(coroutine.resume(co))
  assert(coroutine.status(co) == "dead")
end

resumer()
consumer()
if check.yields_across_c then mmdriver() end
errdriver()
wdriver()
abandon()
collectgarbage()
collectgarbage()
spin(10)                       -- after the collection: nobody's but main's
if check.lua >= 5.4 then closer() end
nestdriver()
shareddriver()
selfresume()
normaldriver()
if check.yields_across_c then pydriver() end
