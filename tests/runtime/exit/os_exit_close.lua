-- expect-status: 0
-- expect-row: local work 1
-- expect-log 5.2 5.3 5.4 jit: finalized
-- os.exit(0, true): the state closes; instrumented finalizers run then.
-- luaprof writes its report at os.exit, before lua_close runs them, so
-- the report has the one call made before.  (Lua 5.1's os.exit has no
-- second argument: there it only exits, and nothing is finalized.)
-- variant 5.1: os.exit only exits (no second argument)
-- variant 5.1 jit: the finalizer on a newproxy userdata (no table is
--   finalized); LuaJIT's os.exit closes the state as 5.2's
local load = loadstring or load        -- (5.1: load takes a reader only)
local p = require "luainstr"
if not p.running() then assert(p.start()) end
load([[
local function work() end
local function fin() work(); io.stdout:write("finalized\n") end
if newproxy then
  _G.keep = newproxy(true)
  getmetatable(_G.keep).__gc = fin
else
  _G.keep = setmetatable({}, {__gc = fin})
end
work()
os.exit(0, true)
]], "=exit work")()
