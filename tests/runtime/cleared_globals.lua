-- Clearing every global does not break the probes nor the profile.
-- variant 5.1 jit: strings loaded by loadstring, the environment given by setfenv
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"

check.case("cleared_globals")
check.snapshot()
check.fn("local before", {calls = 1, total = 5})
check.fn("local during", {calls = 1, total = 5})
check.fn("local late", {calls = 2, total = 10}, "late chunk")
check.fn("local empty_env", {calls = 1, total = 5}, "empty env")
check.fn("local spin", {calls = 5, total = 25})
check.done()
