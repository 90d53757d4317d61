-- phases.lua -- the program of bench/phases.sh: phases of known shape, each
-- a global function phase_KIND() doing a fixed amount of work, called once
-- a round in an order that changes from round to round, with the wall time
-- around each call read from a C clock (bench/phases/clock.c).
--
--   lua phases.lua CLOCK_SO [ROUNDS [SCALE]]
--
--   CLOCK_SO  the phaseclock module built for this Lua (package.loadlib)
--   ROUNDS    rounds (default 5): every phase is called once a round
--   SCALE     work per phase call, a factor on the counts below (default 1;
--             each phase takes about 20-60 ms at 1 on Lua 5.4 here)
--
-- Prints one line a phase call, "phase KIND ROUND NS CPU" (NS: the wall
-- time around the call, the call's own cost and one clock read included;
-- CPU: the thread's CPU time over the same span), then
-- "checksum C" (the same in every mode of one Lua: the work was the same).
-- Runs unchanged on Lua 5.1 to 5.4 and LuaJIT: no integer division, no
-- goto, no bit operators, integers kept below 2^53 so that 5.1's doubles
-- and 5.4's integers give the same sums.  The work of a phase lives in
-- local functions of this chunk (instrumented like the phase) or in
-- builtins (never instrumented); between phases, outside the timed span,
-- a full collection, so that one phase's garbage is not collected in the
-- next one's time.

local clock_so = assert(arg and arg[1], "usage: phases.lua CLOCK_SO [ROUNDS [SCALE]]")
local rounds = tonumber(arg[2] or 5)
local scale = tonumber(arg[3] or 1)
local clock = assert(package.loadlib(clock_so, "luaopen_phaseclock"))()
local now, cpu = clock.now, clock.cpu

local M = 1000003          -- every sum is kept modulo M
local floor = math.floor

-- The iterations of each phase's loop, scaled: computed here so that no
-- phase makes a call to know its size.
local N = { tiny = 1300000, nested = 350000, recursion = 90, method = 350000,
            closure = 650000, nocall = 1400000, builtin = 70, medium = 45000,
            coroutine = 200000 }
for k, n in pairs(N) do N[k] = math.max(1, floor(n * scale + 0.5)) end


-- ---- tiny: a loop calling a one-line function ------------------------------

local function tiny_add(a, b) return a + b end

function phase_tiny()
  local s = 0
  for i = 1, N.tiny do s = tiny_add(s, i) % M end
  return s
end


-- ---- nested: a loop calling a helper that calls two tiny functions ---------

local function leaf_inc(x) return x + 1 end
local function leaf_dbl(x) return x + x end
local function mid(x) return leaf_inc(x) + leaf_dbl(x) end

function phase_nested()
  local s = 0
  for i = 1, N.nested do s = (s + mid(i)) % M end
  return s
end


-- ---- recursion: binary recursion and a deep linear one, tiny bodies --------

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local function depth(n)        -- not a tail call: every level stays open
  if n == 0 then return 0 end
  return 1 + depth(n - 1)
end

function phase_recursion()
  local s = 0
  for i = 1, N.recursion do
    s = (s + fib(18) + depth(2000)) % M   -- 8361 + 2001 calls
  end
  return s
end


-- ---- method: obj:method() calls of tiny methods ---------------------------

local Acc = {}
Acc.__index = Acc
function Acc.new(v) return setmetatable({ v = v }, Acc) end
function Acc:add(x) self.v = (self.v + x) % M end
function Acc:get() return self.v end

function phase_method()
  local o = Acc.new(1)
  local s = 0
  for i = 1, N.method do
    o:add(i)
    s = (s + o:get()) % M
  end
  return s
end


-- ---- closure: calling closures with upvalues ------------------------------

local function counter(k)
  local c = 0
  return function(x)
    c = (c + x * k) % M
    return c
  end
end

function phase_closure()
  local fs = { counter(1), counter(2), counter(3) }
  local s = 0
  for i = 1, N.closure do s = (s + fs[i % 3 + 1](i)) % M end
  return s
end


-- ---- nocall: a loop without any call ---------------------------------------

function phase_nocall()
  local s, t = 0, {}
  for i = 1, 64 do t[i] = i end
  for i = 1, N.nocall do
    local k = i % 64 + 1
    s = (s * 31 + t[k] + i) % M
    t[k] = s
  end
  return s
end


-- ---- builtin: string and maths builtins doing the work, few calls ----------
-- Each builtin call here does tens of microseconds of work, so that a hook
-- profiler, which sees C calls too, pays little more than a probe-based
-- one, which does not see them at all.

local text = string.rep("the quick brown fox jumps over the lazy dog 0123456789 ", 200)
local nums = {}
for i = 1, 200 do nums[i] = (i * 7919) % 1000 end
local unpack = unpack or table.unpack

function phase_builtin()
  local s = 0
  local arr = {}
  for i = 1, N.builtin do
    local up = string.upper(text)
    local r, n = string.gsub(text, "o", "0")
    local a, b = string.find(text, "dog 9", 1, true)   -- absent: scans all
    local _, words = string.gsub(up, "%u+", "")
    for j = 1, 400 do arr[j] = (j * i * 7919) % 10007 end
    table.sort(arr)
    local hi, lo = math.max(unpack(nums)), math.min(unpack(nums))
    local line = table.concat(arr, ",", 1, 100)
    s = (s + #up + #r + n + (a or 0) + words + arr[1] + arr[400]
         + hi + lo + #line + floor(math.sqrt(i * 1e6))) % M
  end
  return s
end


-- ---- medium: calls of bodies of about 1 us (an 80-step loop) --------------

local function medium_body(x)
  local s = x
  for j = 1, 80 do s = (s * 7 + j) % 65521 end
  return s
end

function phase_medium()
  local s = 0
  for i = 1, N.medium do s = (s + medium_body(i)) % M end
  return s
end


-- ---- coroutine: resume/yield ping-pong of small work ----------------------

local function step(v, x) return (v * 3 + x) % M end

local function producer(x)
  local v = 0
  while x ~= nil do
    v = step(v, x)
    x = coroutine.yield(v)
  end
  return v
end

function phase_coroutine()
  local co = coroutine.create(producer)
  local s = 0
  for i = 1, N.coroutine do
    local ok, v = coroutine.resume(co, i)
    s = (s + v) % M
  end
  local ok, v = coroutine.resume(co, nil)   -- it returns: no open frames
  assert(ok and coroutine.status(co) == "dead")
  return (s + v) % M
end


-- ---- the rounds ------------------------------------------------------------

local kinds = { "tiny", "nested", "recursion", "method", "closure", "nocall",
                "builtin", "medium", "coroutine" }

-- Round r's order: the list rotated by r and, every other round, reversed,
-- so that every phase comes after a different one from round to round.
local function order(r)
  local o, n = {}, #kinds
  for j = 1, n do
    local k = (j - 1 + r - 1) % n + 1
    if r % 2 == 0 then o[n + 1 - j] = kinds[k] else o[j] = kinds[k] end
  end
  return o
end

local lines, sum = {}, 0
for r = 1, rounds do
  local o = order(r)
  for j = 1, #o do
    local kind = o[j]
    local f = _G["phase_" .. kind]
    collectgarbage("collect")
    local c0 = cpu()
    local t0 = now()
    local v = f()
    local t1 = now()
    local c1 = cpu()
    lines[#lines + 1] = string.format("phase %s %d %.0f %.0f", kind, r, t1 - t0, c1 - c0)
    sum = (sum + v) % M
  end
end
for i = 1, #lines do print(lines[i]) end
print("checksum " .. string.format("%.0f", sum))
