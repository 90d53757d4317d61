-- differs: offline module
-- (Under `lua5.4 -l luainstr.run` the script is loaded from inside
-- `require`, a few C levels deeper than lua.c loads it: the original
-- itself no longer compiles there.)
-- 194 nested parentheses inside the arguments of a call that is the last
-- of several returned values: the most lua5.4 compiles when running a
-- file; passing those values through P(0, ...) needs one more C level.
-- (A return of one value is no longer wrapped: `return (((x))), P()`.)
local function g(...) return ... end
local function f(x) return 1, g(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((x))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))) end
print(f(1))
