-- Functions for the entry probe checks of run.sh (it dumps the ones this
-- chunk returns); run as a program, it prints what they give.
local x, y = 10, 20
local function add(a) return a + x end
local function count(...) return select("#", ...) end
local function both(a) return add(a) + y end
local function empty() end
print(add(1), count(1, 2, 3), both(2), empty())
return { add = add, count = count, both = both, empty = empty }
