-- Lua 5.1 and later (and LuaJIT): yields across pcall, xpcall, metamethods
-- and C functions.  Lua 5.1 refuses a yield across any C call ("attempt to
-- yield across metamethod/C-call boundary"); 5.2 and later let one cross
-- pcall, xpcall and metamethods; none crosses table.sort or string.gsub.
local unpack = unpack or table.unpack
local function show(...)
  local t = {n = select('#', ...), ...}
  for i = 1, t.n do
    local v = t[i]
    if type(v) == "table" or type(v) == "function" or type(v) == "thread" then
      v = type(v)
    end
    t[i] = tostring(v)
  end
  print(table.concat(t, " | ", 1, t.n))
end

local function run(name, body, ...)
  local co = coroutine.create(body)
  local res = {coroutine.resume(co, ...)}
  local rounds = 0
  while coroutine.status(co) == "suspended" and rounds < 5 do
    show(name, "yielded", unpack(res, 1, 4))
    rounds = rounds + 1
    res = {coroutine.resume(co, "r" .. rounds)}
  end
  show(name, coroutine.status(co), unpack(res, 1, 4))
end

run("pcall", function()
  local ok, a, b = pcall(function(x)
    local got = coroutine.yield("in pcall", x)
    return got, "after"
  end, "arg")
  return ok, a, b
end)

run("pcall error after yield", function()
  local ok, e = pcall(function()
    coroutine.yield("before error")
    error("after resume")
  end)
  return ok, e
end)

run("xpcall", function()
  local ok, v = xpcall(function()
    return coroutine.yield("in xpcall") .. "!"
  end, function(m) return "handled: " .. tostring(m) end)
  return ok, v
end)

run("xpcall handler after yield", function()
  return xpcall(function()
    coroutine.yield("xpcall then error")
    error({code = 7})
  end, function(m) return type(m) == "table" and m.code or m end)
end)

run("nested pcall", function()
  return pcall(pcall, function()
    local a = coroutine.yield("two deep")
    local b = coroutine.yield("again")
    return a .. b
  end)
end)

run("__index", function()
  local t = setmetatable({}, {__index = function(_, k)
    return coroutine.yield("index " .. k)
  end})
  return t.key
end)

run("__add", function()
  local mt = {__add = function(a, b) return coroutine.yield("add") end}
  return setmetatable({}, mt) + 1
end)

run("table.sort", function()
  local t = {3, 1, 2}
  table.sort(t, function(a, b) coroutine.yield("sort") return a < b end)
  return t[1]
end)

run("gsub", function()
  return (string.gsub("ab", ".", function(c) return coroutine.yield(c) end))
end)

run("for iterator", function()
  local s = ""
  for v in function(_, last)
             last = (last or 0) + 1
             if last <= 2 then coroutine.yield("iter " .. last) return last end
           end do
    s = s .. v
  end
  return s
end)

run("tail call", function()
  local function last(x) return coroutine.yield("tail " .. x) end
  return last("x")
end)

-- the coroutine status seen through a pcall'd function inside it
local co
co = coroutine.create(function()
  return pcall(function() return coroutine.status(co) end)
end)
show(coroutine.resume(co))

-- an error raised by resuming from inside pcall inside a coroutine
local inner = coroutine.create(function() error("inner fails") end)
local outer = coroutine.create(function()
  local ok, e = pcall(function()
    local ok2, e2 = coroutine.resume(inner)
    error("rethrown: " .. tostring(e2), 0)
  end)
  coroutine.yield(ok, e)
  return "outer end"
end)
show(coroutine.resume(outer))
show(coroutine.resume(outer))

-- a generator whose body uses pcall and a wrap that yields through pcall
local gen = coroutine.wrap(function()
  for i = 1, 3 do
    local ok, e = pcall(coroutine.yield, i)
    if not ok then coroutine.yield("pcall said: " .. e) end
  end
  return "gen end"
end)
show(gen()) show(gen()) show(gen()) show(gen())
