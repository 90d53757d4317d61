-- Lua 5.1 and later: error() with no value, uncaught.  lua5.1 and lua5.2
-- print nothing (status 1); lua5.3 "(error object is a nil value)".
io.write("about to fail\n")
local function f() error() end
f()
