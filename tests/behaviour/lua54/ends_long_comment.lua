local function f()
  return "ends in a long comment"
end
print(f())
--[[ long
comment ]]