-- expect-status: 1
-- expect-row: local work 1
-- Every global cleared, then an uncaught error (lua.c's traceback needs
-- `debug`, which is gone too).
-- variant 5.1 jit: the chunk loaded by loadstring (5.1's load takes a reader)
local load = loadstring or load        -- (5.1: load takes a reader only)
local p = require "luainstr"
if not p.running() then assert(p.start()) end
load([[
local function work() end
work()
for k in pairs(_G) do _G[k] = nil end
error("after clearing")
]], "=exit work")()
