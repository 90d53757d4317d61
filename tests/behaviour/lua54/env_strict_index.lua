-- Strict mode: reading an undefined global raises an error.
local mt = {}
setmetatable(_G, mt)
mt.__index = function(_, k) error("undefined global " .. tostring(k), 2) end

local function f(n)
  if n == 0 then return "done" end
  return f(n - 1)
end
print(f(1000))

function defined_global(a, ...)
  local t = {...}
  return a, #t
end
print(defined_global(1, 2, 3))

local co = coroutine.wrap(function(x) coroutine.yield(x + 1) return "end" end)
print(co(1), co())

local ok, e = pcall(function() return not_defined end)
print(ok, e)

local obj = setmetatable({}, {__index = function(t, k) return k .. "!" end})
print(obj.hello)

print(select('#', (function() end)()))
print(string.format("%d", 42))

-- an uncaught strict-mode error at the end
local function use() return another_missing + 1 end
use()
