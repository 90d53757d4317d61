-- binary_trees.lua -- allocate and walk many short-lived binary trees, plus
-- one long-lived one: allocation and GC bound, recursive calls.
-- Usage: binary_trees.lua [MAXDEPTH]
local MAXDEPTH = tonumber(arg and arg[1]) or 14
local MINDEPTH = 4
local tick = bench_tick  -- bench_host frames mode: a frame mark now and then

local function make(depth)
  if depth == 0 then return { false, false } end
  depth = depth - 1
  return { make(depth), make(depth) }
end

local function check(node)
  local left = node[1]
  if not left then return 1 end
  return 1 + check(left) + check(node[2])
end

local total = 0
local stretch = make(MAXDEPTH + 1)
total = total + check(stretch)
stretch = nil

local long_lived = make(MAXDEPTH)
for depth = MINDEPTH, MAXDEPTH, 2 do
  local iterations = 1 << (MAXDEPTH - depth + MINDEPTH)
  local sum = 0
  for _ = 1, iterations do
    if tick then tick() end
    sum = sum + check(make(depth))
  end
  total = total + sum * depth
end
total = total + check(long_lived)
print(string.format("checksum %d", total))
