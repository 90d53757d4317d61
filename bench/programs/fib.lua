-- fib.lua -- the worst case for a probe: nothing but tiny recursive calls.
-- Usage: fib.lua [N]   (fib(N) computed naively, plus a few smaller ones)
local N = tonumber(arg and arg[1]) or 34

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local sum = 0
local tick = bench_tick  -- bench_host frames mode: a frame mark now and then
for k = N - 2, N do
  if tick then tick() end
  sum = sum + fib(k)
end
print(string.format("checksum %d", sum))
