-- pcall/xpcall, handlers, nested pcall, non-string error values.
local function handler(m) return "handled<" .. tostring(m) .. ">" end
print(xpcall(function() error("x") end, handler))
print(xpcall(function(a, b) return a + b end, handler, 1, 2))
print(xpcall(function(a, b) return a + b end, handler, 1, nil))
print(xpcall(function() error() end, handler))
print(xpcall(function() error(nil) end, handler))
print(xpcall(function() error(42) end, handler))
print(xpcall(function() error(42, 2) end, handler))
print(xpcall(function() error(true) end, handler))

-- error values pass through unchanged
local errobj = setmetatable({}, {__tostring = function() return "custom error object" end})
local ok, e = pcall(error, errobj)
print(ok, e == errobj, tostring(e))
ok, e = pcall(function() error({level = 1}) end)
print(ok, type(e), e.level)
ok, e = pcall(function() error(setmetatable({}, {__index = function(_, k) return "field " .. k end})) end)
print(ok, e.anything)

-- nested pcall, rethrowing
local function inner() error("inner failure") end
local function middle()
  local ok2, e2 = pcall(inner)
  error("middle saw: " .. e2, 0)
end
print(pcall(middle))
print(pcall(pcall, error, "twice"))
print(pcall(pcall))
print(select('#', pcall(function() end)), select('#', pcall(function() return nil, nil end)))

-- error in the handler
print(xpcall(function() error("first") end, function(m) error("in handler") end))

-- error level in nested functions
local function lvl(n) error("level " .. n, n) end
local function caller(n) lvl(n) end
for n = 0, 3 do print(pcall(caller, n)) end

-- error in __index through pcall
local strict = setmetatable({}, {__index = function(t, k) error("missing " .. k) end})
print(pcall(function() return strict.key end))

-- handler that gets a traceback with level
print(xpcall(function()
  local function f() local x = nil; return x.y end
  return f()
end, function(m) return debug.traceback(m, 2) end))

-- error with a number message gets no position
print(pcall(error, 3.5))
ok, e = pcall(function() error(7) end)
print(ok, e, math.type(e))

-- assert variants
print(pcall(assert, false))
print(pcall(assert, nil, "assert message"))
print(type(select(2, pcall(assert, false, {1}))))
print(select('#', assert(1, 2, 3)), assert("v", "m"))
print(pcall(assert))
