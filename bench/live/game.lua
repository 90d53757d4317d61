-- game.lua -- bench_live's game: update(i) is one frame of a small game,
-- about 2 ms of Lua work in short calls (entities that think, move and
-- collide), with a spike every 120 frames, as a real frame has.
local entities = {}
for i = 1, 400 do
  entities[i] = {x = i, y = i * 2, vx = 1, vy = -1, hp = 100}
end

local function think(e, t)
  if (e.x + t) % 17 == 0 then e.vx = -e.vx end
  if (e.y + t) % 13 == 0 then e.vy = -e.vy end
end

local function move(e)
  e.x = e.x + e.vx
  e.y = e.y + e.vy
end

local function collide(e, others)
  local hits = 0
  for j = 1, 40 do
    local o = others[(e.x + j) % #others + 1]
    if o ~= e and math.abs(o.x - e.x) + math.abs(o.y - e.y) < 8 then hits = hits + 1 end
  end
  return hits
end

local function path(n)          -- the spike: a long search now and then
  local s = 0
  for i = 1, n do s = s + (i * 7) % 11 end
  return s
end

function update(i)
  for _, e in ipairs(entities) do
    think(e, i)
    move(e)
    if collide(e, entities) > 3 then e.hp = e.hp - 1 end
  end
  if i % 120 == 0 then path(200000) end
end
