-- Errors thrown through instrumented frames and caught by pcall/xpcall.
local check = ...
local clock = check.p.clock

local function spin(ms)
  local t = clock() + ms * 1e6
  while clock() < t do end check.over(clock() - t, ms)
end

local function thrower(ms, v) spin(ms); error(v) end
local function mid(ms, v) spin(ms); thrower(ms, v) end

-- string error value
local function catch_string()
  local ok, e = pcall(mid, 5, "boom")
  assert(not ok and e:find("boom", 1, true))
end
-- table error value
local function catch_table()
  local v = {code = 7}
  local ok, e = pcall(mid, 5, v)
  assert(not ok and e == v)
end
-- nil error value, caught by xpcall with a handler (which is instrumented:
-- it runs on top of the unwinding frames and must not be an error exit)
local function handler(e) return {wrapped = e} end
local function catch_xpcall()
  -- (Lua 5.1's xpcall passes the function no arguments; LuaJIT's does)
  local ok, e
  if check.xpcall_args then ok, e = xpcall(mid, handler, 5, nil)
  else ok, e = xpcall(function() return mid(5, nil) end, handler) end
  assert(not ok and type(e) == "table" and e.wrapped == nil)
end
-- an error raised by a builtin (C function) through instrumented frames
local function cerr() spin(5); local s = ("x"):rep(nil); return s end
local function calls_cerr() cerr(); spin(100) end   -- spin never runs
local function catch_builtin()
  assert(not pcall(calls_cerr))
end
-- a pcall nested inside frames that an outer pcall then unwinds
local function inner_catch()
  local ok = pcall(thrower, 5, "inner")
  assert(not ok)
  error(setmetatable({}, {__tostring = function() return "obj" end}))
end
local function catch_nested()
  assert(not pcall(inner_catch))
end

local function after() spin(10) end
-- the profile stays balanced: later calls are attributed correctly
local function outer() spin(5); after() end

catch_string()
catch_table()
catch_xpcall()
catch_builtin()
catch_nested()
after()
outer()
