-- recursion.lua -- recursion: fib (two calls a level), mutual recursion
-- through a global, a recursion deep enough to grow the shadow stack many
-- times, and a recursive method.  Prints "calls LINE N" for each function,
-- counted by the program itself (N[f]), for tests/jit/known.sh.
local N = setmetatable({}, {__index = function() return 0 end})

local function fib(n)
  N[fib] = N[fib] + 1
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local even
function odd(n)
  N[odd] = N[odd] + 1
  if n == 0 then return false end
  return even(n - 1) and true or false   -- (not a tail call)
end
even = function(n)
  N[even] = N[even] + 1
  if n == 0 then return true end
  return (odd(n - 1))
end

local function depth(n)
  N[depth] = N[depth] + 1
  if n == 0 then return 0 end
  return 1 + depth(n - 1)
end

local Tree = {}
Tree.__index = Tree
function Tree.new(d)
  N[Tree.new] = N[Tree.new] + 1
  if d == 0 then return setmetatable({}, Tree) end
  return setmetatable({Tree.new(d - 1), Tree.new(d - 1)}, Tree)
end
function Tree:count()
  N[Tree.count] = N[Tree.count] + 1
  if not self[1] then return 1 end
  return 1 + self[1]:count() + self[2]:count()
end

local s = 0
for i = 1, 300 do s = s + fib(12 + i % 3) end
for i = 1, 200 do s = s + (even(i) and 1 or 0) end
for _ = 1, 20 do s = s + depth(3000) end
for _ = 1, 50 do s = s + Tree.new(6):count() end
print("checksum", s)
for f, c in pairs(N) do print("calls", debug.getinfo(f, "S").linedefined, c) end
