-- expect-status: 1
-- expect-row: local cthrow 1
-- An uncaught string error out of a wrapped coroutine.
-- variant 5.1 jit: the chunk loaded by loadstring (5.1's load takes a reader)
local load = loadstring or load        -- (5.1: load takes a reader only)
local p = require "luainstr"
if not p.running() then assert(p.start()) end
load([[
local function cthrow() error("from a coroutine") end
coroutine.wrap(function() cthrow() end)()
]], "=exit work")()
