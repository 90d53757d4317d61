-- Snapshots from coroutines whose stacks are nearly full: p.snapshot
-- called straight from a new coroutine's body with 1 to 40 locals below
-- it, with garbage about that has finalizers.  A snapshot allocates
-- nothing in the Lua heap and runs no collector step, so no finalizer may
-- run inside the call (the count printed is 0, as under the stock
-- interpreter, where no snapshot is taken) and the heap's size is the
-- same after the call as before, but for the walk's own call record and
-- stack room (run.sh reads both from the log).  Calling any C function
-- where the stack has no room for it grows the stack, and Lua takes a
-- collector step there, before the function runs: a C call at the same
-- depth just before (select; every call below is made from the same
-- register, the locals all declared first) makes that room, so what is
-- measured, from the count before to the count after, is the snapshot's
-- own doing.
local H = require("heaphelp")
local load = loadstring or load
local flag = { on = false, ran = 0 }
local function garbage()
  local fin = function() if flag.on then flag.ran = flag.ran + 1 end end
  for _ = 1, 300 do
    if newproxy then getmetatable(newproxy(true)).__gc = fin
    else setmetatable({}, { __gc = fin }) end
  end
end

local taken = 0
for n = 1, 40 do
  local body = assert(load("local p, path, flag = ... local " .. string.rep("x, ", n) .. [[y = 1
    local g0, r, msg, g1
    select("#")  -- (a C call at the same depth as every call below, first)
    g0 = collectgarbage("count")
    flag.on = true
    r, msg = p.snapshot(path)
    flag.on = false
    g1 = collectgarbage("count")
    return r, msg, g0, g1]]))
  garbage()
  if H.p then
    local path = H.path("stack" .. n)
    local co = coroutine.create(body)
    local _, r, msg, g0, g1 = coroutine.resume(co, H.p, path, flag)
    H.log(path, r and "ok" or "err", "0", "ok", g0, g1, msg)
    taken = taken + 1
  end
end
print("finalizers run inside snapshots", flag.ran)
