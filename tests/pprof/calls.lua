-- calls.lua -- a small program for the pprof tests (tests/pprof/): direct
-- and mutual recursion (a function inside its own cum once per stack),
-- a function called from two places (two paths, one function), a
-- coroutine, a method, and allocations of known kinds for memory mode.
-- Two functions share a name ("anonymous"): pprof's -top adds up functions
-- by name, so the names luainstr gives pprof carry the source and line.

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local is_odd
local function is_even(n)
  if n == 0 then return true end
  return is_odd(n - 1)
end
function is_odd(n)
  if n == 0 then return false end
  return is_even(n - 1)
end

local function make_list(n)
  local t = {}
  for i = 1, n do t[i] = { i, tostring(i) } end
  return t
end

local function total(list)
  local s = 0
  for _, v in ipairs(list) do s = s + v[1] end
  return s
end

local Counter = {}
Counter.__index = Counter
function Counter.new() return setmetatable({ n = 0 }, Counter) end
function Counter:add(k) self.n = self.n + k end

local function producer(n)
  for i = 1, n do coroutine.yield(make_list(i)) end
end

local function consume()
  local co = coroutine.wrap(producer)
  local c = Counter.new()
  for _ = 1, 50 do c:add(total(co(50))) end
  return c.n
end

local sum = 0
for i = 1, 20 do sum = sum + fib(12 + i % 3) end
for i = 1, 200 do if is_even(i) then sum = sum + 1 end end
sum = sum + total(make_list(5000)) + consume()
local step = { function(x) return x + 1 end,
               function(x) return x * 2 % 1000003 end }
for _ = 1, 30 do sum = step[1](sum) end
for _ = 1, 40 do sum = step[2](sum) end
assert(sum > 0)
