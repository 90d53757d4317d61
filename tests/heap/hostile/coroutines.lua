-- Threads: 10^5 coroutines (H.scaled: 2*10^4 but on the main Lua),
-- suspended at depths 0 to 3 with locals, dead after returning, dead after
-- an error, never started; then snapshots taken from inside running
-- coroutines: one three resumes deep (its resumers "normal"), one inside
-- coroutine.wrap, one inside a pcall inside a coroutine, one after the
-- coroutine caught an error.
local H = require("heaphelp")
local N = H.scaled(100000)

local function body(depth, tag)
  local here = { tag = tag }
  local function down(d, acc)
    if d == 0 then
      local v = coroutine.yield(acc)
      return v
    end
    local mine = { d, acc }
    return down(d - 1, mine)
  end
  return down(depth, here)
end
local function failing(x) error({ x = x }) end

local cos = {}
local status = { suspended = 0, dead = 0 }
for i = 1, N do
  local kind = i % 10
  local co
  if kind == 0 then
    co = coroutine.create(body)                        -- never started
  elseif kind == 1 then
    co = coroutine.create(failing)
    coroutine.resume(co, i)                            -- dead by error
  elseif kind == 2 then
    co = coroutine.create(function(a) return a end)
    coroutine.resume(co, i)                            -- dead after returning
  else
    co = coroutine.create(body)
    coroutine.resume(co, i % 4, i)                     -- suspended
  end
  cos[i] = co
end
H.snap("many", nil, "ok", { threads_min = N })

-- from inside running coroutines
local results = {}
local inner = coroutine.create(function(x)
  local mine = { "inner", x }
  H.snap("inside_depth3", nil, "ok", { threads_min = N })
  local y = coroutine.yield(x + 1)
  H.snap("inside_depth3_again", { collect = true }, "ok", { threads_min = N })
  return y * 2, mine[1]
end)
local middle = coroutine.create(function(x)
  local ok1, v = coroutine.resume(inner, x)
  local ok2, w, name = coroutine.resume(inner, v)
  return ok1, v, ok2, w, name
end)
local outer = coroutine.create(function(x)
  return coroutine.resume(middle, x)
end)
print(coroutine.resume(outer, 10))

local gen = coroutine.wrap(function()
  for i = 1, 3 do
    H.snap("wrap_" .. i, nil, "ok")
    coroutine.yield(i * i)
  end
end)
print(gen(), gen(), gen())

local guarded = coroutine.create(function()
  local ok, err = pcall(function()
    H.snap("pcall_in_coroutine", nil, "ok")
    error("boom", 0)
  end)
  H.snap("after_caught_error", nil, "ok")
  coroutine.yield(ok, err)
  return "done"
end)
print(coroutine.resume(guarded))
print(coroutine.resume(guarded))

for _, co in ipairs(cos) do
  local s = coroutine.status(co)
  status[s] = (status[s] or 0) + 1
end
print("suspended", status.suspended, "dead", status.dead)
