-- Counted, not timed (option "count_small"): small functions with no call
-- or loop are counted exactly under their callers, their time is their
-- callers' own.
local check = ...
local clock = check.p.clock

local function spin(ms)
  local t = clock() + ms * 1e6
  while clock() < t do end
  check.over(clock() - t, ms)
end

-- counted: a few tokens, no call, no loop
local function inc(x) return x + 1 end
local V = {x = 3}
function V:get() return self.x end
local function field(t) return t.x end          -- errors on a nil argument

-- timed: it calls
local function work(n)
  local s = 0
  for _ = 1, n do s = inc(s) + V:get() end
  spin(10)
  return s
end

-- timed: a loop
local function loop(n)
  local s = 0
  for i = 1, n do s = s + i end
  return s
end

local r = work(500)
assert(r == 500 * 4)
loop(10)
-- an error inside a counted function: no exit probe to miss; the caller's
-- frame is closed as ever
for _ = 1, 3 do
  local ok = pcall(field, nil)
  assert(not ok)
end
-- in a coroutine
local co = coroutine.wrap(function() for _ = 1, 7 do inc(0) end coroutine.yield(1) return inc(1) end)
co(); co()
-- a dumped counted function, loaded back (its probe does nothing then)
local ok, dumped = pcall(string.dump, inc)
if ok then
  local f = assert((loadstring or load)(dumped, "=dumped"))
  local okc, v = pcall(f, 41)
  check.truthy("a dumped counted function runs", okc and v == 42)
end
