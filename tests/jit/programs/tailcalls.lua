-- tailcalls.lua -- real tail calls: a tail-recursive loop deeper than any
-- stack would allow without them, mutual tail calls, a tail call through a
-- method and one to a C function, tail calls whose arguments call.
-- Prints "calls LINE N" (tests/jit/known.sh).
local N = setmetatable({}, {__index = function() return 0 end})

local function loop(n, acc)
  N[loop] = N[loop] + 1
  if n == 0 then return acc end
  return loop(n - 1, acc + n)
end

local ping, pong
ping = function(n)
  N[ping] = N[ping] + 1
  if n == 0 then return "ping" end
  return pong(n - 1)
end
pong = function(n)
  N[pong] = N[pong] + 1
  if n == 0 then return "pong" end
  return ping(n - 1)
end

local Obj = {v = 0}
function Obj:step(n)
  N[Obj.step] = N[Obj.step] + 1
  if n == 0 then return self.v end
  self.v = self.v + 1
  return self:step(n - 1)
end

local function id(...)
  N[id] = N[id] + 1
  return ...
end
local function via_args(n)
  N[via_args] = N[via_args] + 1
  if n == 0 then return 0 end
  return via_args(id(n - 1))                -- f(g()): its argument calls
end
local function to_c(x)
  N[to_c] = N[to_c] + 1
  return math.floor(x)                      -- a tail call to a C function
end

local s = 0
for _ = 1, 5 do s = s + loop(200000, 0) end    -- 1e6 levels: tail calls only
for i = 1, 100 do s = s + #ping(i) end
for _ = 1, 100 do s = s + Obj:step(50) end
for _ = 1, 100 do s = s + via_args(30) end
for i = 1, 1000 do s = s + to_c(i + 0.5) end
print("checksum", s)
for f, c in pairs(N) do print("calls", debug.getinfo(f, "S").linedefined, c) end
