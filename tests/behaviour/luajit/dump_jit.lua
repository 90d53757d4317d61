-- LuaJIT: string.dump of functions (instrumented ones under the
-- profiler) and loadstring of the dump, with upvalues, with nested
-- closures, a main chunk, dumped twice: the copies run as the originals
-- do.  (Stripped dumps: dump_stripped_jit.lua.)
local function noup(a, b) return a * b + 1 end
local k = 10
local function withup(x) return x + (k or 0) end
local function maker(n)
  local function add(x) return x + n end
  return add
end
print(loadstring(string.dump(noup))(6, 7))
print(loadstring(string.dump(noup), "=dumped")(2, 3))
-- an upvalue is nil in the copy
local w = loadstring(string.dump(withup))
print(pcall(w, 1))
local m = loadstring(string.dump(maker))
print(m(4)(3))
print(loadstring(string.dump(loadstring(string.dump(noup))))(3, 3))
local main = loadstring("local a = ... local function sq(x) return x * x end " ..
                        "if a > 10 then return sq(a) end return tostring(sq(a))", "=chunk")
local d = string.dump(main)
print(loadstring(d)(3), loadstring(d)(11))
print(select("#", loadstring(d, "=again")(2)))
-- an error inside a dumped function keeps its message and line
local e = loadstring(string.dump(function(x) return x.field end))
print(pcall(e, nil))
-- a dumped function in a hot loop
local hot = loadstring(string.dump(function(n) local s = 0 for i = 1, n do s = s + i end return s end))
print(hot(100000))
-- C functions cannot be dumped
print(pcall(string.dump, print))
