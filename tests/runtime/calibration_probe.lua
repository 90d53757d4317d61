-- The probe of calibration's scratch profiler is an ordinary Lua value
-- while the first start measures it: a call hook can take it (the loop's
-- upvalue P, in the probed function that first holds it) and keep it.  Called after the start, it must measure
-- nothing and pass its values through, as the probe of a closed profiler
-- does (it once ran on the scratch profiler freed at the end of the
-- calibration: a segmentation fault).  Under luaprof the calibration ran
-- before this script: nothing to catch, the rest still runs.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"
local p = check.p

local probe, loop
debug.sethook(function()
  local info = debug.getinfo(2, "fS")
  if probe == nil and info.source == "=luainstr calibration" then
    loop = info.func
    for i = 1, 10 do
      local name, v = debug.getupvalue(info.func, i)
      if name == nil then break end
      if name == "P" then probe = v end
    end
  end
end, "c")
check.start()
debug.sethook()

if check.under_luaprof then
  check.truthy("no calibration under luaprof's running profiler", probe == nil)
else
  check.truthy("the hook caught calibration's probe", type(probe) == "function")
  check.truthy("the hook caught calibration's probed function", type(loop) == "function")
end

if probe then
  for _ = 1, 1000 do probe(2); probe(1); probe(3); probe() end
  check.eq("values through an exit", select("#", probe(0, "a", nil, "c")), 3)
  local a, b, c = probe(0, "a", nil, "c")
  check.eq("exit value 1", a, "a")
  check.eq("exit value 2", b, nil)
  check.eq("exit value 3", c, "c")
  check.eq("an entry returns nothing", select("#", probe(1)), 0)
  -- the probed function itself, its probes now those of no profiler
  check.eq("the calibration's function, called after", loop(1), 2)
end
-- nothing of the scratch profiler reaches the real one
for _, r in ipairs(check.snapshot()) do
  check.truthy("no row of the scratch profiler's: " .. r.source,
               r.source ~= "calibration" and r.source ~= "luainstr calibration")
end
check.done()
