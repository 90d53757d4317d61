-- Instrumented __gc finalizers: counted while profiling, ignored after
-- p.stop(), harmless when they run as the state closes (after the
-- profiler's own finalizer, too).
-- variant 5.1 jit: finalizers on newproxy userdata (5.1 finalizes no table)
-- variant 5.1 5.2 5.3 jit: an error in a finalizer is raised out of collectgarbage
--   (5.4: a warning), caught there
local p
-- made before the profiler: under the C module its finalizer runs at
-- lua_close after the profiler's (objects are finalized newest first)
local function early_fin()
  if p then
    -- must not crash; the answers do not matter here
    p.running(); p.clock(); p.dump("csv"); p.stop(); p.start(); p.stop()
  end
end
-- (Lua 5.1 finalizes userdata only)
local early = newproxy and newproxy(true) or setmetatable({}, {__gc = early_fin})
if newproxy then getmetatable(early).__gc = early_fin end
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"
p = check.p

local keep = check.case("finalizers")
check.snapshot()
check.fn("local fin", {calls = 3, errors = 0, total = 15})
check.fn("local fin_err", {calls = 1, errors = 1, total = 5})
-- stopped: finalizers run, nothing is counted
assert(p.stop())
keep.drop_more()
keep.collect()
check.snapshot()
check.fn("local fin", {calls = 3, errors = 0, total = 15})
assert(p.start())
keep.leave_for_close()       -- these run inside lua_close
check.done()
_G.early = early
