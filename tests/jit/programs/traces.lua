-- traces.lua -- instrumented code keeps its traces: a hot loop calling a
-- small function, and fib's recursion, must each reach a completed trace
-- (jit.attach's "start" and "stop" events) that starts in them.  Prints
-- "trace NAME ok" or "trace NAME none", and "probe KIND": the probe the
-- functions got (under luaprofjit with the JIT on ffi, a closure over its
-- map's cdata; api, the C probe), or "probe none" unprofiled
-- (tests/jit/known.sh).
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

local function probe_of(f)                  -- under luaprofjit: ffi or api
  local function upvalue(fn, pattern)
    for i = 1, 20 do
      local name, v = debug.getupvalue(fn, i)
      if name == nil then return nil end
      if name:match(pattern) then return v end
    end
  end
  local p = upvalue(f, "^__LI%d*$")
  if p == nil then return "none" end
  return type(upvalue(p, "^map$")) == "cdata" and "ffi" or "api"
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
print("probe", probe_of(small))
