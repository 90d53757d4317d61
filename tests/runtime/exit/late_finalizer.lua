-- expect-status: 0
-- expect-row: local work 1
-- A finalizer that runs after the profiler's own (made before it) calls
-- the module; instrumented finalizers run after p.stop().
-- variant 5.1 jit: finalizers on newproxy userdata (5.1 finalizes no table)
local load = loadstring or load        -- (5.1: load takes a reader only)
local p
-- (Lua 5.1 finalizes userdata only: newproxy)
local function finalized(fn)
  if not newproxy then return setmetatable({}, {__gc = fn}) end
  local u = newproxy(true)
  getmetatable(u).__gc = fn
  return u
end
_G.finalized = finalized
local early = finalized(function()
  if p then p.running(); p.clock(); p.dump("csv"); p.start(); p.reset(); p.stop() end
end)
p = require "luainstr"
if not p.running() then assert(p.start()) end
load([[
local function work() end
work()
local p = require "luainstr"
_G.later = finalized(function() work() end)
p.stop()
]], "=exit work")()
_G.early = early
