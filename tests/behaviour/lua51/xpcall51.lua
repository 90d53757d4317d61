-- Lua 5.1 and later (and LuaJIT): pcall and xpcall, their handlers and
-- argument checks.  5.1's xpcall calls the function with no arguments and
-- takes any handler; 5.2 passes the extra arguments; 5.3 wants a function.
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

local function args(...) return select('#', ...), ... end
local function fails(...) error("fails with " .. select('#', ...) .. " args") end
local function handler(m) return "H(" .. tostring(m) .. ")" end
-- (argument errors are raised from a Lua caller: called by pcall directly,
-- 5.2 names pcall "pcall" or "_G.pcall", as the order of _G falls)

-- pcall
show(pcall(args))
show(pcall(args, 1, nil, 3))
show(pcall(fails, 1, 2))
show(pcall(error))
show(pcall(error, nil))
show(pcall(error, "no position", 0))
show(pcall(error, "position", 1))
show(pcall(function() local r = pcall() return r end))
show(pcall(pcall, error, "e"))
show(pcall(nil))
show(pcall({}))
show(pcall(setmetatable({}, {__call = function(self, x) return "called", x end}), 5))
show(select('#', pcall(function() end)))
show(pcall(function() return 1, 2, 3, nil end))

-- xpcall: results, extra arguments, handlers
show(xpcall(args, handler))
show(xpcall(args, handler, "x", "y"))
show(xpcall(fails, handler, "x"))
show(xpcall(function() error({}) end, function(m) return type(m) end))
show(xpcall(function() error() end, function(m) return "got " .. tostring(m) end))
show(xpcall(function() error("e") end, function(m) return 1, 2, 3 end))
show(xpcall(function() error("e") end, function(m) end))
show(xpcall(function() local x = nil; return x.y end, function(m) return m end))

-- a handler sees the stack where the error was raised
local function where_handler(m)
  local info = debug.getinfo(3, "Sl")
  return m .. " @" .. tostring(info.currentline)
end
local function raiser() error("raised here") end
show(xpcall(function() raiser() end, where_handler))
show(xpcall(raiser, debug.traceback))

-- a handler that fails, a handler that is not a function, no handler
show(xpcall(function() error("first") end, function(m) error("in handler") end))
show(pcall(function() local r, e = xpcall(function() error("first") end, 42) return r, e end))
show(pcall(function() local r, e = xpcall(function() return "no error" end, 42) return r, e end))
show(pcall(function() local r = xpcall(function() end) return r end))
show(pcall(function() local r = xpcall() return r end))

-- nested: the inner handler runs, the outer one does not
show(xpcall(function()
  local ok, e = xpcall(function() error("inner", 0) end, function(m) return "inner H: " .. m end)
  return "outer got", ok, e
end, function(m) return "outer H: " .. m end))

-- an error raised again keeps its value
local token = {}
local ok, e = pcall(function()
  local ok2, e2 = pcall(error, token)
  error(e2)
end)
show(ok, e == token)

-- an error in a __tostring called by tostring inside pcall
local bad = setmetatable({}, {__tostring = function() error("tostring failed", 0) end})
show(pcall(tostring, bad))

-- stack overflow caught by pcall
local function overflow(n) return 1 + overflow(n + 1) end
local okso, eso = pcall(overflow, 1)
show(okso, (string.gsub(tostring(eso), "^.-:%d+: ", "")))
