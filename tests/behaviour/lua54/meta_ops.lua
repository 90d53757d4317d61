-- Metamethods implemented by Lua functions.
local V = {}
V.__index = V
local function vec(x, y) return setmetatable({x = x, y = y}, V) end
V.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
V.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y) end
V.__mul = function(a, b)
  if type(a) == "number" then return vec(a * b.x, a * b.y) end
  if type(b) == "number" then return vec(a.x * b, a.y * b) end
  return a.x * b.x + a.y * b.y
end
V.__div = function(a, s) return vec(a.x / s, a.y / s) end
V.__idiv = function(a, s) return vec(a.x // s, a.y // s) end
V.__mod = function(a, s) return vec(a.x % s, a.y % s) end
V.__pow = function(a, n) return vec(a.x ^ n, a.y ^ n) end
V.__unm = function(a) return vec(-a.x, -a.y) end
V.__band = function(a, b) return vec(a.x & b.x, a.y & b.y) end
V.__bor = function(a, b) return vec(a.x | b.x, a.y | b.y) end
V.__bxor = function(a, b) return vec(a.x ~ b.x, a.y ~ b.y) end
V.__shl = function(a, n) return vec(a.x << n, a.y << n) end
V.__shr = function(a, n) return vec(a.x >> n, a.y >> n) end
V.__bnot = function(a) return vec(~a.x, ~a.y) end
V.__eq = function(a, b) return a.x == b.x and a.y == b.y end
V.__lt = function(a, b) return a.x * a.x + a.y * a.y < b.x * b.x + b.y * b.y end
V.__le = function(a, b) return not (b < a) end
V.__len = function(a) return 2 end
V.__concat = function(a, b)
  local function s(v) return type(v) == "table" and ("(" .. v.x .. "," .. v.y .. ")") or tostring(v) end
  return s(a) .. s(b)
end
V.__tostring = function(a) return "vec" .. ("" .. a) end
V.__call = function(self, ...) return select('#', ...), self.x, ... end
V.__name = "Vector"
function V:len2() return self * self end

local a, b = vec(1, 2), vec(3, 4)
print(tostring(a + b), tostring(a - b), a * b, tostring(2 * a), tostring(a * 3))
print(tostring(b / 2), tostring(b // 2), tostring(b % 2), tostring(a ^ 2), tostring(-a))
print(tostring(a & b), tostring(a | b), tostring(a ~ b), tostring(a << 2), tostring(b >> 1), tostring(~a))
print(a == vec(1, 2), a ~= b, a < b, a <= b, a > b, a >= b, #a)
print(a .. b, a .. "!", "!" .. a, 1 .. a)
print(a(), a(nil, nil), a(1, 2, 3))
print(a:len2(), b:len2())
print(a, b)

-- __index / __newindex functions and tables, chained
local log = {}
local base = {inherited = "from base"}
local mid = setmetatable({}, {__index = base})
local obj = setmetatable({}, {
  __index = function(t, k)
    log[#log + 1] = "get " .. tostring(k)
    return mid[k]
  end,
  __newindex = function(t, k, v)
    log[#log + 1] = "set " .. tostring(k)
    rawset(t, k, v and v * 10)
  end,
})
print(obj.inherited, obj.nothing)
obj.n = 4
print(obj.n, rawget(obj, "n"))
print(table.concat(log, "; "))

-- __index error with level 2 inside a metamethod
local strict = setmetatable({}, {__index = function(_, k) error("no field " .. k, 2) end})
print(pcall(function() return strict.zzz end))

-- __pairs, __close, __mode, __metatable
local pt = setmetatable({}, {__pairs = function(t)
  local i = 0
  return function() i = i + 1 if i <= 3 then return i, i * i end end, t, nil
end, __metatable = "locked"})
for k, v in pairs(pt) do io.write(k, "=", v, " ") end
print()
print(getmetatable(pt), pcall(setmetatable, pt, {}))

-- __eq only called for tables, __lt with mixed types errors
print(pcall(function() return a < 1 end))
print(rawequal(a, vec(1, 2)), rawlen({1, 2, 3}), rawlen("abcd"))

-- __call chains and tail calls through __call
local counter = setmetatable({n = 0}, {__call = function(self, k)
  self.n = self.n + 1
  if k == 0 then return self.n end
  return self(k - 1)
end})
print(counter(100000))
-- error inside a metamethod, uncaught
local bad = setmetatable({}, {__add = function(x, y) local z = nil; return z.field end})
print(bad + 1)
