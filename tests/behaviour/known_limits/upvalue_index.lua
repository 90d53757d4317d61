-- differs: offline luaprof
-- Upvalues by index and their count: the probe is an extra upvalue,
-- usually the first one.
local a, b = 1, 2
local function f() return a + b end
print(debug.getinfo(f, "u").nups)
print(debug.getupvalue(f, 1))
print(debug.getupvalue(f, 2))
debug.setupvalue(f, 1, 10)
print(f())
