-- differs: offline
-- Without the runtime (offline, stock lua5.4) the probe is the prologue's
-- fallback, a Lua function defined on line 1: a line hook sees a line-1
-- event for every probe call (entry and exit of every function).  With the
-- runtime the probe is a C function and the events are the original's.
local function f(x)
  local y = x * 2
  return y
end
local seen = {}
debug.sethook(function(_, line) seen[#seen + 1] = line end, "l")
f(1)
f(2)
debug.sethook()
print(table.concat(seen, " "))
