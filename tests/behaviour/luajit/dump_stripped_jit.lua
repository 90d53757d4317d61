-- LuaJIT: string.dump(f, true), a stripped dump, loaded back: no names
-- are left (the profiler finds an instrumented function's probe upvalue by
-- its kind, runtime/loader.c), and an error names no line.
local function noup(a, b) return a * b + 1 end
print(#string.dump(noup, true) > 0)
print(loadstring(string.dump(noup, true))(6, 7))
local e = loadstring(string.dump(function(x) return x.field end, true))
print(pcall(e, nil))
