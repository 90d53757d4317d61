-- Lua 5.1 and later: an uncaught number.  error() puts the position before
-- it in 5.1 and 5.2 (a number is a string to them), not in 5.3.
local function compute(n)
  if n > 2 then error(n * 10) end
  return compute(n + 1) + 1
end
print(pcall(compute, 0))
compute(1)
