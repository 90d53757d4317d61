-- expect-status: 1
-- expect-row: local thrower 1
-- An uncaught non-string error through instrumented frames.
-- variant 5.1 jit: the chunk loaded by loadstring (5.1's load takes a reader)
local load = loadstring or load        -- (5.1: load takes a reader only)
local p = require "luainstr"
if not p.running() then assert(p.start()) end
load([[
local function thrower() error(setmetatable({}, {__tostring = function() return "custom" end})) end
local function mid() thrower() end
mid()
]], "=exit work")()
