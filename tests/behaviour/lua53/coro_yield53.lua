-- Lua 5.2 and 5.3: yields across pcall, xpcall, metamethods, pairs and
-- load's reader, coroutine.running and isyieldable (5.3), goto in a
-- coroutine body.
local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do
    local v = t[i]
    if type(v) == "table" or type(v) == "function" or type(v) == "thread" then
      v = type(v)
    end
    t[i] = tostring(v)
  end
  print(table.concat(t, " | ", 1, t.n))
end

local function drive(name, f, ...)
  local co = coroutine.create(f)
  local res = table.pack(coroutine.resume(co, ...))
  local i = 0
  while coroutine.status(co) == "suspended" do
    i = i + 1
    show(name, "yield", table.unpack(res, 2, res.n))
    res = table.pack(coroutine.resume(co, i))
  end
  show(name, "end", table.unpack(res, 1, res.n))
end

drive("pcall in loop", function()
  local sum = 0
  for i = 1, 3 do
    local ok, v = pcall(coroutine.yield, "want " .. i)
    sum = sum + (ok and v or 100)
  end
  return sum
end)

drive("xpcall handler sees yield's error", function()
  return xpcall(function()
    local v = coroutine.yield("first")
    error("failed after " .. v)
  end, function(m) return "H: " .. m end)
end)

drive("yield inside handler", function()
  return xpcall(function() error("e", 0) end, function(m)
    return coroutine.yield("from handler " .. m)
  end)
end)

drive("__lt and __concat", function()
  local mt = {
    __lt = function(a, b) return coroutine.yield("lt") == 1 end,
    __concat = function(a, b) return "cat" .. coroutine.yield("concat") end,
  }
  local a, b = setmetatable({}, mt), setmetatable({}, mt)
  return a < b, a .. "x"
end)

drive("__pairs", function()
  local t = setmetatable({}, {__pairs = function(t)
    local k = coroutine.yield("pairs")
    return function(_, i) if i < 2 then return i + 1, "v" .. (i + 1) end end, t, 0
  end})
  local out = {}
  for k, v in pairs(t) do out[#out + 1] = k .. "=" .. v end
  return table.concat(out, ",")
end)

drive("load reader", function()
  local pieces = {"return ", "40 ", "+ 2"}
  local i = 0
  local f, err = load(function()
    i = i + 1
    if i == 2 then coroutine.yield("reader") end
    return pieces[i]
  end)
  return f and f() or err
end)

drive("goto retry", function()
  local tries = 0
  ::again::
  tries = tries + 1
  local ok = pcall(function()
    if coroutine.yield("try " .. tries) < 2 then error("not yet") end
  end)
  if not ok then goto again end
  return "took " .. tries
end)

-- coroutine.running and isyieldable
local main, ismain = coroutine.running()
show(type(main), ismain)
if coroutine.isyieldable then
  show("main yieldable", coroutine.isyieldable())
  show(coroutine.wrap(function()
    return coroutine.isyieldable(), select(2, coroutine.running()),
           pcall(coroutine.isyieldable)
  end)())
  show(coroutine.wrap(function()
    local r
    table.sort({2, 1}, function(a, b) r = coroutine.isyieldable() return a < b end)
    return r
  end)())
end
show(coroutine.wrap(function() return coroutine.status(coroutine.running()) end)())

-- a coroutine resumed from inside pcall, inside another coroutine
local inner = coroutine.wrap(function(a)
  local b = coroutine.yield(a * 2)
  return b * 3
end)
local outer = coroutine.wrap(function()
  local ok1, v1 = pcall(inner, 5)
  local got = coroutine.yield(v1)
  local ok2, v2 = pcall(inner, got)
  local ok3, v3 = pcall(inner, 0)
  return ok1, ok2, v2, ok3, v3
end)
show(outer())
show(outer(7))
