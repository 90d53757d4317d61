-- switch.lua -- coroutine switches: a coroutine.wrap generator yields N
-- values to a loop that sums them (each value: one resume, one yield, and
-- one call of the generator's body per... only the first).
-- Usage: switch.lua [N]
local N = tonumber(arg and arg[1]) or 100000

local gen = coroutine.wrap(function()
  for i = 1, N do coroutine.yield(i) end
end)

local sum = 0
for _ = 1, N do sum = sum + gen() end
print(string.format("checksum %d", sum))
