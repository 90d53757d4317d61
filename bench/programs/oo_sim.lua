-- oo_sim.lua -- an object-oriented ecosystem simulation: classes with
-- inheritance through metatables, a vector type with arithmetic
-- metamethods, virtual method calls, a grid of buckets for neighbours.
-- Usage: oo_sim.lua [STEPS]
local STEPS = tonumber(arg and arg[1]) or 300

-- A deterministic generator (math.random is seeded randomly in 5.4).
local Rng = {}
Rng.__index = Rng
function Rng.new(seed) return setmetatable({ s = seed }, Rng) end
function Rng:next()
  self.s = (self.s * 1103515245 + 12345) % 2147483648
  return self.s / 2147483648
end
function Rng:range(a, b) return a + (b - a) * self:next() end

-- ---- Vec2 ----------------------------------------------------------------

local Vec2 = {}
Vec2.__index = Vec2
local function vec(x, y) return setmetatable({ x = x, y = y }, Vec2) end
Vec2.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
Vec2.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y) end
Vec2.__mul = function(a, k) return vec(a.x * k, a.y * k) end
function Vec2:len2() return self.x * self.x + self.y * self.y end
function Vec2:len() return math.sqrt(self:len2()) end
function Vec2:clamped(maxlen)
  local l = self:len()
  if l > maxlen then return self * (maxlen / l) end
  return self
end

-- ---- classes -------------------------------------------------------------

local function class(parent)
  local c = {}
  c.__index = c
  if parent then setmetatable(c, { __index = parent }) end
  c.super = parent
  return c
end

local WORLD = 200
local CELL = 20

local Entity = class()
function Entity.init(self, world, pos, energy)
  self.world, self.pos, self.vel, self.energy = world, pos, vec(0, 0), energy
  self.alive = true
  return self
end
function Entity:speed() return 1 end
function Entity:move()
  self.vel = self.vel:clamped(self:speed())
  local p = self.pos + self.vel
  self.pos = vec(p.x % WORLD, p.y % WORLD)
  self.energy = self.energy - self:metabolism()
  if self.energy <= 0 then self:die() end
end
function Entity:die() self.alive = false end

local Plant = class(Entity)
function Plant.new(world, pos) return Entity.init(setmetatable({}, Plant), world, pos, 5) end
function Plant:metabolism() return -0.05 end
function Plant:speed() return 0 end
function Plant:think() end
function Plant:kind() return "plant" end

local Animal = class(Entity)
function Animal:think()
  local target, best = nil, math.huge
  for _, other in self.world:neighbours(self.pos) do
    if other.alive and self:eats(other) then
      local d = (other.pos - self.pos):len2()
      if d < best then target, best = other, d end
    end
  end
  if target then
    if best < 4 then
      self.energy = self.energy + target.energy * 0.5
      target:die()
    else
      self.vel = self.vel + (target.pos - self.pos) * 0.2
    end
  else
    local r = self.world.rng
    self.vel = self.vel + vec(r:range(-1, 1), r:range(-1, 1))
  end
  if self.energy > self:birth_energy() then self:reproduce() end
end
function Animal:reproduce()
  self.energy = self.energy / 2
  local child = self.new(self.world, self.pos + vec(1, 1))
  child.energy = self.energy
  self.world:add(child)
end

local Herbivore = class(Animal)
function Herbivore.new(world, pos) return Entity.init(setmetatable({}, Herbivore), world, pos, 10) end
function Herbivore:eats(o) return o:kind() == "plant" end
function Herbivore:metabolism() return 0.08 end
function Herbivore:speed() return 1.5 end
function Herbivore:birth_energy() return 20 end
function Herbivore:kind() return "herbivore" end

local Carnivore = class(Animal)
function Carnivore.new(world, pos) return Entity.init(setmetatable({}, Carnivore), world, pos, 30) end
function Carnivore:eats(o) return o:kind() == "herbivore" end
function Carnivore:metabolism() return 0.15 end
function Carnivore:speed() return 2.2 end
function Carnivore:birth_energy() return 60 end
function Carnivore:kind() return "carnivore" end

-- ---- the world -----------------------------------------------------------

local World = class()
function World.new(seed)
  return setmetatable({ rng = Rng.new(seed), entities = {}, grid = {} }, World)
end
function World:add(e) self.entities[#self.entities + 1] = e end
function World:cell_key(pos)
  return (pos.x // CELL) * 64 + (pos.y // CELL)
end
function World:rebuild_grid()
  local grid = {}
  for _, e in ipairs(self.entities) do
    local k = self:cell_key(e.pos)
    local b = grid[k]
    if b == nil then b = {}; grid[k] = b end
    b[#b + 1] = e
  end
  self.grid = grid
end
-- Iterate over the entities of the cell of pos and of its 8 neighbours
-- (a closure iterator: for _, e in world:neighbours(pos)).
function World:neighbours(pos)
  local cx, cy = pos.x // CELL, pos.y // CELL
  local grid, n = self.grid, WORLD // CELL
  local cell, b, i = 0, nil, 0
  return function()
    while true do
      if b ~= nil and i < #b then
        i = i + 1
        return i, b[i]
      end
      if cell == 9 then return nil end
      local dx, dy = cell // 3 - 1, cell % 3 - 1
      cell = cell + 1
      b, i = grid[((cx + dx) % n) * 64 + (cy + dy) % n], 0
    end
  end
end
function World:step()
  self:rebuild_grid()
  local ents = self.entities
  for i = 1, #ents do
    local e = ents[i]
    if e.alive then e:think() end
  end
  for i = 1, #ents do
    local e = ents[i]
    if e.alive then e:move() end
  end
  local alive = {}
  for _, e in ipairs(ents) do if e.alive then alive[#alive + 1] = e end end
  self.entities = alive
  for _ = 1, 8 do
    self:add(Plant.new(self, vec(self.rng:range(0, WORLD), self.rng:range(0, WORLD))))
  end
end
function World:census()
  local counts, energy = { plant = 0, herbivore = 0, carnivore = 0 }, 0
  for _, e in ipairs(self.entities) do
    counts[e:kind()] = counts[e:kind()] + 1
    energy = energy + e.energy
  end
  return counts, energy
end

local w = World.new(42)
for _ = 1, 300 do w:add(Plant.new(w, vec(w.rng:range(0, WORLD), w.rng:range(0, WORLD)))) end
for _ = 1, 120 do w:add(Herbivore.new(w, vec(w.rng:range(0, WORLD), w.rng:range(0, WORLD)))) end
for _ = 1, 20 do w:add(Carnivore.new(w, vec(w.rng:range(0, WORLD), w.rng:range(0, WORLD)))) end
local tick = bench_tick  -- bench_host frames mode: a frame mark now and then
for _ = 1, STEPS do
  if tick then tick() end
  w:step()
end
local c, e = w:census()
print(string.format("checksum %d %d %d %.6f", c.plant, c.herbivore, c.carnivore, e))
