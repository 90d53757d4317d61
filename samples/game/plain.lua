-- plain.lua: the game's loop in plain Lua, without the host or the
-- profiler, to see the planted spike and leak with a stopwatch:
--     cd samples/game && lua5.4 plain.lua [TICKS]
-- Prints each spike tick's time against the median tick, and how much the
-- label cache (the leak) grows a tick.
local dir = arg[0]:match("^(.*)[/\\]") or "."
package.path = dir .. "/lua/?.lua;" .. package.path

local ticks = tonumber(arg[1]) or 180
local game = dofile(dir .. "/lua/main.lua")
local dt, times, spikes = 1 / 60, {}, {}
collectgarbage("collect")
local kb0, entries0 = collectgarbage("count"), game.stats().label_cache_entries

local cutscene
for tick = 1, ticks do
  local t0 = os.clock()
  game.physics(tick, dt)
  local spiked = game.ai(tick, dt)
  game.particles(tick, dt)
  game.render(tick, dt)
  -- the host resumes its cutscene from C; here coroutine.resume does
  cutscene = cutscene or coroutine.create(game.cutscene)
  assert(coroutine.resume(cutscene))
  if coroutine.status(cutscene) == "dead" then cutscene = nil end
  times[tick] = os.clock() - t0
  if spiked then spikes[#spikes + 1] = tick end
end

local normal = {}
local is_spike = {}
for _, t in ipairs(spikes) do is_spike[t] = true end
for t = 1, ticks do if not is_spike[t] then normal[#normal + 1] = times[t] end end
table.sort(normal)
local median = normal[(#normal + 1) // 2] or 0
print(string.format("ticks %d, median tick %.3f ms, slowest normal tick %.3f ms",
                    ticks, median * 1e3, (normal[#normal] or 0) * 1e3))
for _, t in ipairs(spikes) do
  print(string.format("spike tick %d: %.3f ms (%.1fx the median)", t, times[t] * 1e3, times[t] / median))
end
collectgarbage("collect")
local s = game.stats()
local kb, entries = collectgarbage("count"), s.label_cache_entries
print(string.format("label cache: %d entries (+%.2f a tick), heap %+.0f KB (%.2f KB a tick) after a full collection",
                    entries - entries0, (entries - entries0) / ticks, kb - kb0, (kb - kb0) / ticks))
print("zones: " .. tostring(s.zones))
