-- OOP: deep method definitions, inheritance through metatables.
local M = {a = {b = {}}}
function M.a.b:m(x) return self == M.a.b, x end
function M.a.b.f(x) return x * 2 end
function M.a:g() return self.b:m("g") end
print(M.a.b:m(1))
print(M.a.b.f(21), M.a:g())

local Animal = {}
Animal.__index = Animal
function Animal.new(name, sound)
  local self = setmetatable({}, Animal)
  self.name = name
  self.sound = sound or "..."
  return self
end
function Animal:speak() return self.name .. " says " .. self.sound end
function Animal:kind() return "animal" end
function Animal.__tostring(a) return "Animal(" .. a.name .. ")" end
function Animal.__eq(a, b) return a.name == b.name end

local Dog = setmetatable({}, {__index = Animal})
Dog.__index = Dog
Dog.__tostring = Animal.__tostring
function Dog.new(name)
  local self = Animal.new(name, "woof")
  return setmetatable(self, Dog)
end
function Dog:kind() return "dog, a kind of " .. Animal.kind(self) end
function Dog:fetch(thing) return self.name .. " fetches " .. (thing or "nothing") end

local Puppy = setmetatable({}, {__index = Dog})
Puppy.__index = Puppy
Puppy.__tostring = function(p) return "Puppy(" .. p.name .. ")" end
function Puppy.new(name) return setmetatable(Dog.new(name), Puppy) end
function Puppy:kind() return "puppy, " .. Dog.kind(self) end

local animals = {Animal.new("cat", "meow"), Dog.new("rex"), Puppy.new("bit")}
for _, a in ipairs(animals) do
  print(tostring(a), a:speak(), a:kind(), a.fetch and a:fetch("ball"))
end
print(Animal.new("x") == Animal.new("x"), Animal.new("x") == Animal.new("y"))
print(rawget(Dog, "speak"), getmetatable(animals[3]) == Puppy)

-- class with private state in closures
local function Account(balance)
  local self = {}
  function self.deposit(v) balance = balance + v return self end
  function self.withdraw(v)
    if v > balance then error("insufficient funds", 2) end
    balance = balance - v
    return self
  end
  function self.balance() return balance end
  return self
end
local acc = Account(100)
acc.deposit(50).withdraw(30)
print(acc.balance())
print(pcall(acc.withdraw, 1000))

-- methods with varargs and multiple returns through inheritance
local Base = {}
Base.__index = Base
function Base:multi(...) return select('#', ...), ... end
local Derived = setmetatable({}, {__index = Base})
Derived.__index = Derived
local d = setmetatable({}, Derived)
print(d:multi(), d:multi(nil, nil))

-- calling a missing method, uncaught
animals[1]:fetch("stick")
