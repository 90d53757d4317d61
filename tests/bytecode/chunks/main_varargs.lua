-- `...` and `arg` at the main level (on 5.1 the offline form: rewrite.h).
local n = select("#", ...)
print("varargs", n, ...)
print("arg", type(arg), arg and arg[1])
local function count(...) return select("#", ...) end
print("count", count(...))
local t = {...}
print("last", t[n])
