-- expect-status: 3
-- expect-row: local work 1
-- os.exit from nested instrumented frames, with a suspended coroutine.
-- variant 5.1 jit: the chunk loaded by loadstring (5.1's load takes a reader)
local load = loadstring or load        -- (5.1: load takes a reader only)
local p = require "luainstr"
if not p.running() then assert(p.start()) end
load([[
local function work() end
local function deep(n) if n == 0 then os.exit(3) end deep(n - 1) end
local co = coroutine.create(function() work(); coroutine.yield() end)
coroutine.resume(co)
deep(5)
]], "=exit work")()
