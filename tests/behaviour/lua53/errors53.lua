-- Lua 5.3: error messages, names, levels, tracebacks.
local function try(f, ...) print(select(2, pcall(f, ...))) end
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
try(function(n) error("level 1") end)
try(function() error("level 0", 0) end)
print(type(select(2, pcall(error, {}))))
local function lvl2() error("blame caller", 2) end
try(function()
  lvl2()
end)
print(xpcall(function() local t = nil return t.x end, debug.traceback))
local ok, e = pcall(error, setmetatable({}, {__tostring = function() return "obj" end}))
print(ok, tostring(e))
local co = coroutine.create(function() local a = nil; return a.b end)
print(coroutine.resume(co))
print(debug.traceback(co))
local function deep(n) if n == 0 then error("deep") end local r = deep(n - 1) return r end
print(xpcall(deep, debug.traceback, 25))
local M = {}
function M.run() return M.missing() end
M.run()
