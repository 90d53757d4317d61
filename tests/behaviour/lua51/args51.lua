-- Lua 5.1 and later (and LuaJIT): the script's arguments, as `...` at the
-- main level and as the global `arg` (its non-negative part: the
-- interpreter's name and options below 0 are the runner's).
print("select #", select('#', ...))
print("...", ...)
print("#arg", #arg, "arg[0]", arg[0])
for i = 1, #arg do print(i, arg[i], (select(i, ...)) == arg[i]) end
local function count(...) return select('#', ...) end
print("count", count(...))
local packed = {...}
print("packed", #packed, packed[#packed])
local first, second = ...
print("first two", first, second)
-- `...` in a nested function is its own
local function inner(...) return select('#', ...), ... end
print("inner", inner("x"))
-- arg can be changed; `...` stays
arg[1] = "changed"
print("after change", arg[1], (...))
-- a main chunk can return values to lua.c, which ignores them
return "ignored", 1
