-- particles.lua: emitters spray particles that fall, slow down, fade and
-- die.  One table per particle, removed by swapping with the last: the
-- steady garbage of a particle system, collected as it goes.

local Particles = {}

function Particles.new_system(rand)
  return { list = {}, emitters = {}, rand = rand, spawned = 0 }
end

function Particles.add_emitter(sys, x, y, rate, color)
  sys.emitters[#sys.emitters + 1] = { x = x, y = y, rate = rate, acc = 0, color = color }
end

local function emit(sys, em)
  local rand = sys.rand
  local a, s = rand(0, 2 * math.pi), rand(5, 25)
  -- eight fields: a table whose hash part holds exactly eight slots
  sys.list[#sys.list + 1] = {
    x = em.x, y = em.y, vx = s * math.cos(a), vy = s * math.sin(a) - 10,
    life = rand(0.6, 1.4), age = 0, size = rand(0.2, 0.6), color = em.color,
  }
  sys.spawned = sys.spawned + 1
end

function Particles.update(sys, dt)
  for _, em in ipairs(sys.emitters) do
    em.acc = em.acc + em.rate * dt
    while em.acc >= 1 do
      emit(sys, em)
      em.acc = em.acc - 1
    end
  end
  local list, i = sys.list, 1
  local gravity, drag = 30, 0.98
  while i <= #list do
    local p = list[i]
    p.age = p.age + dt
    if p.age >= p.life then
      list[i] = list[#list]
      list[#list] = nil
    else
      p.vy = (p.vy + gravity * dt) * drag
      p.vx = p.vx * drag
      p.x, p.y = p.x + p.vx * dt, p.y + p.vy * dt
      p.size = p.size * 0.995
      i = i + 1
    end
  end
  return #list
end

-- Builds the frame's draw list: visible particles (not yet faded: alpha
-- falls as 1 - (age/life)^2) sorted back to front by size, what a renderer
-- would upload.
function Particles.draw_list(sys, out)
  local n = 0
  for _, p in ipairs(sys.list) do
    local t = p.age / p.life
    if 1 - t * t > 0.05 then
      n = n + 1
      out[n] = p
    end
  end
  for i = #out, n + 1, -1 do out[i] = nil end
  table.sort(out, function(a, b) return a.size > b.size end)
  return n
end

return Particles
