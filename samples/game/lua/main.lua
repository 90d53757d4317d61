-- main.lua: builds the world and returns the game's systems, which the
-- host calls once per fixed 60 Hz tick, in this order, each with the
-- tick's number (1, 2, ...) and its fixed step dt (1/60 s):
--     game.physics(tick, dt)    movement and collisions    (entities.lua)
--     game.ai(tick, dt)         A* paths, steering; true   (ai.lua)
--                               on a tick that planted the spike
--     game.particles(tick, dt)  emitters and particles     (particles.lua)
--     game.render(tick, dt)     draw list, HUD, nametags   (particles.lua, ui.lua)
-- and, once a tick, resumes a coroutine running game.cutscene (one shot a
-- resume; a new coroutine when one ends)                   (cutscene.lua)
-- game.stats() returns figures the host prints at the end.

local Entities = require "entities"
local AI = require "ai"
local Particles = require "particles"
local UI = require "ui"
local Cutscene = require "cutscene"

local rand = Entities.rng(20240612)

local world = {
  width = 96, height = 96, cell = 4, drag = 0.99,
  entities = {}, agents = {},
  paths = 0, path_cells = 0, next_agent = 1,
}
world.grid = AI.make_grid(48, rand)                 -- A*: 48 x 48
world.flow_grid = AI.make_grid(AI.FLOW_SIZE, rand)  -- the spike's grid
world.particles = Particles.new_system(rand)

Entities.spawn(world, 300, rand)
for i = 1, 60 do
  world.agents[i] = world.entities[i]
  AI.new_agent(world.entities[i])
end
world.player = { x = 48, y = 48, hp = 100, maxhp = 100, angle = 0 }

for i = 1, 8 do
  local a = i / 8 * 2 * math.pi
  Particles.add_emitter(world.particles, 48 + 30 * math.cos(a), 48 + 30 * math.sin(a),
                        90, { 1, 0.5 + i / 16, 0.2 })
end

local draw = {}           -- the particles' draw list, reused every tick
local stats = { particles = 0, drawn = 0, spikes = 0 }

local game = {}

function game.physics(_, dt)
  -- the player walks a circle; everyone else is integrated
  local p = world.player
  p.angle = p.angle + 0.6 * dt
  p.x, p.y = 48 + 35 * math.cos(p.angle), 48 + 35 * math.sin(p.angle)
  Entities.integrate(world, dt)
end

function game.ai(tick)
  local spiked = AI.update(world, tick)
  if spiked then stats.spikes = stats.spikes + 1 end
  return spiked
end

function game.particles(_, dt)
  stats.particles = Particles.update(world.particles, dt)
end

function game.render(tick)
  stats.drawn = Particles.draw_list(world.particles, draw)
  return UI.draw(world, tick, stats)
end

-- The body of the host's cutscene coroutines.
function game.cutscene()
  Cutscene.play(world)
end

function game.stats()
  return {
    label_cache_entries = UI.cache_entries(),
    nametags_per_tick = UI.NAMETAGS,
    spike_every = AI.SPIKE_EVERY, spike_phase = AI.SPIKE_PHASE,
    spike_function = "AI.rebuild_flow_field",
    leak_function = "UI.memo_label",
    cutscene_functions = "game.cutscene Cutscene.play Cutscene.shot",
    paths = world.paths, particles = stats.particles,
    zones = require("zones").on,
    screen = world.screen,
  }
end

return game
