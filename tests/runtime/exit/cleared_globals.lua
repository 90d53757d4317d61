-- expect-status: 0
-- expect-row: local work 2
-- Every global cleared, the program ends normally: report still written.
-- variant 5.1 jit: the chunk loaded by loadstring (5.1's load takes a reader)
local load = loadstring or load        -- (5.1: load takes a reader only)
local p = require "luainstr"
if not p.running() then assert(p.start()) end
load([[
local function work() end
work()
local G = _G
for k in pairs(G) do G[k] = nil end
work()
]], "=exit work")()
