-- LuaJIT: coroutine.resume, wrap, yield, status, running and isyieldable
-- with LuaJIT 2.1's messages: dead, running and normal coroutines, errors
-- through wrap (strings get the caller's position, other values pass as
-- they are), C functions as coroutine bodies, coroutine.running in the
-- main thread, yields from the main thread, deep generators.
local function show(...)
  local t = {...}
  for i = 1, select("#", ...) do t[i] = tostring(t[i]) end
  print(table.concat(t, " | "))
end

show("running in main", coroutine.running())
show(pcall(coroutine.yield, 1))
show(pcall(function() local r = coroutine.yield(1) return r end))
show(pcall(function() local r = coroutine.resume() return r end))
show(pcall(function() local r = coroutine.resume(print) return r end))
show(pcall(function() local r = coroutine.status(nil) return r end))
show(pcall(function() local r = coroutine.wrap(nil) return r end))
show(pcall(function() local r = coroutine.create(1) return r end))

-- statuses and the messages for each
local main_co
local co
co = coroutine.create(function()
  show("inside", coroutine.status(co), coroutine.running() == co)
  show("resume self", coroutine.resume(co))
  local child = coroutine.create(function()
    show("parent is", coroutine.status(co))
    show("resume parent", coroutine.resume(co))
    return "child done"
  end)
  show(coroutine.resume(child))
  coroutine.yield("yielded")
  return "returned"
end)
show(coroutine.status(co))
show(coroutine.resume(co))
show(coroutine.status(co))
show(coroutine.resume(co))
show(coroutine.status(co))
show(coroutine.resume(co))
show(coroutine.resume(co, 1, 2, 3))

-- a coroutine that dies by an error stays dead
co = coroutine.create(function(x) if x then error("died: " .. x) end return "ok" end)
show(coroutine.resume(co, "boom"))
show(coroutine.status(co))
show(coroutine.resume(co))

-- wrap: errors propagate to the caller, strings with its position
local function errs_with(v) return coroutine.wrap(function() error(v, 0) end) end
show(pcall(errs_with("plain string")))
show(pcall(function() local r = errs_with("plain string")() return r end))
show(pcall(function() local r = errs_with(42)() return r end))
local tbl = {}
show(select(2, pcall(function() local r = errs_with(tbl)() return r end)) == tbl)
show(pcall(function() local r = errs_with(nil)() return r end))
local once = coroutine.wrap(function() return 1 end)
show(once())
show(pcall(function() local r = once() return r end))
show(pcall(once))
-- a runtime error inside the wrapped function
show(pcall(function() local w = coroutine.wrap(function() local t = nil; return t.x end) local r = w() return r end))

-- C functions as bodies (LuaJIT takes them)
show(coroutine.resume(coroutine.create(select), "#", 1, 2))
show(coroutine.wrap(tostring)(12))
show(pcall(coroutine.wrap(error), "from C body"))
local cy = coroutine.wrap(coroutine.yield)
show(cy("yielded by C body"))
show(cy("then returns"))

-- values through resume and yield, many of them
local many = coroutine.wrap(function(...)
  local n = select("#", ...)
  local got = {coroutine.yield(n, ...)}
  return #got, got[1], got[#got]
end)
local t = {}
for i = 1, 7000 do t[i] = i end
local r = {many(unpack(t))}
show(#r, r[1], r[2], r[#r])
show(many(unpack(t, 1, 6000)))

-- generators, deep and hot
local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
  end)
end
local s = 0
for v in gen(5000) do s = s + v end
show("gen sum", s)
local function chain(depth, n)
  if depth == 0 then return gen(n) end
  local src = chain(depth - 1, n)
  return coroutine.wrap(function()
    for v in src do coroutine.yield(v * 2) end
  end)
end
s = 0
for v in chain(20, 200) do s = s + v end
show("chain sum", s)

-- isyieldable
show(coroutine.wrap(function() return coroutine.isyieldable() end)())
show(coroutine.wrap(function()
  local inside
  local ok = pcall(table.sort, {2, 1}, function(a, b)
    inside = coroutine.isyieldable()
    return a < b
  end)
  return ok, inside
end)())
