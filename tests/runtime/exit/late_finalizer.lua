-- expect-status: 0
-- expect-row: local work 1
-- A finalizer that runs after the profiler's own (made before it) calls
-- the module; instrumented finalizers run after p.stop().
local p
local early = setmetatable({}, {__gc = function()
  if p then p.running(); p.clock(); p.dump("csv"); p.start(); p.reset(); p.stop() end
end})
p = require "luainstr"
if not p.running() then assert(p.start()) end
load([[
local function work() end
work()
local p = require "luainstr"
_G.later = setmetatable({}, {__gc = function() work() end})
p.stop()
]], "=exit work")()
_G.early = early
