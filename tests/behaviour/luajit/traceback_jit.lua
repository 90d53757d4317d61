-- LuaJIT: tracebacks as a program sees them: debug.traceback at several
-- levels, of another coroutine, with a message and a level, inside pcall
-- and xpcall (there the profiler's pcall shows one more line: see
-- run_luaprof.sh, LI_PCALL_FRAME), through wrap, after tail calls, and
-- the uncaught error's traceback on stderr at the end.
local function a() return debug.traceback("from a") end
local function b() local s = a() return s end
print(b())
print(debug.traceback("level 2", 2))
print(debug.traceback(42))
print(debug.traceback(nil) == nil, type(debug.traceback({})))

-- another coroutine's stack, suspended in a nested call
local co = coroutine.create(function()
  local function deeper() coroutine.yield() end
  deeper()
end)
coroutine.resume(co)
print(debug.traceback(co, "suspended co"))
print(debug.traceback(co, "level 1", 1))

-- inside pcall and xpcall, and the handler's view
print(select(2, pcall(function() error(debug.traceback("in pcall", 1), 0) end)))
print(select(2, xpcall(function() local t = nil; return t.x end, debug.traceback)))
local function h(m) return debug.traceback("H: " .. m, 2) end
print(select(2, xpcall(function() error("raised") end, h)))

-- through wrap and tail calls
local gen = coroutine.wrap(function() coroutine.yield(debug.traceback("in wrap")) end)
print(gen())
local function tail_leaf() return debug.traceback("tail") end
local function tail_mid() return tail_leaf() end
print(tail_mid())

-- the end: an uncaught error from inside a coroutine, rethrown by wrap
local function fail_deep(n)
  if n == 0 then error("deep failure") end
  local r = fail_deep(n - 1)
  return r
end
coroutine.wrap(function() fail_deep(3) end)()
