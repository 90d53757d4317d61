-- Lua 5.1 / LuaJIT: metatables and OOP.
local V = {}
V.__index = V
local function vec(x, y) return setmetatable({x = x, y = y}, V) end
V.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
V.__unm = function(a) return vec(-a.x, -a.y) end
V.__eq = function(a, b) return a.x == b.x and a.y == b.y end
V.__lt = function(a, b) return a.x < b.x end
V.__le = function(a, b) return a.x <= b.x end
V.__concat = function(a, b) return tostring(a) .. "|" .. tostring(b) end
V.__tostring = function(a) return "(" .. a.x .. "," .. a.y .. ")" end
V.__call = function(self, k) return self[k] end
function V:len2() return self.x * self.x + self.y * self.y end
local a, b = vec(1, 2), vec(3, 4)
print(tostring(a + b), tostring(-a), a == vec(1, 2), a < b, a <= b, a .. b, a("y"), b:len2())
local Animal = {}
Animal.__index = Animal
function Animal.new(name) return setmetatable({name = name}, Animal) end
function Animal:speak() return self.name .. " makes a sound" end
local Dog = setmetatable({}, {__index = Animal})
Dog.__index = Dog
function Dog.new(name) return setmetatable(Animal.new(name), Dog) end
function Dog:speak() return self.name .. " barks; " .. Animal.speak(self) end
print(Animal.new("cat"):speak(), Dog.new("rex"):speak())
local log = {}
local proxy = setmetatable({}, {
  __index = function(t, k) log[#log + 1] = "get " .. k return k .. "!" end,
  __newindex = function(t, k, v) log[#log + 1] = "set " .. k rawset(t, k, v) end,
})
print(proxy.a, proxy.b)
proxy.c = 1
print(proxy.c, table.concat(log, ", "))
local strict = setmetatable({}, {__index = function(_, k) error("no field " .. k, 2) end})
print(pcall(function() return strict.zzz end))
local counter = setmetatable({n = 0}, {__call = function(self, k)
  self.n = self.n + 1
  if k == 0 then return self.n end
  return self(k - 1)
end})
print(counter(100000))
local t = {5, 2, 8, 1}
table.sort(t, function(x, y) return x > y end)
print(table.concat(t, " "))
