-- Uncaught error with a table value: "(error object is a table value)".
local function fail() error({code = 7}) end
print("about to fail")
fail()
