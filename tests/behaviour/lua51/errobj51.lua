-- Lua 5.1 and later (and LuaJIT): error values that are not strings.
-- error() puts its position before strings (5.1 and 5.2: numbers too).
local function show(...)
  local t = {n = select('#', ...), ...}
  for i = 1, t.n do
    local v = t[i]
    if type(v) == "table" or type(v) == "function" or type(v) == "thread" then
      v = type(v)
    end
    t[i] = tostring(v)
  end
  print(table.concat(t, " | ", 1, t.n))
end

local E = setmetatable({code = 42}, {__tostring = function(e) return "E" .. e.code end})
local function raise(v, level) error(v, level) end

local ok, e = pcall(raise, E)
show(ok, e == E, tostring(e), e.code)
ok, e = pcall(raise, E, 2)
show(ok, e == E)
show(pcall(raise, 42))
show(pcall(raise, 42, 0))
show(pcall(raise, 4.5))
show(pcall(raise, true))
show(pcall(raise, false))
show(pcall(raise, nil))
show(pcall(raise, print))
show(pcall(raise, "two", 2))
local function wrapper() raise("three", 3) end
show(pcall(function() wrapper() end))

-- an error object travels through coroutines and wrap unchanged
local co = coroutine.create(function() error(E) end)
local okc, ec = coroutine.resume(co)
show(okc, ec == E)
local w = coroutine.wrap(function() error(E) end)
local okw, ew = pcall(w)
show(okw, ew == E)

-- tables that carry a traceback, the usual pattern
local function with_trace(msg)
  return setmetatable({msg = msg, trace = debug.traceback(msg, 2)},
                      {__tostring = function(t) return "T:" .. t.msg end})
end
local okt, et = xpcall(function() error(with_trace("boom")) end,
                       function(x) return x end)
show(okt, tostring(et))
print(et.trace)

-- error with a table whose __tostring fails, caught
local weird = setmetatable({}, {__tostring = function() return 99 end})
local okx, ex = pcall(error, weird)
show(okx, ex == weird)

-- comparison and arithmetic errors name their operands
show(pcall(function() return {} < {} end))
show(pcall(function() return E + 1 end))
show(pcall(function() local s = "x" return s.y.z end))
-- (argument errors raised from a Lua caller: called by pcall directly, 5.2
-- names a global function "f" or "_G.f", as the order of _G falls)
show(pcall(function() local r = string.rep() return r end))
show(pcall(function() local r = string.format("%d", "x") return r end))
show(pcall(function() local r = setmetatable(1, {}) return r end))
