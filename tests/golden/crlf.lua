local a = 1
local function f()
  return a
end
print(f())
