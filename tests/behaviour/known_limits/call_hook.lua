-- differs: offline luaprof
-- Call/return hooks see the probe calls.
local calls = 0
local function f(x) return x + 1 end
debug.sethook(function() calls = calls + 1 end, "cr")
local r = f(1) + f(2)
debug.sethook()
print(r, calls)
