-- game.lua: a few frames of a small game's update loop, for the sample
-- host.  Entities move, think and get drawn; one function is far slower
-- than the rest (a brute-force path search run every frame), and a
-- coroutine plays a scripted cutscene across frames.  The profile should
-- point at `Enemy:find_path`.

local World = { entities = {}, frame = 0, log = {} }

local Entity = {}
Entity.__index = Entity

function Entity.new(kind, x, y)
  return setmetatable({ kind = kind, x = x, y = y, vx = 1, vy = 0 }, Entity)
end

function Entity:move(dt)
  self.x = self.x + self.vx * dt
  self.y = self.y + self.vy * dt
end

local Enemy = setmetatable({}, { __index = Entity })
Enemy.__index = Enemy

function Enemy.new(x, y)
  local e = Entity.new("enemy", x, y)
  return setmetatable(e, Enemy)
end

-- The culprit: every enemy searches a grid for a path to the player, every
-- frame, with no caching and a naive breadth-first search.
function Enemy:find_path(tx, ty, size)
  local seen, queue, head = {}, { { 1, 1, 0 } }, 1
  seen[1] = true
  while head <= #queue do
    local node = queue[head]
    head = head + 1
    local x, y, d = node[1], node[2], node[3]
    if x == tx and y == ty then return d end
    for _, step in ipairs({ { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } }) do
      local nx, ny = x + step[1], y + step[2]
      local key = ny * size + nx
      if nx >= 1 and ny >= 1 and nx <= size and ny <= size and not seen[key] then
        seen[key] = true
        queue[#queue + 1] = { nx, ny, d + 1 }
      end
    end
  end
  return -1
end

function Enemy:think(player)
  local d = self:find_path(player.grid_x, player.grid_y, 60)
  self.vx = d > 10 and 1 or -1
end

local function draw(e)
  World.log[#World.log + 1] = string.format("%s@%d,%d", e.kind, e.x // 1, e.y // 1)
end

-- A scripted cutscene: one line of dialogue per frame, until it ends.
local cutscene = coroutine.create(function()
  for _, line in ipairs({ "Halt!", "Who goes there?", "Ah, it is you." }) do
    coroutine.yield(line)
  end
end)

local function update(player, dt)
  World.frame = World.frame + 1
  for _, e in ipairs(World.entities) do
    if e.think then e:think(player) end
    e:move(dt)
    draw(e)
  end
  if coroutine.status(cutscene) == "suspended" then
    local _, line = assert(coroutine.resume(cutscene))
    if line then World.log[#World.log + 1] = "say: " .. line end
  end
end

local player = Entity.new("player", 0, 0)
player.grid_x, player.grid_y = 50, 50
World.entities[1] = player
for i = 1, 4 do World.entities[#World.entities + 1] = Enemy.new(i * 10, i) end

for _ = 1, 8 do update(player, 1 / 60) end
print(string.format("game: %d frames, %d log lines", World.frame, #World.log))
