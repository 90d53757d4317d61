-- The main chunk returns from the middle with `do return end`.
local function f() return "f called" end
print(f())
local x = 1
if x == 1 then
  print("returning early")
  do return end
end
print("not reached")
error("not reached either")
