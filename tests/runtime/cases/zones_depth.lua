-- Zones around recursions of every depth from 0 to 40, opened from 0 to 5
-- levels below the case, 5 times; returns how many p.zone_end calls found
-- their zone.
local check = ...
local p = check.p

local function leaf() end
local function rec(n) if n == 0 then leaf() else rec(n - 1) end end
local ends = 0
local function zoned(d)
  p.zone_begin("depth")
  rec(d)
  local ok, err = pcall(p.zone_end)
  if ok then ends = ends + 1 else check.fail("depth %d: %s", d, tostring(err)) end
end
local function below(k)
  if k > 0 then below(k - 1); return end
  for d = 0, 40 do zoned(d) end
end
for _ = 1, 5 do
  for k = 0, 5 do below(k) end
end
return ends
