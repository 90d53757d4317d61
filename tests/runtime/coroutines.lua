-- Coroutines: create/resume/yield/wrap/close, yields from nested calls and
-- metamethods, errors inside coroutines, abandoned coroutines.
-- variant 5.1: sections 3 (yields from metamethods) and 10 (yields across pcall)
--   left out, 5.1 cannot yield across a C call; section 9 resumes no main thread
--   (5.1 has none as a coroutine)
-- variant jit: section 9 as on 5.1; LuaJIT yields across pcall and
--   metamethods (sections 3 and 10 run)
-- variant 5.1 5.2 5.3 jit: section 6 left out (coroutine.close is 5.4's)
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"

check.case("coroutines")
collectgarbage()
check.snapshot()
-- 1
check.fn("local cobody", {calls = 1, errors = 0, total = 20, self = 0})
check.fn("local resumer", {calls = 1, errors = 0, total = 50, self = 30})
-- 2
check.fn("local inner", {calls = 3, errors = 0, total = 15, self = 0, max = 5})
check.fn("local genbody", {calls = 1, errors = 0, total = 15, self = 0})
check.fn("local consumer", {calls = 1, errors = 0, total = 45, self = 0})
-- 3 (Lua 5.2 on, LuaJIT)
local total = 360
if check.yields_across_c then
  check.fn("__index", {calls = 1, errors = 0, total = 10, self = 0})
  check.fn("__call", {calls = 1, errors = 0, total = 10, self = 0})
  check.fn("local mmbody", {calls = 1, errors = 0, total = 20, self = 0})
  check.fn("local mmdriver", {calls = 1, errors = 0, total = 80, self = 0})
else
  total = total - 80
end
-- 4
check.fn("local cthrow", {calls = 1, errors = 1, total = 5})
check.fn("local cerr", {calls = 1, errors = 1, total = 10, self = 0})
check.fn("local cerr2", {calls = 1, errors = 1, total = 10, self = 0})
check.fn("local errdriver", {calls = 1, errors = 0, total = 40, self = 0})
check.fn("local wbody", {calls = 1, errors = 1, total = 5, self = 0})
check.fn("local wcaller", {calls = 1, errors = 1, total = 5, self = 0})
check.fn("local wdriver", {calls = 1, errors = 0, total = 5, self = 0})
-- 5: the run time before suspension counts, not an error
check.fn("local abody", {calls = 2, errors = 0, total = 20, self = 0})
check.fn("local abandon", {calls = 1, errors = 0, total = 20, self = 0})
-- 6 (Lua 5.4)
if check.lua >= 5.4 then
  check.fn("local cbody", {calls = 1, errors = 0, total = 10, self = 0})
  check.fn("local closer", {calls = 1, errors = 0, total = 30, self = 0})
else
  total = total - 30
end
-- 7
check.fn("local nest_inner", {calls = 1, errors = 0, total = 10, self = 0})
check.fn("local nest_outer", {calls = 1, errors = 0, total = 20, self = 0})
check.fn("local nestdriver", {calls = 1, errors = 0, total = 40, self = 0})
-- 8: two outermost activations, one per thread
check.fn("local shared", {calls = 2, errors = 0, total = 20, self = 0})
check.fn("local shareddriver", {calls = 1, errors = 0, total = 20, self = 0})
-- 9: no frame closed by a resume that failed without running anything
check.fn("local selfresume", {calls = 1, errors = 0, total = 5, self = 0})
check.fn("local normal_body", {calls = 1, errors = 0, total = 5, self = 0})
check.fn("local normal_outer", {calls = 1, errors = 0, total = 10, self = 0})
check.fn("local normaldriver", {calls = 1, errors = 0, total = 15, self = 0})
-- 10 (Lua 5.2 on, LuaJIT)
if check.yields_across_c then
  check.fn("local py_inner", {calls = 3, errors = 1, total = 30, self = 0})
  check.fn("local py_body", {calls = 1, errors = 0, total = 30, self = 0})
  check.fn("local pydriver", {calls = 1, errors = 0, total = 60, self = 0})
  total = total + 60
end
-- everything: 50 + 45 + 80 + 40 + 5 + 20 + 10 + 30 + 40 + 20 + 5 + 15 + 60
-- (less what this Lua does not run)
check.fn("main chunk", {calls = 1, errors = 0, total = total})
check.done()
