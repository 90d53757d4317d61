-- Mutual recursion through tail calls, 1,000,000 deep.
local is_even, is_odd
function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
print(is_even(1000000), is_odd(1000000), is_even(999999))

-- three-way through globals and a table
T = {}
function A(n) if n == 0 then return "A" end return T.b(n - 1) end
function T.b(n) if n == 0 then return "B" end return T.c(n - 1) end
T.c = function(n) if n == 0 then return "C" end return A(n - 1) end
print(A(1000000), A(1000001), A(1000002))

-- a state machine
local states = {}
local log = {}
states.start = function(n) if n == 0 then return "end" end return states[n % 2 == 0 and "even" or "odd"](n - 1) end
states.even = function(n) if (n + 1) % 100000 == 0 then log[#log + 1] = n + 1 end return states.start(n) end
states.odd = function(n) return states.start(n) end
print(states.start(1000000), #log, table.concat(log, " "))
