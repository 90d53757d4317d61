-- differs: offline luaprof
-- Count hooks see the probe's instructions.
local n = 0
local function f(x) local s = 0 for i = 1, x do s = s + i end return s end
debug.sethook(function() n = n + 1 end, "", 1)
local r = f(10)
debug.sethook()
print(r, n)
