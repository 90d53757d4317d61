-- Recursion: a function's inclusive time counts once per outermost
-- activation.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"

local seen = check.case("recursion")
check.snapshot()
check.fn("local fact", {calls = 5, errors = 0, total = 25, self = 0, max = 25, min = 5})
check.fn("local fact2", {calls = 5, errors = 0, total = 25, self = 25})
-- even(3) -> odd(2) -> even(1) -> odd(0)
check.fn("even", {calls = 2, errors = 0, total = 20, self = 0})
check.fn("odd", {calls = 2, errors = 0, total = 15, self = 0})
-- self about nothing: at most what the pcall took outside the spins (the
-- case measured it; under a sanitizer on a busy machine the unwinding alone
-- took 0.6 ms), so a spin counted as dive's would still fail it
local dive = check.fn("local dive", {calls = 4, errors = 4, total = 20})
check.near_ms("local dive self", dive.self_ns, 0, seen.dive_outside_ns)
-- cofact(3) [main] -> cofact(2) [main] -> cofact(1) [coroutine]: 15 ms of
-- wall time.  "Outermost" follows the chain of resuming threads, so the
-- activation inside the coroutine is nested in the ones of main: 15, not 20.
check.fn("local cofact", {calls = 3, errors = 0, total = 15, self = 0})
check.done()
