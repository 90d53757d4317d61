-- Uncaught error whose value has __tostring.
local E = setmetatable({msg = "custom"}, {__tostring = function(e) return "E: " .. e.msg end})
local function deep(n) if n == 0 then error(E) end return deep(n - 1) end
print("start")
deep(5)
