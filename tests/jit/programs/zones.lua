-- zones.lua -- zones (require "luainstr") in functions with the FFI probe:
-- closed in order, left open by a function (they end with it), unwound by
-- an error caught by pcall, in a coroutine.  Prints "calls LINE N" and
-- "zone NAME N" (tests/jit/known.sh); without luainstr (plain luajit) the
-- zones do nothing and the counts are printed all the same.
local ok, p = pcall(require, "luainstr")
if not ok then p = {zone_begin = function() end, zone_end = function() end} end
local N = setmetatable({}, {__index = function() return 0 end})
local Z = setmetatable({}, {__index = function() return 0 end})

local function work(n)
  N[work] = N[work] + 1
  local s = 0
  for i = 1, n do s = s + i end
  return s
end

local function zoned(n)                     -- begin, work, end
  N[zoned] = N[zoned] + 1
  p.zone_begin("inner"); Z.inner = Z.inner + 1
  local s = work(n)
  p.zone_end()
  return s
end

local function leaves_open(n)               -- its zone ends with it
  N[leaves_open] = N[leaves_open] + 1
  p.zone_begin("open"); Z.open = Z.open + 1
  return (work(n))
end

local function zone_error()                 -- unwound by an error
  N[zone_error] = N[zone_error] + 1
  p.zone_begin("err"); Z.err = Z.err + 1
  error("in a zone")
end

local s = 0
for i = 1, 100 do
  p.zone_begin("outer"); Z.outer = Z.outer + 1
  s = s + zoned(i) + leaves_open(i)
  p.zone_end()
end
for _ = 1, 20 do s = s + (pcall(zone_error) and 0 or 1) end
for _ = 1, 10 do
  local co = coroutine.wrap(function()
    p.zone_begin("co"); Z.co = Z.co + 1
    coroutine.yield(zoned(5))
    p.zone_end()
    return 0
  end)
  s = s + co() + co()
end
print("checksum", s)
for f, c in pairs(N) do print("calls", debug.getinfo(f, "S").linedefined, c) end
for z, c in pairs(Z) do print("zone", z, c) end
