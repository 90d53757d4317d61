-- Lua 5.3: _ENV, metamethods (incl. __idiv, __band, __gc), strict globals.
local print, setmetatable, tostring, pairs, sort, concat = print, setmetatable, tostring, pairs, table.sort, table.concat
local V = {}
V.__index = V
local function vec(x) return setmetatable({x = x}, V) end
V.__add = function(a, b) return vec(a.x + b.x) end
V.__idiv = function(a, b) return vec(a.x // b) end
V.__band = function(a, b) return vec(a.x & b.x) end
V.__shl = function(a, n) return vec(a.x << n) end
V.__bnot = function(a) return vec(~a.x) end
V.__lt = function(a, b) return a.x < b.x end
V.__le = function(a, b) return a.x <= b.x end
V.__concat = function(a, b) return tostring(a.x or a) .. tostring(b.x or b) end
V.__call = function(self, n) return self.x * n end
V.__len = function() return 99 end
local a, b = vec(12), vec(10)
print((a + b).x, (a // 5).x, (a & b).x, (a << 2).x, (~a).x, a < b, a <= b, a .. b, a(3), #a)
local order = {}
local function gcobj(n) setmetatable({}, {__gc = function() order[#order + 1] = n end}) end
gcobj(1) gcobj(2) gcobj(3)
collectgarbage() collectgarbage()
sort(order)
print(concat(order, " "))
do
  local _ENV = {x = 1}
  y = x + 1
  print(y, z)
end
local function sandbox(_ENV) w = 5 return w end
local env = {}
print(sandbox(env), env.w)
setmetatable(_G, {__index = function(_, k) error("undefined global " .. tostring(k), 2) end,
                  __newindex = function(_, k) error("new global " .. tostring(k), 2) end})
local function f(n) if n == 0 then return "strict ok" end return f(n - 1) end
print(f(100))
print(pcall(function() return nope end))
print(pcall(function() newg = 1 end))
undefined_at_end()
