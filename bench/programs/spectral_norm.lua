-- spectral_norm.lua -- the largest singular value of an infinite matrix,
-- by power iteration: a tiny function called in the inner loop.
-- Usage: spectral_norm.lua [N]
local N = tonumber(arg and arg[1]) or 800
local tick = bench_tick  -- bench_host frames mode: a frame mark now and then

local function a(i, j)
  local ij = i + j - 1
  return 1.0 / (ij * (ij - 1) * 0.5 + i)
end

local function mul_av(n, x, y)
  for i = 1, n do
    if tick then tick() end
    local s = 0
    for j = 1, n do s = s + a(i, j) * x[j] end
    y[i] = s
  end
end

local function mul_atv(n, x, y)
  for i = 1, n do
    local s = 0
    for j = 1, n do s = s + a(j, i) * x[j] end
    y[i] = s
  end
end

local function mul_atav(n, x, y, t)
  mul_av(n, x, t)
  mul_atv(n, t, y)
end

local u, v, t = {}, {}, {}
for i = 1, N do u[i] = 1 end
for _ = 1, 10 do
  mul_atav(N, u, v, t)
  mul_atav(N, v, u, t)
end
local vbv, vv = 0, 0
for i = 1, N do
  local ui, vi = u[i], v[i]
  vbv = vbv + ui * vi
  vv = vv + vi * vi
end
print(string.format("checksum %.9f", math.sqrt(vbv / vv)))
