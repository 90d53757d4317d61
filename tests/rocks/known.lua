-- A known program for the rock's test (tests/rocks/run.sh): each call
-- count follows from the code, and the `-- expect` line on the line that
-- defines a function states it; the report's csv must hold exactly that.
-- expect-main: calls=1
local function leaf(x) return x + 1 end           -- expect: calls=55 (1+2+...+10)
local function mid(n)                              -- expect: calls=10
  local s = 0
  for _ = 1, n do s = leaf(s) end
  return s
end
local function fib(n)                              -- expect: calls=177 (2*fib(11)-1)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
local total = 0
for k = 1, 10 do total = total + mid(k) end
print(total, fib(10))
