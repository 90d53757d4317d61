-- debug.traceback() output must be identical.
local M = {}
function M.level3(x)
  print(debug.traceback("in level3 " .. x))
  print(debug.traceback("level 2 start", 2))
  print(debug.traceback())
  return x
end
function M.level2(x)
  local r = M.level3(x)
  return r
end
local function level1(x)
  local v = M.level2(x)
  return v
end
GLOBALFN = function(x) local r = level1(x) return r end
print(GLOBALFN("a"))

local obj = setmetatable({}, {__index = function(t, k)
  print(debug.traceback("index " .. k))
  return k
end})
print(obj.key)

local co = coroutine.create(function(a)
  local function inner() coroutine.yield(a) end
  inner()
  error("co error")
end)
print(coroutine.resume(co, 1))
print(debug.traceback(co))
print(debug.traceback(co, "with msg"))
print(coroutine.resume(co))
print(debug.traceback(co, "after death"))
print(debug.traceback("non-string is returned as is", 1) ~= nil)
print(debug.traceback({}) ~= nil, type(debug.traceback({})))

local ok, tb = xpcall(function()
  local t = nil
  return t[1]
end, debug.traceback)
print(ok, tb)

local function deep(n)
  if n == 0 then error("deep error") end
  local r = deep(n - 1)
  return r
end
print(xpcall(deep, debug.traceback, 30))
