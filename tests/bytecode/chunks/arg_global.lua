-- The global `arg` (lua.c sets it) read at the main level and from a nested
-- function: 5.1's loader form must not turn it into a hidden local.
print("arg", type(arg), arg[0], #arg, arg[1], arg[2])
local function second() return arg[2] end
print("second", second())
local info = debug.getinfo(1, "S")
print(info.what, info.source, info.short_src, info.linedefined, info.lastlinedefined)
