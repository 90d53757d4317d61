-- Tail calls end the caller's frame: times and errors go where Lua's
-- frames are.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"

check.case("tailcalls")
check.snapshot()
check.fn("local g", {calls = 1, errors = 0, total = 10, self = 0})
check.fn("local f", {calls = 1, errors = 0, total = 5, self = 0})
-- g ran under h's frame (f's caller): h covers both
check.fn("local h", {calls = 1, errors = 0, total = 15, self = 0})
check.fn("local loop", {calls = 3, errors = 0, total = 15, self = 0, max = 5})
check.fn("obj:m", {calls = 1, errors = 0, total = 5})
check.fn("local tm", {calls = 1, errors = 0, total = 5})
check.fn("local tb", {calls = 1, errors = 0, total = 5})
check.fn("local tcaller", {calls = 1, errors = 0, total = 5})
check.fn("local thrower", {calls = 1, errors = 1, total = 5})
check.fn("local tdriver", {calls = 1, errors = 0, total = 10, self = 0})
check.fn("local tco", {calls = 1, errors = 0, total = 5})
check.fn("local ty", {calls = 1, errors = 0, total = 10})
check.fn("local tcodriver", {calls = 1, errors = 0, total = 35, self = 0})
check.fn("main chunk", {calls = 1, errors = 0, total = 90, self = 0})
check.done()
