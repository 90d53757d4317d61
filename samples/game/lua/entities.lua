-- entities.lua: the things in the world and their movement.  Every entity
-- is a table; physics integrates velocity (semi-implicit Euler with drag),
-- keeps entities inside the world by bouncing them off its edges, and
-- pushes apart pairs that overlap inside one cell of a coarse spatial hash.

local Entities = {}

local NAMES = { "Goblin", "Orc", "Troll", "Bat", "Slime", "Wolf", "Imp", "Rat" }

-- A deterministic generator (a 31-bit LCG) so every run plants the same
-- world and the profile of one run compares with the next.
function Entities.rng(seed)
  local s = seed
  return function(lo, hi)
    s = (s * 1103515245 + 12345) % 2147483648
    local u = s / 2147483648
    if lo then return lo + (hi - lo) * u end
    return u
  end
end

function Entities.spawn(world, n, rand)
  local list = world.entities
  for i = 1, n do
    local speed, angle = rand(20, 60), rand(0, 2 * math.pi)
    local maxhp = 20 + (i % 5) * 10
    list[#list + 1] = {
      id = i, name = NAMES[i % #NAMES + 1], radius = rand(0.3, 0.8),
      x = rand(1, world.width - 1), y = rand(1, world.height - 1),
      vx = speed * math.cos(angle), vy = speed * math.sin(angle),
      hp = maxhp, maxhp = maxhp, agent = nil,
    }
  end
  return list
end

-- Bounces e off the world's edges.
local function bounce(e, w, h)
  if e.x < 0 then e.x, e.vx = -e.x, -e.vx elseif e.x > w then e.x, e.vx = 2 * w - e.x, -e.vx end
  if e.y < 0 then e.y, e.vy = -e.y, -e.vy elseif e.y > h then e.y, e.vy = 2 * h - e.y, -e.vy end
end

-- Pushes apart entities that share a cell of the spatial hash and overlap.
function Entities.separate(world)
  local cells, size = {}, world.cell
  for _, e in ipairs(world.entities) do
    local key = (e.y // size) * 4096 + e.x // size
    local c = cells[key]
    if c then
      for j = 1, #c do
        local o = c[j]
        local dx, dy = e.x - o.x, e.y - o.y
        local d2, r = dx * dx + dy * dy, e.radius + o.radius
        if d2 < r * r and d2 > 1e-9 then
          local push = (r - math.sqrt(d2)) * 0.5 / math.sqrt(d2)
          e.x, e.y = e.x + dx * push, e.y + dy * push
          o.x, o.y = o.x - dx * push, o.y - dy * push
        end
      end
      c[#c + 1] = e
    else
      cells[key] = { e }
    end
  end
end

function Entities.integrate(world, dt)
  local w, h, drag = world.width, world.height, world.drag
  for _, e in ipairs(world.entities) do
    local ax, ay = e.ax or 0, e.ay or 0
    e.vx = (e.vx + ax * dt) * drag
    e.vy = (e.vy + ay * dt) * drag
    -- keep a minimum speed so nothing settles (and every nametag moves)
    local s2 = e.vx * e.vx + e.vy * e.vy
    if s2 < 400 then
      local k = 20 / math.sqrt(s2 + 1e-9)
      e.vx, e.vy = e.vx * k, e.vy * k
    end
    e.x = e.x + e.vx * dt
    e.y = e.y + e.vy * dt
    bounce(e, w, h)
  end
  Entities.separate(world)
end

return Entities
