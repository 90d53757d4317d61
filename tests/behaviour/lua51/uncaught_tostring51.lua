-- Lua 5.1 and later: an uncaught error object with __tostring.  lua5.1
-- says "(error object is not a string)"; lua5.2 and later print what
-- __tostring returns, without a traceback.
local Err = {}
Err.__index = Err
Err.__tostring = function(e) return "Err(" .. e.what .. ")" end
local function fail(what) error(setmetatable({what = what}, Err)) end
print("before")
fail("custom")
