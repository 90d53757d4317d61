-- LuaJIT's FFI: cdata made with ffi.new, a C function (qsort) calling a
-- Lua comparator through a callback (ffi.cast), an error raised inside a
-- callback's caller, metatype methods and metamethods, ffi.gc
-- finalizers, and FFI calls of libc in a hot loop.
local ffi = require("ffi")
ffi.cdef[[
typedef struct { double x, y; } point_t;
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
size_t strlen(const char *s);
int abs(int x);
]]

-- arrays and structs
local arr = ffi.new("int[10]", {5, 3, 9, 1, 7, 2, 8, 6, 4, 0})
local n = 0
for i = 0, 9 do n = n + arr[i] end
print("sum", n)

-- qsort with a Lua comparator: C calls back into Lua
local calls = 0
local function cmp(a, b)
  calls = calls + 1
  local x, y = ffi.cast("const int *", a)[0], ffi.cast("const int *", b)[0]
  return x < y and -1 or (x > y and 1 or 0)
end
local cb = ffi.cast("int (*)(const void *, const void *)", cmp)
ffi.C.qsort(arr, 10, ffi.sizeof("int"), cb)
local out = {}
for i = 0, 9 do out[#out + 1] = arr[i] end
print(table.concat(out, " "), calls > 0)
-- descending, with a comparator that is a method of a table
local sorter = {flip = -1}
function sorter:cmp(a, b)
  local x, y = ffi.cast("const int *", a)[0], ffi.cast("const int *", b)[0]
  return self.flip * (x - y)
end
local cb2 = ffi.cast("int (*)(const void *, const void *)",
                     function(a, b) return sorter:cmp(a, b) end)
ffi.C.qsort(arr, 10, ffi.sizeof("int"), cb2)
out = {}
for i = 0, 9 do out[#out + 1] = arr[i] end
print(table.concat(out, " "))
cb:free()
cb2:free()

-- metatype: methods and metamethods on a struct
local Point
Point = ffi.metatype("point_t", {
  __add = function(a, b) return Point(a.x + b.x, a.y + b.y) end,
  __tostring = function(p) return ("(%g, %g)"):format(p.x, p.y) end,
  __index = {
    len = function(p) return math.sqrt(p.x * p.x + p.y * p.y) end,
    scale = function(p, k) return Point(p.x * k, p.y * k) end,
  },
})
local p = Point(3, 4)
print(tostring(p), p:len(), tostring(p:scale(2) + Point(1, 1)))
-- a metamethod that raises an error, caught
print(pcall(function() return p + 1 end))
-- (a missing field's message names an anonymous struct by its ctype
-- number, which the profiler's own ctypes shift: ffi_ctype_ids_jit.lua)
print(pcall(function() return Point(1, 2).x + p:len() end))

-- ffi.gc finalizers: run by a full collection, in the right order
local log = {}
do
  local a = ffi.gc(ffi.new("int[1]", 1), function(c) log[#log + 1] = "free " .. c[0] end)
  local b = ffi.gc(ffi.new("int[1]", 2), function(c) log[#log + 1] = "free " .. c[0] end)
  a, b = nil, nil
end
collectgarbage()
collectgarbage()
table.sort(log)
print(table.concat(log, ", "))
-- a finalizer taken back
local kept = ffi.gc(ffi.new("int[1]", 3), function() print("never") end)
ffi.gc(kept, nil)
kept = nil
collectgarbage()

-- C calls in a hot loop (compiled), and strings through the FFI
local total = 0
for i = -5000, 5000 do total = total + ffi.C.abs(i) end
print("abs total", total, ffi.C.strlen("hello, ffi"))

-- an error in Lua code called from a callback cannot cross C: LuaJIT
-- reports it; here the comparator is checked before it is handed over
local function safe_cmp(a, b)
  local ok, r = pcall(cmp, a, b)
  if not ok then return 0 end
  return r
end
local cb3 = ffi.cast("int (*)(const void *, const void *)", safe_cmp)
ffi.C.qsort(arr, 10, ffi.sizeof("int"), cb3)
cb3:free()
print(arr[0], arr[9])
-- 64-bit integers and their printing
local big = ffi.new("int64_t", 2) ^ 40
print(tostring(big), tostring(ffi.new("uint64_t", -1)))
