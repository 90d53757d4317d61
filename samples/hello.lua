-- hello.lua: a small program for the luainstr demo.
-- Plain functions, a loop, a method call and a tail call; its output does
-- not depend on time or addresses, so the original and the instrumented
-- program must print exactly the same thing.

local function square(x)
  return x * x
end

local function sum_of_squares(n)
  local total = 0
  for i = 1, n do
    total = total + square(i)
  end
  return total
end

-- a tail call: a million levels deep, it only works if the call stays a
-- tail call (Lua's stack holds about a million slots)
local function countdown(n, acc)
  if n == 0 then
    return acc
  end
  return countdown(n - 1, acc + n)
end

local Greeter = {}
Greeter.__index = Greeter

function Greeter.new(name)
  return setmetatable({ name = name, count = 0 }, Greeter)
end

function Greeter:greet(whom)
  self.count = self.count + 1
  return ("%s says hello to %s (#%d)"):format(self.name, whom, self.count)
end

local g = Greeter.new("Lua")
for _, whom in ipairs({ "world", "luainstr", "you" }) do
  print(g:greet(whom))
end
print("sum of squares 1..10 =", sum_of_squares(10))
print("countdown 1000000 =", countdown(1000000, 0))
