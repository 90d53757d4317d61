-- closures.lua -- closure-heavy code: closures made in loops, higher-order
-- map/filter/reduce, a stateful iterator, counters captured by upvalue.
-- Usage: closures.lua [ROUNDS]   prints a checksum and its call counts
local ROUNDS = tonumber(arg and arg[1]) or 2000

local function map(t, f)
  local r = {}
  for i = 1, #t do r[i] = f(t[i]) end
  return r
end
local function filter(t, p)
  local r = {}
  for i = 1, #t do if p(t[i]) then r[#r + 1] = t[i] end end
  return r
end
local function reduce(t, f, acc)
  for i = 1, #t do acc = f(acc, t[i]) end
  return acc
end
local function range(n)           -- a stateful iterator
  local i = 0
  return function()
    i = i + 1
    if i <= n then return i end
  end
end
local function adder(k)
  return function(x) return x + k end
end

local data = {}
for i in range(50) do data[#data + 1] = i end
local total = 0
local add
for r = 1, ROUNDS do
  add = adder(r % 7)
  local evens = filter(map(data, add), function(x) return x % 2 == 0 end)
  total = total + reduce(evens, function(a, b) return a + b end, 0)
end
-- per round: adder, map, filter and reduce once, the added closure and the
-- predicate once an element (50); the reducer once an even value, the
-- iterator 51 times once
print("checksum", total)
local function calls(f, n) print("calls", debug.getinfo(f, "S").linedefined, n) end
calls(adder, ROUNDS)
calls(map, ROUNDS)
calls(filter, ROUNDS)
calls(reduce, ROUNDS)
calls(range, 1)
calls(add, ROUNDS * 50)                     -- (the closure adder makes)
