-- Lua 5.1 and later: an uncaught error object whose __tostring returns a
-- number: lua5.2 prints it; lua5.3 calls it "a table value", with a
-- traceback; lua5.1 "not a string".
local obj = setmetatable({}, {__tostring = function() return 42 end})
local function f() error(obj) end
f()
