-- Lua 5.1 and later (and LuaJIT): what coroutine.resume, wrap, yield and
-- status say when they refuse, each version in its own words.
local function show(...)
  local t = {n = select('#', ...), ...}
  for i = 1, t.n do
    local v = t[i]
    if type(v) ~= "string" and type(v) ~= "number" and type(v) ~= "boolean"
       and v ~= nil then v = type(v) end
    t[i] = tostring(v)
  end
  print(table.concat(t, " | ", 1, t.n))
end

-- a dead coroutine, resumed again
local done = coroutine.create(function() return "once" end)
show(coroutine.resume(done))
show(coroutine.status(done), coroutine.resume(done))
show(coroutine.resume(done, 1, 2))

-- a coroutine that died by an error stays dead
local broken = coroutine.create(function() error("broken") end)
show(coroutine.resume(broken))
show(coroutine.status(broken), coroutine.resume(broken))

-- the running coroutine resumes itself
local selfish
selfish = coroutine.create(function()
  show("inside", coroutine.status(selfish))
  show(coroutine.resume(selfish))
  return "selfish done"
end)
show(coroutine.resume(selfish))

-- a normal coroutine (it resumed another) is resumed by the other
local outer, inner
outer = coroutine.create(function()
  show(coroutine.resume(inner))
  return "outer done"
end)
inner = coroutine.create(function()
  show("outer is", coroutine.status(outer))
  show(coroutine.resume(outer))
  return "inner done"
end)
show(coroutine.resume(outer))

-- resume's argument check
show(pcall(coroutine.resume))
show(pcall(coroutine.resume, 42))
show(pcall(coroutine.resume, {}))
show(pcall(coroutine.status, "x"))

-- wrap: errors carry the caller's position when they are strings
local function wrapped_error(v)
  local f = coroutine.wrap(function() error(v, 0) end)
  return pcall(function()
    local r = f()   -- (not a tail call: this line is the caller's position)
    return r
  end)
end
show(wrapped_error("plain string"))
show(wrapped_error(42))
show(wrapped_error(true))
local t = {}
local ok, e = wrapped_error(t)
show(ok, e == t)
show(wrapped_error(nil))
local f = coroutine.wrap(function() return 1 end)
show(f())
show(pcall(f))
show(pcall(f))
show(pcall(coroutine.wrap))
show(pcall(coroutine.wrap, 42))

-- yield outside any coroutine
show(pcall(coroutine.yield, 1))

-- values through resume and yield, in both directions
local echo = coroutine.create(function(...)
  local a, b, c = coroutine.yield(select('#', ...), ...)
  local d = coroutine.yield(a, b, c)
  return "echo done", d
end)
show(coroutine.resume(echo, nil, nil))
show(coroutine.resume(echo, 1, 2, 3))
show(coroutine.resume(echo))
show(coroutine.resume(echo))
show(coroutine.status(echo))

-- a coroutine's error with a traceback taken inside it
local tb = coroutine.create(function()
  local function deep(n) if n == 0 then error("deep in coroutine") end deep(n - 1) end
  deep(3)
end)
local ok2, msg = coroutine.resume(tb)
show(ok2, msg)
print(debug.traceback(tb))
