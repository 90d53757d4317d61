-- This file has LF CR line endings (one line break each for Lua).
local function f(x)
  if x > 2 then
    error("too big: " .. x)
  end
  return x * 2
end
print(f(1), f(2))
print(debug.getinfo(f, "S").linedefined, debug.getinfo(f, "S").lastlinedefined)
print(debug.getinfo(1, "l").currentline)
local s = [[
ab
cd]]
print(#s)
f(5)
