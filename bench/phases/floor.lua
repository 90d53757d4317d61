-- floor.lua -- what inserting a probe costs by itself, with no profiler:
-- the floor under any subtraction (issue 32, bench/floor.sh).
--
--   lua floor.lua CLOCK_SO [ROUNDS [SCALE]]
--
-- Small functions of the shapes game code is made of, each phase a loop
-- of calls, loaded four times from one text with the mark at each
-- function's entry and at the end of each return list replaced by:
--   plain    nothing
--   count    `nop(7, 1)` at entry: an empty C function called as a count
--            probe is (`__LI(id, 1)`), from an upvalue as the probe is
--   pair     `nop(7)` at entry, `return E, nop()` at exit: the two calls of
--            a timed probe pair, doing nothing
--   counter  `cnt[1] = cnt[1] + 1` at entry: a Lua table's counter, no call
-- nop is the phaseclock module's (bench/phases/clock.c): it returns
-- nothing, reads no clock.  On LuaJIT it is what luaprofjit's probe is: a
-- Lua vararg function that calls a C function through the FFI (here the
-- module's empty phaseclock_nop), so that traces compile as they do under
-- luaprofjit (a classic C function would stop them).  Every round times each phase of each copy in
-- turn (the order turning), with a full collection before each call; the
-- table gives per phase the plain copy's ns a call and, per copy, what the
-- insert added a call (median over the rounds, and the spread); then per
-- copy the range of constants that, taken out of every call, would put
-- every phase within 0.8-1.25x of its plain time ("none": no one figure
-- can, whatever the calibration).  Runs on Lua 5.1-5.4 and LuaJIT.
local clock_so = assert(arg and arg[1], "usage: floor.lua CLOCK_SO [ROUNDS [SCALE]]")
local rounds = tonumber(arg[2] or 9)
local scale = tonumber(arg[3] or 1)
local clock = assert(package.loadlib(clock_so, "luaopen_phaseclock"))()
local now = clock.now
local load = loadstring or load

local nop, how = clock.nop, "an empty C function"
if jit then
  local ffi = require("ffi")
  ffi.cdef("void phaseclock_nop(void *, int32_t);")
  local c = ffi.load(clock_so).phaseclock_nop
  how = "a Lua function calling an empty C function through the FFI"
  nop = function(id, ...)                  -- the shape of luaprofjit's probe
    if id then
      if id > 0 then c(nil, id) return end
      c(nil, 0)
      return ...
    end
    c(nil, 0)
  end
end

-- @ marks an entry, ~ the end of a return list.  N: calls a phase makes.
local src = [[
local nop, cnt, N = ...
local M = 1000003
local function add2(a, b) @ return a + b ~ end
function phase_tiny()
  local s = 0
  for i = 1, N do s = add2(s, i) % M end
  return s
end
local function add_mod(a, b) @ return (a + b) % M ~ end
function phase_upvalue()
  local s = 0
  for i = 1, N do s = add_mod(s, i) end
  return s
end
local fs = { add2, function(a, b) @ return a + b ~ end,
             function(a, b) @ return b + a ~ end }
function phase_table3()
  local s = 0
  for i = 1, N do s = fs[i % 3 + 1](s, i) % M end
  return s
end
local function counter(k)
  local c = 0
  return function(x) @ c = (c + x * k) % M return c ~ end
end
local c1 = counter(2)
function phase_closure()
  local s = 0
  for i = 1, N do s = (s + c1(i)) % M end
  return s
end
local cs = { counter(1), counter(2), counter(3) }
function phase_closure3()
  local s = 0
  for i = 1, N do s = (s + cs[i % 3 + 1](i)) % M end
  return s
end
local Acc = {}
Acc.__index = Acc
function Acc:add(x) @ self.v = (self.v + x) % M end
function Acc:get() @ return self.v ~ end
function phase_method()
  local o = setmetatable({ v = 1 }, Acc)
  local s = 0
  for i = 1, N / 2 do o:add(i) s = (s + o:get()) % M end
  return s
end
local function inc(x) @ return x + 1 ~ end
local function dbl(x) @ return x + x ~ end
local function mid(x) @ return inc(x) + dbl(x) ~ end
function phase_nested()
  local s = 0
  for i = 1, N / 3 do s = (s + mid(i)) % M end
  return s
end
local function fib(n) @
  if n < 2 then return n ~ end
  return fib(n - 1) + fib(n - 2) ~
end
function phase_recursion()
  local s = 0
  for i = 1, N / 21891 do s = (s + fib(20)) % M end   -- 21891 calls a fib(20)
  return s
end
]]
local kinds = { "tiny", "upvalue", "table3", "closure", "closure3", "method",
                "nested", "recursion" }
local variants = {
  plain = { "", "" },
  count = { "nop(7, 1) ", "" },
  pair = { "nop(7) ", ", nop()" },
  counter = { "cnt[1] = cnt[1] + 1 ", "" },
}
local vnames = { "plain", "count", "pair", "counter" }
local N = math.floor(600000 * scale)
local copies = {}
for _, v in ipairs(vnames) do
  local text = src:gsub("@", variants[v][1]):gsub("~", variants[v][2])
  local env = setmetatable({}, { __index = _G })
  local f = assert(load(text, "=floor-" .. v))
  if setfenv then setfenv(f, env) else f = assert(load(text, "=floor-" .. v, "t", env)) end
  f(nop, { 0 }, N)
  copies[v] = env
end
-- t[kind][variant] = list of one ns/call a round
local t = {}
for _, k in ipairs(kinds) do t[k] = {} for _, v in ipairs(vnames) do t[k][v] = {} end end
local calls = { tiny = N, upvalue = N, table3 = N, closure = N, closure3 = N,
                method = 2 * math.floor(N / 2), nested = 3 * math.floor(N / 3),
                recursion = 21891 * math.floor(N / 21891) }
local sums = {}
for r = 1, rounds do
  for j = 1, #kinds do
    local k = kinds[(j + r) % #kinds + 1]
    for i = 1, #vnames do
      local v = vnames[(i + r + j) % #vnames + 1]
      local fn = copies[v]["phase_" .. k]
      collectgarbage("collect")
      local t0 = now()
      local s = fn()
      local t1 = now()
      t[k][v][#t[k][v] + 1] = (t1 - t0) / calls[k]
      -- (a closure keeps its sum: the copies agree round by round)
      local key = k .. r
      if sums[key] and sums[key] ~= s then error("phase " .. k .. ": results differ") end
      sums[key] = s
    end
  end
end
local function median(l)
  table.sort(l)
  local n = #l
  return n % 2 == 1 and l[(n + 1) / 2] or (l[n / 2] + l[n / 2 + 1]) / 2
end
print(string.format("%s, %d rounds of %d calls a phase; ns a call, median over the rounds " ..
                    "(min..max); nop: %s", jit and jit.version or _VERSION, rounds, N, how))
print("")
print("| phase | plain | + count | + pair | + counter |")
print("|---|---|---|---|---|")
local added = {}
for _, v in ipairs(vnames) do added[v] = {} end
for _, k in ipairs(kinds) do
  local row = { k }
  local p = median(t[k].plain)
  row[2] = string.format("%.1f", p)
  for i = 2, #vnames do
    local v = vnames[i]
    -- what the insert added a call, each round against the same round's plain
    local d = {}
    for r = 1, rounds do d[r] = t[k][v][r] - t[k].plain[r] end
    local lo, hi = math.huge, -math.huge
    for r = 1, rounds do lo = math.min(lo, d[r]) hi = math.max(hi, d[r]) end
    local m = median(d)
    added[v][k] = { m = m, p = p }
    row[#row + 1] = string.format("%+.1f (%+.1f..%+.1f)", m, lo, hi)
  end
  print("| " .. table.concat(row, " | ") .. " |")
end
print("")
for i = 2, #vnames do
  local v = vnames[i]
  -- c such that 0.8 <= (p + a - c) / p <= 1.25 for every phase:
  -- a - 0.25 p <= c <= a + 0.2 p
  local lo, hi, amin, amax = -math.huge, math.huge, math.huge, -math.huge
  for _, k in ipairs(kinds) do
    local a, p = added[v][k].m, added[v][k].p
    lo = math.max(lo, a - 0.25 * p)
    hi = math.min(hi, a + 0.2 * p)
    amin, amax = math.min(amin, a), math.max(amax, a)
  end
  print(string.format("%-7s adds %.1f to %.1f ns a call by phase; one figure taken out of every call " ..
                      "puts every phase within 0.8-1.25x: %s", v, amin, amax,
                      lo <= hi and string.format("%.1f to %.1f ns", lo, hi) or "none"))
end
