-- Creating any new global is an error: the instrumented code must not.
setmetatable(_G, {
  __newindex = function(_, k, v) error("attempt to create global " .. tostring(k), 2) end,
  __index = function(_, k) error("attempt to read undefined global " .. tostring(k), 2) end,
})

local M = {}
function M.add(a, b) return a + b end
function M:method(x) return self == M, x end
local function loop(n) if n == 0 then return 0 end return loop(n - 1) end

print(M.add(1, 2), M:method("x"), loop(10000))

local ok, e = pcall(function() new_global = 1 end)
print(ok, e)
ok, e = pcall(function() function new_fn() end end)
print(ok, e)

local co = coroutine.create(function(...)
  local a = coroutine.yield(select('#', ...))
  return a * 2
end)
print(coroutine.resume(co, 1, 2))
print(coroutine.resume(co, 21))

local t = setmetatable({}, {__close = function() print("closed") end})
do local x <close> = t end

rawset(_G, "allowed", true)
print(allowed)
print(pcall(string.rep, "x", -1))

oops = "created at the end"
