-- differs: luaprof(maybe)
-- With the runtime, where the loader lifts a chunk's main function out of
-- its compiled wrapper by a dump and an undump (docs/probes.md: LuaJIT, a
-- build without Lua's headers, a state with a hook, LUAINSTR_LIFT=dump):
-- as after any string.dump + load, equal long string constants (over 40
-- bytes) of the chunk are separate objects, which only `%p` tells apart.
-- Lifted in memory (PUC Lua with Lua's headers), and offline, and for
-- short strings, they are one object.
local function addr(s) return string.format("%p", s) end
local a <const> = "0123456789012345678901234567890123456789 long enough"
local function f() return "0123456789012345678901234567890123456789 long enough" end
print(addr(a) == addr(f()))
print(a == f())
local short = "short"
local function g() return "short" end
print(addr(short) == addr(g()))
