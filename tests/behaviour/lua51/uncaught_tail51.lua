-- Lua 5.1 and later: an uncaught error at the end of tail calls (5.1's
-- traceback shows "(tail call): ?", 5.2's "(...tail calls...)").
local function check(x)
  if x > 3 then error("too big: " .. x) end
  return x
end
local function step(n) return check(n) end
local function go(n)
  if n == 0 then return step(7) end
  return go(n - 1)
end
print(step(1))
go(3)
