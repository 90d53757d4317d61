-- An error raised for the main level: the traceback says "in main chunk".
local function check(x)
  if not x then error("check failed", 2) end
  return x
end
print("before", check(1))
check(false)
print("never")
