-- Cycles: a table that is its own key, value, metatable and __index; a
-- ring of 100,000 tables; closures holding each other through upvalues; a
-- coroutine holding itself; two metatables each the other's; a table
-- reached only through a cycle of weak-free references from a closure.
local H = require("heaphelp")

local t = {}
t.self = t
t[t] = t
t.__index = t          -- (t.missing would loop: nothing here reads it)
setmetatable(t, t)

local first = { i = 0 }
local cur = first
for i = 1, 100000 do
  local n = { i = i }
  cur.next = n
  cur = n
end
cur.next = first

local f, g
f = function() return g end
g = function() return f end

local co
co = coroutine.create(function()
  local me = co
  coroutine.yield(me)
  return me
end)
coroutine.resume(co)

local a, b = {}, {}
setmetatable(a, b)
setmetatable(b, a)

local holder
do
  local x, y = {}, {}
  x.y, y.x = y, x
  holder = function() return x end
end

H.snap("cycles", nil, "ok", { nodes_min = 100000 })
H.snap("cycles_collect", { collect = true }, "ok", { nodes_min = 100000 })

local n, c = 0, first
repeat n = n + 1; c = c.next until c == first
print("ring", n)
print(rawequal(t.self, t), rawequal(rawget(t, t), t), rawequal(getmetatable(t), t))
print(rawequal(f(), g), rawequal(g(), f))
print(coroutine.status(co), rawequal(select(2, coroutine.resume(co)), co))
print(rawequal(getmetatable(a), b), rawequal(getmetatable(b), a))
print(rawequal(holder().y.x, holder()))
