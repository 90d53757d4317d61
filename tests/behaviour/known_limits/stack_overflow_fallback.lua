-- differs: offline(maybe)
-- Stack overflow without the runtime: the instrumented chunk's fallback
-- probe (the prologue's `function(_,...)return ... end`) is a Lua function
-- defined on line 1.  When the Lua stack runs out while it is being
-- entered, the message names line 1 instead of the caller's line.  Whether
-- that happens depends on where the 1,000,000-slot limit falls, so this
-- program may also pass.  Under luaprof (a C probe) the position is exact.
local function overflow() return 1 + overflow() end
local ok, e = pcall(overflow)
print(ok, e)
local function overflow2(n) local t = {n} return overflow2(n + 1) + t[1] end
ok, e = pcall(overflow2, 1)
print(ok, e)
local function overflow3(a, b) return overflow3(b, a) + a end
ok, e = pcall(overflow3, 1, 2)
print(ok, e)
