-- Known answers: a coroutine that dies by an error closes all its open
-- frames as exits by an error (resume returns false; wrap raises in the
-- resumer, where pcall catches it); frames of the resumer stay open and
-- go on; a dead coroutine resumed again runs nothing.
local function explode(n)                                  -- line 5
  if n > 0 then return explode(n - 1) end
  error("exploded")
end
local function deep(n)                                     -- line 9
  if n == 0 then coroutine.yield("bottom") explode(3) end
  local r = deep(n - 1)
  return r
end
local function body(n) local r = deep(n) return r end     -- line 14
local function resumer()                                   -- line 15
  local co = coroutine.create(body)
  coroutine.resume(co, 4)         -- yields at the bottom
  local ok = coroutine.resume(co) -- dies: body, deep x5, explode x4
  coroutine.resume(co)            -- dead: nothing runs
  return ok
end
local function after() return 1 end                       -- line 22
for i = 1, 20 do
  resumer()
  after()
end

-- through wrap: the error reaches the resumer's pcall
local function wrapper()                                   -- line 29
  local w = coroutine.wrap(body)
  w(2)
  w()                             -- raises through here
  return "not reached"
end
for i = 1, 10 do pcall(wrapper) end

-- (explode recurses by tail calls: each leaves before the next enters,
-- under the same caller; only the last is open when the error comes)
-- expect: 5 calls=120 errors=30
-- expect: 9 calls=130 errors=130
-- expect: 14 calls=30 errors=30
-- expect: 15 calls=20 errors=0
-- expect: 22 calls=20 errors=0
-- expect: 29 calls=10 errors=10
-- expect-path: main>15>14>9>9>9>9>9>5 calls=80 errors=20
-- expect-path: main>29>14>9>9>9>5 calls=40 errors=10
-- expect-path: main>22 calls=20 errors=0
-- expect-open: 0
