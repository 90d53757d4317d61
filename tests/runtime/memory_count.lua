-- Memory mode against collectgarbage("count"), with the collector stopped:
-- what each function allocates in a call (tables, closures, an array
-- grown) is what Lua counted for the call, within 1 % or 256 bytes, on its
-- first call and on its second.  Lua's count also holds blocks no function
-- made (LuaJIT's trace compiler): the profiler puts those outside user code,
-- so the count is the function's figure plus outside's.
-- variant jit: the JIT compiles the loops on their first call: its blocks
--   are outside user code there (and some), not the function's; on the
--   second call the loop whose tables never escape allocates nothing (the
--   JIT sank them), as the count agrees, while its copy under jit.off
--   allocates every table
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"
local p = check.p

assert(p.memory(true))
local runs = check.case("memory_count")
local N = runs.N

for _, r in ipairs(runs) do
  local want = r.counted
  local got = r.fn + r.outside
  check.truthy(("%s, call %d: %d bytes counted by Lua, %d by the profiler " ..
    "(%d the function's, %d outside user code)"):format(r.name, r.call, want, got,
    r.fn, r.outside), math.abs(got - want) <= math.max(256, want / 100))
  if not rawget(_G, "jit") then
    check.eq(r.name .. " outside user code, call " .. r.call, r.outside, 0)
  end
end

local by = {}
for _, r in ipairs(runs) do by[r.name .. r.call] = r end
-- every table, on a Lua that makes each
local function made_all(name, call)
  local r = by[name .. call]
  check.truthy(("%s, call %d: %d allocations, at least %d"):format(name, call,
    r.count, N), r.count >= N)
end
made_all("local f_escape", 1); made_all("local f_escape", 2)
made_all("local f_keep", 1)
made_all("local f_closure", 2)
made_all("local f_local_off", 1); made_all("local f_local_off", 2)
if rawget(_G, "jit") and jit.status() then
  -- the compiler's blocks, outside: it compiled f_local's loop on call 1
  local r = by["local f_local1"]
  check.truthy(("f_local, call 1: the JIT's %d bytes outside user code"):format(
    r.outside), r.outside > 0)
  r = by["local f_local2"]
  check.truthy(("f_local, call 2: %d allocations, fewer than %d (sunk)"):format(
    r.count, N / 10), r.count < N / 10)
else
  made_all("local f_local", 1); made_all("local f_local", 2)
end
check.done()
