-- Lua 5.2 and 5.3: an uncaught table without __tostring (5.3: "(error
-- object is a table value)" and a traceback; 5.2: "(no error message)").
local t = setmetatable({}, {__index = function() return "field" end})
local function thrower() error(t) end
print(t.anything)
thrower()
