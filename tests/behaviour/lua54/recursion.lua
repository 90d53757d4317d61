-- Recursive algorithms: deterministic, stack-heavy but not overflowing.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(fib(22))
local function ack(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, n - 1))
end
print(ack(2, 3), ack(3, 3))
local moves = 0
local function hanoi(n, from, to, via)
  if n == 0 then return end
  hanoi(n - 1, from, via, to)
  moves = moves + 1
  hanoi(n - 1, via, to, from)
end
hanoi(12, "a", "c", "b")
print(moves)
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(10000))
local function sum_list(t, i)
  i = i or 1
  if i > #t then return 0 end
  return t[i] + sum_list(t, i + 1)
end
local big = {}
for i = 1, 1000 do big[i] = i end
print(sum_list(big))
local function qsort(t, lo, hi)
  lo, hi = lo or 1, hi or #t
  if lo >= hi then return t end
  local p, i = t[hi], lo - 1
  for j = lo, hi - 1 do
    if t[j] <= p then i = i + 1 t[i], t[j] = t[j], t[i] end
  end
  t[i + 1], t[hi] = t[hi], t[i + 1]
  qsort(t, lo, i)
  return qsort(t, i + 2, hi)
end
-- a tiny LCG instead of math.random
local seed = 12345
local function lcg() seed = (seed * 1103515245 + 12345) % 2147483648 return seed end
local data = {}
for i = 1, 200 do data[i] = lcg() % 1000 end
qsort(data)
print(data[1], data[50], data[100], data[200])
-- stack overflow is caught with the same message.  (Only the text after
-- the position is compared here: run without the runtime, the probe is a
-- Lua function on line 1 and the overflow may happen inside it; see
-- known_limits/stack_overflow_fallback.lua.  Under luaprof the whole
-- message is compared by tests/luaprof/run_tests.sh.)
local function overflow() return 1 + overflow() end
local ok, e = pcall(overflow)
print(ok, (e:gsub("^[^:]*:%d+: ", "")))
local function overflow2(n) local t = {n} return overflow2(n + 1) + t[1] end
ok, e = pcall(overflow2, 1)
print(ok, (e:gsub("^[^:]*:%d+: ", "")))
