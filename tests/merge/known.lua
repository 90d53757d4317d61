-- known.lua N OUT: a program whose calls are known from N, for the merge
-- tests (tests/merge/run.sh).  It stops the profiler and writes the same
-- stopped profile twice, OUT.json and OUT.csv: the csv is what the json's
-- figures are checked against, and the merge's sums against the csvs; and
-- OUT.pb.gz in builds that write pprof.
--   leaf: N*(N+1)/2 calls, mid: N, boom: 1 (its error caught), frame: N
--   frames when frame mode is on (the last one slow: a spike)
local p = require "luainstr"
local n = assert(tonumber(arg[1]), "usage: known.lua N OUT")
local out = assert(arg[2], "usage: known.lua N OUT")

local function leaf(x) return x * 2 end
local function mid(k)
  local s, t = 0, {}
  for i = 1, k do s = s + leaf(i); t[i] = tostring(s) end
  return s, t
end
local function boom() error("known failure") end
local function frame(i)
  local s = mid(i)
  if i == n then   -- a slow frame: over twice the median
    local x = 0
    for j = 1, 200000 do x = x + j % 7 end
    s = s + x
  end
  return s
end

for i = 1, n do
  frame(i)
  if p.frame then p.frame() end
end
assert(not pcall(boom))
p.stop()
assert(p.dump_to(out .. ".json", "json"))
assert(p.dump_to(out .. ".csv", "csv"))
pcall(p.dump_to, out .. ".pb.gz", "pprof")   -- (an error: no pprof here)
