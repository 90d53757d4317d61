-- Lua 5.1 / LuaJIT: an uncaught error with a table value.
local function fail() error({code = 1}) end
print("before")
fail()
