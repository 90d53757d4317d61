-- callinfo.lua -- activations the probe must tell apart however Lua keeps
-- its CallInfos: Lua 5.1's are an array that moves when deep recursion
-- grows it (luaD_growCI) and when the collector shrinks it again
-- (checkstacksizes); 5.2 to 5.4's a list.  Frames open at shallow depth
-- must still match their exits after the array has moved under them; an
-- error thrown deep and caught shallow must close every frame it unwound.
-- Valid Lua 5.1 to 5.4.  Prints what it computed (the runs compare trees).

local function down(n)          -- not a tail call: every level has a CallInfo
  if n == 0 then return 0 end
  return 1 + down(n - 1)
end

local function fail_at(n)
  if n == 0 then error("deep") end
  local r = fail_at(n - 1)
  return r
end

local function around(depth, inner)
  -- a frame open while the array grows (inner recurses deep) and shrinks
  local r = inner(depth)
  collectgarbage()
  collectgarbage()
  return r + 1
end

local total = 0
for round = 1, 3 do
  total = total + around(3000 * round, down)      -- grows the array
  collectgarbage()                                -- may shrink it
  total = total + down(5)                         -- reuses low indexes
  local ok = pcall(around, 2000, fail_at)          -- error deep, caught here
  total = total + (ok and 1 or 0)
end

-- the same in coroutines: each thread has its own CallInfos
local function worker(depth)
  return coroutine.wrap(function()
    for i = 1, 3 do
      coroutine.yield(around(depth * i, down))
      local ok = pcall(fail_at, depth)
      coroutine.yield(ok and -1 or i)
    end
  end)
end
local a, b = worker(1000), worker(2500)
for _ = 1, 6 do total = total + a() + b() end

-- mutual recursion with the depth changing direction many times
local up
local function zig(n, k)
  if n == 0 then return k end
  if n % 7 == 0 then down(n * 3) end
  return up(n - 1, k + 1) + 0
end
function up(n, k) return zig(n, k) + 0 end
total = total + zig(200, 0)

print("total", total)
