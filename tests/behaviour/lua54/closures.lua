-- Closure counters, shared upvalues, closures in loops.
local function counter(start)
  local n = start or 0
  return function(step) n = n + (step or 1) return n end,
         function() return n end
end
local inc, get = counter(10)
inc() inc(5)
print(get(), inc(), get())
local inc2, get2 = counter()
print(inc2(), get2(), get())

local fns = {}
for i = 1, 5 do fns[i] = function() return i * i end end
local out = {}
for i = 1, 5 do out[i] = fns[i]() end
print(table.concat(out, " "))

local shared = {}
do
  local x = 0
  shared.inc = function() x = x + 1 end
  shared.get = function() return x end
end
shared.inc() shared.inc()
print(shared.get())

-- closures over loop variables of while loops
local ws = {}
local j = 0
while j < 3 do
  j = j + 1
  local k = j
  ws[j] = function() return k, j end
end
print(ws[1](), ws[2](), ws[3]())

-- deep closure chain
local function adder(a)
  return function(b)
    return function(c)
      return function(d) return a + b + c + d end
    end
  end
end
print(adder(1)(2)(3)(4))

-- memoize
local function memoize(f)
  local cache = {}
  return function(n)
    local v = cache[n]
    if v == nil then v = f(n) cache[n] = v end
    return v
  end
end
local calls = 0
local slow_sq = function(n) calls = calls + 1 return n * n end
local fast = memoize(slow_sq)
print(fast(4), fast(4), fast(5), calls)

-- recursive local closure through upvalue
local fact
fact = function(n) if n <= 1 then return 1 end return n * fact(n - 1) end
print(fact(20))
local function fact2(n, acc) acc = acc or 1 if n <= 1 then return acc end return fact2(n - 1, acc * n) end
print(fact2(20))
