-- LuaJIT's cdata (docs/heap.md: hidden nodes named "cdata CTYPE"): structs,
-- arrays (one of 10 MB), pointers, a cdata with a finalizer that raises
-- (ffi.gc: it runs when the state closes, after the output), a cdata of
-- a type whose name holds odd bytes, boxed 64-bit integers, a callback.
-- On other Luas there is no FFI: the program prints the same line alone.
local H = require("heaphelp")
local has_ffi, ffi = pcall(require, "ffi")
local keep = {}
if has_ffi then
  ffi.cdef([[
    typedef struct heap_point { double x, y; struct heap_point *next; } heap_point;
  ]])
  for i = 1, 100 do keep[#keep + 1] = ffi.new("heap_point", i, -i) end
  keep.big = ffi.new("uint8_t[?]", 10 * 1024 * 1024)
  keep.ptr = ffi.cast("heap_point *", keep[1])
  keep.i64 = ffi.new("int64_t", 2 ^ 62)
  keep.u64 = ffi.new("uint64_t", 2 ^ 63)
  keep.gc = ffi.gc(ffi.new("int[4]"), function() error("finalizer ran") end)
  keep.anon = ffi.new("struct { int a; char b[3]; }")
  keep.cb = ffi.cast("int (*)(int)", function(a) return a + 1 end)
  H.snap("cdata", nil, "ok", { cdata_min = 100 })
  H.snap("cdata_collect", { collect = true }, "ok", { cdata_min = 100 })
end
print("ffi", has_ffi, #keep > 0 and #keep or 100)
