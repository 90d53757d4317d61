-- Lua 5.1 / LuaJIT: error messages, levels and tracebacks.
local function try(f) local ok, e = pcall(f) print(e) end
try(function() foo() end)
try(function() local t = {} t.bar() end)
try(function() local x x() end)
local y
try(function() y() end)
try(function() local o = {} o:m() end)
try(function() return undefined.x end)
try(function() local t = {} return t.a.b end)
try(function() return y + 1 end)
try(function() return {} .. "" end)
try(function() return #nil end)
try(function() return 1 < "2" end)
try(function() error("level 1") end)
try(function() error("level 0", 0) end)
local function lvl2() error("blame caller", 2) end
try(function()
  lvl2()
end)
try(function() return foo2(1) end)
print(xpcall(function() local t = nil return t.x end, debug.traceback))
print(xpcall(function() error("handled") end, function(m) return "H:" .. m end))
print(type(select(2, pcall(error, {}))))
print(select(2, pcall(error)))
print(pcall(require("mod51").fail, "x"))
local function deep(n) if n == 0 then error("deep") end local r = deep(n - 1) return r end
print(pcall(deep, 20))
local M = {}
function M.run() local r = M.missing() return r end
M.run()
