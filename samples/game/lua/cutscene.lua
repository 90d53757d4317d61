-- cutscene.lua: a camera fly-by around the player, played as a coroutine.
-- Cutscene.play yields after each shot; the host resumes the coroutine
-- once a tick from C (lua_resume, inside the C zone "cutscene") and starts
-- a new one when it ends.

local Cutscene = { SHOTS = 45 }

-- One shot: eight camera keys on a circle around the player and a
-- caption (small tables and a string a shot: garbage, collected).
function Cutscene.shot(world, i)
  local p = world.player
  local a = i / Cutscene.SHOTS * 2 * math.pi
  local keys = {}
  for k = 1, 8 do
    keys[k] = { x = p.x + 20 * math.cos(a + k / 8), y = p.y + 20 * math.sin(a + k / 8) }
  end
  world.camera = keys[1]
  world.caption = string.format("shot %d of %d at (%.1f, %.1f)", i, Cutscene.SHOTS,
                                keys[1].x, keys[1].y)
  return #keys
end

-- The cutscene: SHOTS shots, one a resume.
function Cutscene.play(world)
  for i = 1, Cutscene.SHOTS do
    Cutscene.shot(world, i)
    coroutine.yield(i)
  end
end

return Cutscene
