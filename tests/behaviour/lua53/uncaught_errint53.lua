-- Lua 5.2 and 5.3: an uncaught integer error value from a nested call
-- (5.3: no position; 5.2: the position, 42 a string to it).
local function level3() error(40 + 2) end
local function level2() level3() end
level2()
