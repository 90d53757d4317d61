-- ui.lua: the HUD and the nametags above the agents nearest the player,
-- formatted with string.format and joined with table.concat every tick.
--
-- The planted leak: UI.memo_label "caches" each nametag by the values it
-- shows, and one of them, the agent's position, changes every tick, so
-- every call misses and adds an entry to a table that never shrinks
-- (NAMETAGS new entries a tick).

local Z = require "zones"

local UI = { NAMETAGS = 32 }

local label_cache = {}     -- key -> label: the leak, never cleared
local label_entries = 0

-- THE PLANTED LEAK: a memoized formatter keyed by a value that changes
-- every frame.
function UI.memo_label(e)
  local key = e.id .. ":" .. e.hp .. ":" .. string.format("%.2f:%.2f", e.x, e.y)
  local s = label_cache[key]
  if s == nil then
    s = string.format("%s #%d  hp %d/%d  (%.1f, %.1f)", e.name, e.id, e.hp, e.maxhp, e.x, e.y)
    label_cache[key] = s
    label_entries = label_entries + 1
  end
  return s
end

function UI.cache_entries() return label_entries end

local function bar(value, max, width)
  local full = math.floor(value / max * width + 0.5)
  return "[" .. string.rep("#", full) .. string.rep(".", width - full) .. "]"
end

-- The HUD: a dozen lines of formatted figures.
function UI.hud(world, tick, stats)
  local p = world.player
  local lines = {
    string.format("tick %6d   time %7.2f s", tick, tick / 60),
    string.format("player  (%6.1f, %6.1f)  hp %3d %s", p.x, p.y, p.hp, bar(p.hp, p.maxhp, 20)),
    string.format("entities %d   agents %d", #world.entities, #world.agents),
    string.format("particles %d alive, %d spawned, %d drawn", stats.particles, world.particles.spawned, stats.drawn),
    string.format("paths %d   mean length %.1f cells", world.paths, world.path_cells / math.max(1, world.paths)),
    string.format("flow field %d cells reached", world.flow_reached or 0),
    string.format("labels cached %d", label_entries),
  }
  for i = 1, 5 do
    local e = world.entities[i]
    lines[#lines + 1] = string.format("  %-8s hp %3d %s", e.name, e.hp, bar(e.hp, e.maxhp, 10))
  end
  return table.concat(lines, "\n")
end

-- Nametags for the NAMETAGS agents nearest the player.
function UI.nametags(world)
  local p, near = world.player, {}
  for i, e in ipairs(world.agents) do
    local dx, dy = e.x - p.x, e.y - p.y
    near[i] = { e = e, d = dx * dx + dy * dy }
  end
  table.sort(near, function(a, b) return a.d < b.d end)
  local tags = {}
  for i = 1, math.min(UI.NAMETAGS, #near) do
    tags[i] = UI.memo_label(near[i].e)
  end
  return table.concat(tags, "\n")
end

-- One frame of UI: Lua zones "hud" and "nametags" split its time.
function UI.draw(world, tick, stats)
  Z.begin("hud")
  local hud = UI.hud(world, tick, stats)
  Z.finish()
  Z.begin("nametags")
  local tags = UI.nametags(world)
  Z.finish()
  world.screen = hud .. "\n" .. tags
  return #world.screen
end

return UI
