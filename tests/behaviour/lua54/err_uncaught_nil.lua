-- Uncaught error(nil) and a runtime error inside a method, level 2.
local function check(v)
  if v == nil then error(nil) end
end
print(pcall(check, nil))
check(nil)
