-- ai.lua: agents that chase the player across a walled grid.  Each tick a
-- few agents whose path went stale ask A* (8 neighbours, octile distance,
-- a binary heap) for a new one; every agent steers along its path.
--
-- The planted spike: every SPIKE_EVERY-th tick the AI rebuilds its
-- strategic flow field, a breadth-first distance map over a much larger
-- grid toward the player, all inside one function, AI.rebuild_flow_field,
-- which is several times a whole normal tick.

local Z = require "zones"

local AI = {
  TICK_BUDGET = 250,       -- cells A* may expand a tick, over its searches
  SEARCH_BUDGET = 200,     -- cells one search may expand before it gives up
  SPIKE_EVERY = 60,        -- a flow field rebuild every this many ticks...
  SPIKE_PHASE = 30,        -- ...on the ticks where tick % SPIKE_EVERY == this
  FLOW_SIZE = 100,         -- the flow field's grid: FLOW_SIZE x FLOW_SIZE
}

local SQRT2 = math.sqrt(2)
local DX = { 1, -1, 0, 0, 1, 1, -1, -1 }
local DY = { 0, 0, 1, -1, 1, -1, 1, -1 }

-- A grid of walls: a border and a few deterministic wall segments with gaps.
function AI.make_grid(size, rand)
  local walls = {}
  for y = 0, size - 1 do
    for x = 0, size - 1 do
      walls[y * size + x + 1] = (x == 0 or y == 0 or x == size - 1 or y == size - 1)
    end
  end
  for _ = 1, size // 3 do
    local x, y, len = math.floor(rand(2, size - 3)), math.floor(rand(2, size - 3)), math.floor(rand(3, size // 3))
    local horizontal = rand() < 0.5
    for i = 0, len - 1 do
      local cx, cy = horizontal and x + i or x, horizontal and y or y + i
      if cx < size - 1 and cy < size - 1 and i ~= len // 2 then
        walls[cy * size + cx + 1] = true
      end
    end
  end
  return { size = size, walls = walls }
end

-- A binary min-heap of cells keyed by f, in two parallel arrays.
local function heap_push(h, f, cell)
  local n = h.n + 1
  h.n = n
  local keys, vals = h.keys, h.vals
  while n > 1 do
    local parent = n // 2
    if keys[parent] <= f then break end
    keys[n], vals[n] = keys[parent], vals[parent]
    n = parent
  end
  keys[n], vals[n] = f, cell
end

local function heap_pop(h)
  local keys, vals, n = h.keys, h.vals, h.n
  local top = vals[1]
  local lastk, lastv = keys[n], vals[n]
  keys[n], vals[n] = nil, nil
  n = n - 1
  h.n = n
  local i = 1
  while true do
    local c = 2 * i
    if c > n then break end
    if c < n and keys[c + 1] < keys[c] then c = c + 1 end
    if keys[c] >= lastk then break end
    keys[i], vals[i] = keys[c], vals[c]
    i = c
  end
  if n > 0 then keys[i], vals[i] = lastk, lastv end
  return top
end

local function octile(ax, ay, bx, by)
  local dx, dy = math.abs(ax - bx), math.abs(ay - by)
  if dx < dy then dx, dy = dy, dx end
  return dx + (SQRT2 - 1) * dy
end

-- A* from cell (sx, sy) to (tx, ty), 0-based; returns the path as a flat
-- list {x1, y1, x2, y2, ...} from start to goal, or nil when there is none
-- or the search expanded SEARCH_BUDGET cells without reaching the goal (a
-- game caps its searches so that an unreachable goal costs no more than
-- a long path); and the number of cells it expanded.
function AI.astar(grid, sx, sy, tx, ty)
  local size, walls = grid.size, grid.walls
  local start, goal = sy * size + sx + 1, ty * size + tx + 1
  if walls[start] or walls[goal] then return nil, 0 end
  local g, from, closed = { [start] = 0 }, {}, {}
  local open = { n = 0, keys = {}, vals = {} }
  heap_push(open, octile(sx, sy, tx, ty), start)
  local budget = AI.SEARCH_BUDGET
  while open.n > 0 and budget > 0 do
    local cell = heap_pop(open)
    if cell == goal then
      local path, c = {}, goal
      while c do
        path[#path + 1] = (c - 1) % size
        path[#path + 1] = (c - 1) // size
        c = from[c]
      end
      -- reverse pairs in place: start first
      local n = #path // 2
      for i = 1, n // 2 do
        local a, b = 2 * i - 1, 2 * (n - i) + 1
        path[a], path[b] = path[b], path[a]
        path[a + 1], path[b + 1] = path[b + 1], path[a + 1]
      end
      return path, AI.SEARCH_BUDGET - budget
    end
    if not closed[cell] then
      closed[cell] = true
      budget = budget - 1
      local cx, cy = (cell - 1) % size, (cell - 1) // size
      local gc = g[cell]
      for k = 1, 8 do
        local nx, ny = cx + DX[k], cy + DY[k]
        local n = ny * size + nx + 1
        -- no corner cutting: a diagonal needs both side cells free
        if not walls[n] and not closed[n]
           and (k <= 4 or (not walls[cy * size + nx + 1] and not walls[ny * size + cx + 1])) then
          local ng = gc + (k <= 4 and 1 or SQRT2)
          local old = g[n]
          if old == nil or ng < old then
            g[n], from[n] = ng, cell
            heap_push(open, ng + octile(nx, ny, tx, ty), n)
          end
        end
      end
    end
  end
  return nil, AI.SEARCH_BUDGET - budget
end

-- THE PLANTED SPIKE.  A breadth-first distance map over the strategic grid
-- (FLOW_SIZE^2 cells, 8 neighbours) toward the player, and for every cell
-- the direction of its lowest neighbour: the whole field is recomputed in
-- this one function, in one tick, allocating a fresh field every time.
function AI.rebuild_flow_field(world)
  local size = AI.FLOW_SIZE
  local walls = world.flow_grid.walls
  local p = world.player
  local scale = size / world.width
  local px = math.max(1, math.min(size - 2, math.floor(p.x * scale)))
  local py = math.max(1, math.min(size - 2, math.floor(p.y * scale)))
  local dist, queue = {}, {}
  local cells = size * size
  for i = 1, cells do dist[i] = -1 end
  local goal = py * size + px + 1
  dist[goal], queue[1] = 0, goal
  local head, tail = 1, 1
  while head <= tail do
    local cell = queue[head]
    head = head + 1
    local cx, cy, d = (cell - 1) % size, (cell - 1) // size, dist[cell] + 1
    for k = 1, 8 do
      local nx, ny = cx + DX[k], cy + DY[k]
      if nx >= 0 and ny >= 0 and nx < size and ny < size then
        local n = ny * size + nx + 1
        if dist[n] < 0 and not walls[n] then
          dist[n] = d
          tail = tail + 1
          queue[tail] = n
        end
      end
    end
  end
  local dir = {}
  for cell = 1, cells do
    local best, bestk = dist[cell], 0
    if best > 0 then
      local cx, cy = (cell - 1) % size, (cell - 1) // size
      for k = 1, 8 do
        local nx, ny = cx + DX[k], cy + DY[k]
        if nx >= 0 and ny >= 0 and nx < size and ny < size then
          local dn = dist[ny * size + nx + 1]
          if dn >= 0 and dn < best then best, bestk = dn, k end
        end
      end
    end
    dir[cell] = bestk
  end
  world.flow = dir
  world.flow_reached = tail
  return tail
end

function AI.new_agent(e)
  e.agent = { path = nil, step = 0, planned = -math.huge }
  return e.agent
end

local function cell_of(grid, world, x, y)
  local s = grid.size
  local cx = math.max(1, math.min(s - 2, math.floor(x / world.width * s)))
  local cy = math.max(1, math.min(s - 2, math.floor(y / world.height * s)))
  return cx, cy
end

-- Nearest free cell to (cx, cy), searched in growing squares.
local function free_cell(grid, cx, cy)
  local s, walls = grid.size, grid.walls
  for r = 0, 4 do
    for dy = -r, r do
      for dx = -r, r do
        local x, y = cx + dx, cy + dy
        if x > 0 and y > 0 and x < s - 1 and y < s - 1 and not walls[y * s + x + 1] then
          return x, y
        end
      end
    end
  end
  return cx, cy
end

function AI.steer(world, e, speed)
  local a = e.agent
  local path = a.path
  if not path or a.step * 2 > #path then e.ax, e.ay = 0, 0 return end
  local s = world.grid.size
  local wx = (path[2 * a.step - 1] + 0.5) * world.width / s
  local wy = (path[2 * a.step] + 0.5) * world.height / s
  local dx, dy = wx - e.x, wy - e.y
  local d = math.sqrt(dx * dx + dy * dy)
  if d < 1.5 then a.step = a.step + 1 end
  e.ax, e.ay = dx / (d + 1e-9) * speed, dy / (d + 1e-9) * speed
end

-- One tick of AI: agents, in turn, search a new path to the player until
-- the tick's searches have expanded TICK_BUDGET cells (time-slicing keeps
-- every tick's AI about as long as the others, however long the paths);
-- every agent steers along its own path.  Returns true when this tick rebuilt the flow field
-- (the planted spike), so the host can say which ticks it planted.
function AI.update(world, tick)
  local grid, agents = world.grid, world.agents
  local tx, ty = cell_of(grid, world, world.player.x, world.player.y)
  tx, ty = free_cell(grid, tx, ty)
  local n = #agents
  do  -- the searches of this tick, as the zone "pathfinding"
    local z <close> = Z.zone("pathfinding")
    local spent, replans = 0, 0
    while spent < AI.TICK_BUDGET and replans < n do
      local e = agents[(world.next_agent + replans - 1) % n + 1]
      local sx, sy = free_cell(grid, cell_of(grid, world, e.x, e.y))
      local a, expanded = e.agent, 0
      a.path, expanded = AI.astar(grid, sx, sy, tx, ty)
      a.step, a.planned = 1, tick
      spent, replans = spent + expanded + 1, replans + 1
      world.paths = world.paths + 1
      world.path_cells = world.path_cells + (a.path and #a.path // 2 or 0)
    end
    world.next_agent = (world.next_agent + replans - 1) % n + 1
  end
  for i = 1, n do AI.steer(world, agents[i], 120) end
  if tick % AI.SPIKE_EVERY == AI.SPIKE_PHASE then
    AI.rebuild_flow_field(world)
    return true
  end
  return false
end

return AI
