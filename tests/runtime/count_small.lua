-- Counted, not timed (option "count_small", docs/measuring.md): a small
-- function with no call or loop is counted exactly, in the report's
-- "counted" column, with no time of its own; its caller's time is its
-- spin, the count probes' cost taken out; functions that call or loop are
-- timed as ever.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"

check.truthy("option count_small on", check.p.option("count_small", "on"))
check.case("count_small")
check.snapshot()
local inc = check.fn("local inc", {calls = 500 + 7 + 1})
check.eq("local inc counted", inc.counted, "1")
check.eq("local inc total", inc.total_ns, 0)
check.eq("local inc self", inc.self_ns, 0)
local get = check.fn("V:get", {calls = 500})
check.eq("V:get counted", get.counted, "1")
-- errors inside a counted function are not seen (it has no exit probe)
local field = check.fn("local field", {calls = 3, errors = 0})
check.eq("local field counted", field.counted, "1")
local work = check.fn("local work", {calls = 1, errors = 0, total = 10, self = 0})
check.eq("local work timed", work.counted, "0")
check.eq("local loop timed", check.fn("local loop", {calls = 1}).counted, "0")
check.done()
