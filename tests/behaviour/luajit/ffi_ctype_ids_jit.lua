-- LuaJIT's FFI: what names an anonymous C type by its number in the
-- state's ctype table (messages, tostring of a ctype).  The profiler's FFI
-- probe and its pcall and xpcall make ctypes of their own before the
-- program runs, so under it these numbers are higher (KNOWN_DIFF).
local ffi = require("ffi")
local anon = ffi.typeof("struct { int a; }")
print(tostring(anon))
print(pcall(function() return anon().nosuch end))
ffi.cdef("typedef struct { double x; } named_t;")
print(tostring(ffi.typeof("named_t")))
-- a named struct is named by its tag, the same under the profiler
ffi.cdef("struct tagged { int v; };")
print(tostring(ffi.typeof("struct tagged")))
print(pcall(function() return ffi.new("struct tagged").nosuch end))
