-- Uncaught error with level 2 blames the caller's line.
local function validate(x)
  if type(x) ~= "number" then
    error("number expected, got " .. type(x), 2)
  end
  return x
end
print(validate(1))
local function use()
  local v = validate("str")   -- line 10
  return v
end
use()
