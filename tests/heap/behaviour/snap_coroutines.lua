-- Snapshots inside coroutines at several depths (each resumes the next),
-- inside coroutine.wrap generators, inside a coroutine that is resumed
-- again after the snapshot, and from the main thread while coroutines
-- are suspended at every depth; the values passed through resume and
-- yield are printed.
local ok, p = pcall(require, "luainstr")
if not ok then p = nil end
local n = 0
local function snap(opts)
  if not p then return end
  n = n + 1
  local r, err = p.snapshot("co" .. n .. ".heapsnapshot", opts)
  if not r then io.stderr:write("snapshot failed: ", tostring(err), "\n") end
end

local function nest(depth, x)
  if depth == 0 then
    snap()
    local y = coroutine.yield(x * 2)
    snap({ collect = true })
    return y + 1
  end
  local co = coroutine.create(nest)
  local _, v = coroutine.resume(co, depth - 1, x + 1)   -- (the deepest yields)
  snap()                                               -- (with it suspended)
  local y = coroutine.yield(v)                         -- up, and back down
  local _, w = coroutine.resume(co, y)
  return w + depth
end
for d = 0, 4 do
  local co = coroutine.create(nest)
  local _, v = coroutine.resume(co, d, 10)
  print("depth", d, v, coroutine.resume(co, v + 1))
end

local gen = coroutine.wrap(function(a)
  for i = 1, 4 do
    snap()
    a = coroutine.yield(a + i)
  end
  return "end"
end)
print(gen(1), gen(10), gen(100), gen(1000), gen(0))

local parked = {}
for i = 1, 10 do
  local co = coroutine.create(function(k)
    local stack = {}
    for j = 1, k do stack[j] = { j } end
    coroutine.yield(#stack)
    return k
  end)
  coroutine.resume(co, i)
  parked[i] = co
end
snap()
local total = 0
for i, co in ipairs(parked) do
  local _, v = coroutine.resume(co)
  total = total + v
end
print("parked", total, coroutine.status(parked[1]))
