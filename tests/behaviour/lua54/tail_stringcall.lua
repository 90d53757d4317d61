-- `return f"s"` and `return f[[s]]` must stay tail calls.
local calls = 0
local f
f = function(s)
  calls = calls + 1
  if calls >= 1000000 then return s, calls end
  return f"again"
end
print(f"start")

-- a callable table with a counter in an upvalue
local n = 0
local callable = setmetatable({}, {__call = function(self, s)
  n = n + 1
  if n >= 1000000 then return "callable " .. s .. " " .. n end
  return self[[long]]
end})
print(callable"x")

-- string methods through string-call syntax
local function fmt(x) return ("%05d|%s"):format(x, "y") end
local function lit() return ("abc"):rep(2) end
print(fmt(42), lit())

local function g(s) return #s end
local function h() return g"four" end
local function h2() return g[==[six ]]]==] end
print(h(), h2())
