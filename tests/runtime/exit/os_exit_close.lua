-- expect-status: 0
-- expect-row: local work 1
-- os.exit(0, true): the state closes; instrumented finalizers run then.
-- luaprof writes its report at os.exit, before lua_close runs them, so
-- the report has the one call made before.  (Lua 5.1's os.exit has no
-- second argument, nor its tables finalizers: there it only exits.)
-- variant 5.1: os.exit only exits (no second argument)
local load = loadstring or load        -- (5.1: load takes a reader only)
local p = require "luainstr"
if not p.running() then assert(p.start()) end
load([[
local function work() end
local function fin() work() end
_G.keep = setmetatable({}, {__gc = fin})
work()
os.exit(0, true)
]], "=exit work")()
