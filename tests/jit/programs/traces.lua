-- traces.lua -- instrumented code keeps its traces: a hot loop calling a
-- small function, and fib's recursion, must each reach a completed trace
-- (jit.attach's "start" and "stop" events) that starts in them.  Prints
-- "trace NAME ok" or "trace NAME none", and "probe TYPE": the type of the
-- probe the functions got (under luaprofjit with the JIT on: cdata, the
-- FFI probe), or "probe none" unprofiled (tests/jit/known.sh).
local jit = require("jit")

local function small(x)
  return x + 1
end

local function hot(n)                       -- its loop: a root trace
  local s = 0
  for _ = 1, n do s = small(s) end
  return s
end

local function fib(n)                       -- up-recursion: a trace at fib
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local started, completed = {}, {}
local function on_trace(what, tr, func, pc)
  if what == "start" then started[tr] = func
  elseif what == "stop" and started[tr] then
    completed[started[tr]] = true
  end
end
jit.attach(on_trace, "trace")
local s = hot(100000) + fib(22)
jit.attach(on_trace)
print("checksum", s)
print("trace hot", completed[hot] and "ok" or "none")
print("trace fib", completed[fib] and "ok" or "none")
local probe = "none"
for i = 1, 10 do
  local name, v = debug.getupvalue(small, i)
  if name == nil then break end
  if name:match("^__LI%d*$") then probe = type(v) end
end
print("probe", probe)
