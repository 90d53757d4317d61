local function f() end local function g() return 1 end
local t = setmetatable({}, {__index = function(t, k) return k end})
print(f(), g(), t.x)
