-- fannkuch.lua -- flip prefixes of every permutation of 1..N until 1 comes
-- first: array work in loops, almost no calls.
-- Usage: fannkuch.lua [N [REPEAT]]   (N = 10 would take too long, so N = 9
-- is run REPEAT times)
local N = tonumber(arg and arg[1]) or 9
local REPEAT = tonumber(arg and arg[2]) or 5

local function flips(perm, work, n)
  for i = 1, n do work[i] = perm[i] end
  local count = 0
  local first = work[1]
  while first ~= 1 do
    local i, j = 1, first
    while i < j do
      work[i], work[j] = work[j], work[i]
      i, j = i + 1, j - 1
    end
    count = count + 1
    first = work[1]
  end
  return count
end

local function fannkuch(n)
  local perm, work, counts = {}, {}, {}
  for i = 1, n do perm[i] = i; counts[i] = i end
  local maxflips, checksum, sign = 0, 0, 1
  while true do
    local f = flips(perm, work, n)
    if f > maxflips then maxflips = f end
    checksum = checksum + sign * f
    sign = -sign
    -- next permutation in rotation order
    local r = 2
    while true do
      if r > n then return checksum, maxflips end
      local first = perm[1]
      for i = 1, r - 1 do perm[i] = perm[i + 1] end
      perm[r] = first
      counts[r] = counts[r] - 1
      if counts[r] > 0 then break end
      counts[r] = r
      r = r + 1
    end
  end
end

local c, m = 0, 0
local tick = bench_tick  -- bench_host frames mode: a frame mark now and then
for _ = 1, REPEAT do
  if tick then tick() end
  local c1, m1 = fannkuch(N)
  c, m = c + c1, m + m1
end
print(string.format("checksum %d %d", c, m))
