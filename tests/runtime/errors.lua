-- Errors through instrumented frames, caught by pcall and xpcall.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"

check.case("errors")
check.snapshot()
-- thrower: 3 via mid (string, table, nil) + 1 in inner_catch
check.fn("local thrower", {calls = 4, errors = 4, total = 20, self = 0})
check.fn("local mid", {calls = 3, errors = 3, total = 30, self = 0})
check.fn("local catch_string", {calls = 1, errors = 0, total = 10, self = 0})
check.fn("local catch_table", {calls = 1, errors = 0, total = 10, self = 0})
check.fn("local catch_xpcall", {calls = 1, errors = 0, total = 10, self = 0})
check.fn("local handler", {calls = 1, errors = 0})
check.fn("local cerr", {calls = 1, errors = 1, total = 5})
check.fn("local calls_cerr", {calls = 1, errors = 1, total = 5, self = 0})
check.fn("local catch_builtin", {calls = 1, errors = 0, total = 5, self = 0})
check.fn("local inner_catch", {calls = 1, errors = 1, total = 5, self = 0})
check.fn("local catch_nested", {calls = 1, errors = 0, total = 5, self = 0})
check.fn("local after", {calls = 2, errors = 0, total = 20, self = 0, min = 10, max = 10})
check.fn("local outer", {calls = 1, errors = 0, total = 15, self = 0})
-- spin ran 3*2 (mid, thrower) + cerr + inner thrower + 2 after + outer
check.fn("local spin", {calls = 11, errors = 0, total = 65})
check.fn("main chunk", {calls = 1, errors = 0, total = 65, self = 0})
check.done()
