-- Zones around calls at every depth: a zone opened by p.zone_begin (from
-- 0 to 5 levels below the case), then a recursion from 0 to 40 levels deep
-- under it, then p.zone_end, 5 times over.  Every call's frame and every zone must be told apart whatever the
-- depth: no zone_end may find its zone gone, no frame may be closed as
-- unwound by an error.  (Lua 5.1 and LuaJIT name an activation by its
-- place in the thread's stack, a small number: an odd one was once taken
-- for a zone's identity, and the zone closed as a dead call.)
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"

local ends = check.case("zones_depth")
check.snapshot()
check.eq("zone_end calls that found their zone", ends, 30 * 41)
check.fn("zone depth", {calls = 30 * 41, errors = 0}, "zone")
check.fn("local zoned", {calls = 30 * 41, errors = 0})
-- rec(d) calls itself d times below the first call: 41 + (0 + ... + 40)
check.fn("local rec", {calls = 30 * (41 + 40 * 41 / 2), errors = 0})
-- below(k) calls itself k times: 6 + (0 + ... + 5)
check.fn("local below", {calls = 5 * (6 + 15), errors = 0})
check.fn("local leaf", {calls = 30 * 41, errors = 0})
check.done()
