-- every way to define a function, and their names
local M = {}
function M.a() return 1 end
M.b = {}
function M.b.c:m(x) self.x = x end
local function helper(a, b)
  local s = a + b
  return s
end
local f = function() end
M.g, M.h = function() return 2 end, function(...) return ... end
local t = { field = function() return "f" end, [1] = function() end }
print((function() return "anon" end)())
return M
