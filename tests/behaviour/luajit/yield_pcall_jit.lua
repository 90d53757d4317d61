-- LuaJIT: a coroutine yields across pcall and xpcall (LuaJIT allows it,
-- Lua 5.1 does not), resumes into them, and errors after the yield are
-- caught by the pcall that was crossed; nested protected calls, the
-- handler of xpcall after a yield, coroutine.wrap, and a hot loop of them.
local function show(...)
  local t = {...}
  for i = 1, select("#", ...) do t[i] = tostring(t[i]) end
  print(table.concat(t, " | "))
end

-- yield inside pcall, resume with values, return through pcall
local co = coroutine.create(function(a)
  local ok, v, w = pcall(function(x)
    local got = coroutine.yield(x + 1)
    local got2, got3 = coroutine.yield(got * 2)
    return got2 + got3, "inner done"
  end, a)
  show("pcall gave", ok, v, w)
  return "finished"
end)
show(coroutine.resume(co, 10))
show(coroutine.status(co))
show(coroutine.resume(co, 5))
show(coroutine.resume(co, 1, 2))
show(coroutine.status(co))
show(coroutine.resume(co))

-- error after a yield, caught by the pcall crossed
co = coroutine.create(function()
  local ok, e = pcall(function()
    coroutine.yield("before error")
    error("after the yield")
  end)
  show("caught", ok, e)
  local ok2, e2 = pcall(function()
    coroutine.yield("second")
    error({tag = "table error"})
  end)
  show("caught table", ok2, type(e2) == "table" and e2.tag)
  return "alive"
end)
show(coroutine.resume(co))
show(coroutine.resume(co))
show(coroutine.resume(co))
show(coroutine.status(co))

-- xpcall: the handler runs after the yield, in the coroutine
co = coroutine.create(function(...)
  return xpcall(function(a, b)
    local c = coroutine.yield(a + b)
    if c == "fail" then error("asked to fail", 0) end
    return c
  end, function(m)
    return "handler in " .. tostring(coroutine.running() ~= nil) .. ": " .. m
  end, ...)
end)
show(coroutine.resume(co, 1, 2))
show(coroutine.resume(co, "fail"))

-- nested: yield across two pcalls and an xpcall
co = coroutine.wrap(function()
  local r = {pcall(function()
    return xpcall(function()
      return pcall(function()
        local v = coroutine.yield("deep")
        if v == "err" then error("deep error", 0) end
        return v
      end)
    end, debug.traceback)
  end)}
  show("nested", unpack(r))
  r = {pcall(function()
    return xpcall(function()
      local v = coroutine.yield("deep2")
      error("deep2 " .. v, 0)
    end, function(m) return "H(" .. m .. ")" end)
  end)}
  show("nested2", unpack(r))
  return "wrap done"
end)
show(co())
show(co("ok"))
show(co("x"))

-- isyieldable inside pcall inside a coroutine; not in the main thread
show("main yieldable", coroutine.isyieldable())
show(coroutine.wrap(function()
  return pcall(function() return coroutine.isyieldable() end)
end)())
-- yield across a C boundary is still refused (table.sort's comparator)
show(coroutine.wrap(function()
  return pcall(table.sort, {3, 1, 2}, function(a, b) coroutine.yield() return a < b end)
end)())

-- a producer/consumer, hot enough for the JIT
local producer = coroutine.wrap(function()
  for i = 1, 3000 do
    local ok, e = pcall(function()
      local ack = coroutine.yield(i)
      if i % 100 == 0 then error("drop " .. i, 0) end
      return ack
    end)
    if not ok and i % 1000 == 0 then coroutine.yield("note: " .. e) end
  end
  return nil
end)
local total, notes = 0, {}
while true do
  local v = producer("ack")
  if v == nil then break end
  if type(v) == "string" then notes[#notes + 1] = v else total = total + v end
end
show(total, table.concat(notes, ", "))
