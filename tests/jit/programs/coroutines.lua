-- coroutines.lua -- coroutines resumed by coroutine.resume and by
-- coroutine.wrap, generators, nested coroutines, a coroutine that dies by
-- an error, one abandoned while suspended, yields from deep inside calls.
-- Prints "calls LINE N" and "errors LINE N" (tests/jit/known.sh).
local N = setmetatable({}, {__index = function() return 0 end})
local E = setmetatable({}, {__index = function() return 0 end})

local function leaf(x)
  N[leaf] = N[leaf] + 1
  return x * 2
end

local function gen(n)                       -- a generator: yields 1..n
  N[gen] = N[gen] + 1
  for i = 1, n do coroutine.yield(leaf(i)) end
  return -1
end

local function deep_yield(d)                -- yields from d calls deep
  N[deep_yield] = N[deep_yield] + 1
  if d == 0 then return coroutine.yield(d) end
  return deep_yield(d - 1) + 1
end

local function inner(n)                     -- a coroutine that runs another
  N[inner] = N[inner] + 1
  local w = coroutine.wrap(gen)
  local s = w(n)
  for _ = 2, n do s = s + w() end
  coroutine.yield(s)
  return s
end

local function dies(n)
  N[dies] = N[dies] + 1
  if n == 0 then error("died") end
  return dies(n - 1) + 1
end

local s = 0
for _ = 1, 50 do
  local co = coroutine.create(gen)
  local ok, v = coroutine.resume(co, 10)
  while v ~= -1 do s = s + v; ok, v = coroutine.resume(co) end
end
for _ = 1, 50 do
  local w = coroutine.wrap(deep_yield)
  s = s + w(5)
  s = s + w(1)                              -- deep_yield returns 6 times
end
for _ = 1, 30 do
  local co = coroutine.create(inner)
  local _, v = coroutine.resume(co, 4)
  s = s + v
  local _, v2 = coroutine.resume(co)
  s = s + v2
end
for _ = 1, 20 do
  local co = coroutine.create(dies)
  local ok = coroutine.resume(co, 3)
  E[dies] = E[dies] + 4                     -- its 4 frames die with it
  s = s + (ok and 1 or 0)
end
for _ = 1, 20 do                            -- abandoned while suspended
  local co = coroutine.wrap(gen)
  s = s + co(3)
end
collectgarbage()
collectgarbage()
print("checksum", s)
for f, c in pairs(N) do print("calls", debug.getinfo(f, "S").linedefined, c) end
for f, c in pairs(E) do print("errors", debug.getinfo(f, "S").linedefined, c) end
