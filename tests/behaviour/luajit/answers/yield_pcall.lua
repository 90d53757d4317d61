-- Known answers: a coroutine yields across pcall and xpcall; an error
-- after the resume is caught by the pcall it crossed, in the coroutine:
-- the frames it unwound close there (exits by an error), the coroutine's
-- later calls hang under its body, and the resumer's own calls meanwhile
-- under the resumer.
local function risky(k)                                    -- line 6
  local v = coroutine.yield(k)
  if v == "fail" then error("failed after the yield") end
  return v
end
local function guarded(k)                                  -- line 11
  local ok = pcall(risky, k)
  return ok
end
local function handled(k)                                  -- line 15
  local ok = xpcall(risky, function(m) return m end, k)    -- (line 16)
  return ok
end
local function later() return 0 end                       -- line 19
local function body()                                      -- line 20
  for k = 1, 50 do
    guarded(k)
    later()
    handled(k)
  end
  return "done"
end
local function resumer_work() return 1 end                 -- line 28

local co = coroutine.create(body)
local v = select(2, coroutine.resume(co))
local n = 0
while coroutine.status(co) == "suspended" do
  n = n + 1
  resumer_work()
  -- every third resume makes the yield fail
  v = select(2, coroutine.resume(co, n % 3 == 0 and "fail" or "go"))
end

-- the same in a wrapped coroutine, hot enough for the JIT
local gen = coroutine.wrap(function()                      -- line 41
  for k = 1, 400 do guarded(k) end
end)
for i = 1, 400 do gen(i % 4 == 0 and "fail" or "go") end
pcall(gen)

-- (resume n answers yield n: guarded's are the odd ones, handled's the
-- even ones; every third fails: 17 odd and 16 even in 1..100)
-- expect: 6 calls=500 errors=133
-- expect: 11 calls=450 errors=0
-- expect: 15 calls=50 errors=0
-- expect: 16 calls=16 errors=0
-- expect: 19 calls=50 errors=0
-- expect: 20 calls=1 errors=0
-- expect: 28 calls=100 errors=0
-- expect: 41 calls=1 errors=0
-- expect-path: main>28 calls=100 errors=0
-- expect-path: main>20>11>6 calls=50 errors=17
-- expect-path: main>20>15>6 calls=50 errors=16
-- expect-path: main>20>15>6>16 calls=16 errors=0
-- expect-path: main>20>19 calls=50 errors=0
-- expect-path: main>41>11>6 calls=400 errors=100
-- expect-open: 0
