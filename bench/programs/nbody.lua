-- nbody.lua -- a planetary system integrated with a simple symplectic step:
-- float arithmetic on table fields, few calls.
-- Usage: nbody.lua [STEPS]
local STEPS = tonumber(arg and arg[1]) or 400000

local PI = math.pi
local SOLAR_MASS = 4 * PI * PI
local DAYS = 365.24

local function body(x, y, z, vx, vy, vz, mass)
  return { x = x, y = y, z = z,
           vx = vx * DAYS, vy = vy * DAYS, vz = vz * DAYS,
           mass = mass * SOLAR_MASS }
end

-- A made-up system: a sun and four planets on roughly circular orbits.
local bodies = {
  body(0, 0, 0, 0, 0, 0, 1),
  body(4.8, -1.2, -0.1, 1.7e-3, 7.6e-3, -6.9e-5, 9.5e-4),
  body(8.3, 4.1, -0.4, -2.8e-3, 5.0e-3, 2.3e-5, 2.9e-4),
  body(12.9, -15.1, -0.2, 3.0e-3, 2.4e-3, -3.0e-5, 4.4e-5),
  body(15.4, -25.9, 0.18, 2.7e-3, 1.6e-3, -9.5e-5, 5.2e-5),
}

local function offset_momentum(b)
  local px, py, pz = 0, 0, 0
  for i = 1, #b do
    local bi = b[i]
    px = px + bi.vx * bi.mass
    py = py + bi.vy * bi.mass
    pz = pz + bi.vz * bi.mass
  end
  b[1].vx = -px / SOLAR_MASS
  b[1].vy = -py / SOLAR_MASS
  b[1].vz = -pz / SOLAR_MASS
end

local function advance(b, n, dt)
  for i = 1, n do
    local bi = b[i]
    local bix, biy, biz, bimass = bi.x, bi.y, bi.z, bi.mass
    local bivx, bivy, bivz = bi.vx, bi.vy, bi.vz
    for j = i + 1, n do
      local bj = b[j]
      local dx, dy, dz = bix - bj.x, biy - bj.y, biz - bj.z
      local d2 = dx * dx + dy * dy + dz * dz
      local mag = dt / (d2 * math.sqrt(d2))
      local bm = bj.mass * mag
      bivx = bivx - dx * bm
      bivy = bivy - dy * bm
      bivz = bivz - dz * bm
      bm = bimass * mag
      bj.vx = bj.vx + dx * bm
      bj.vy = bj.vy + dy * bm
      bj.vz = bj.vz + dz * bm
    end
    bi.vx, bi.vy, bi.vz = bivx, bivy, bivz
    bi.x = bix + dt * bivx
    bi.y = biy + dt * bivy
    bi.z = biz + dt * bivz
  end
end

local function energy(b)
  local e = 0
  for i = 1, #b do
    local bi = b[i]
    e = e + 0.5 * bi.mass * (bi.vx * bi.vx + bi.vy * bi.vy + bi.vz * bi.vz)
    for j = i + 1, #b do
      local bj = b[j]
      local dx, dy, dz = bi.x - bj.x, bi.y - bj.y, bi.z - bj.z
      e = e - bi.mass * bj.mass / math.sqrt(dx * dx + dy * dy + dz * dz)
    end
  end
  return e
end

offset_momentum(bodies)
local e0 = energy(bodies)
local n = #bodies
local tick = bench_tick  -- bench_host frames mode: a frame mark now and then
for i = 1, STEPS do
  if tick and i % 64 == 0 then tick() end
  advance(bodies, n, 0.01)
end
print(string.format("checksum %.9f %.9f", e0, energy(bodies)))
