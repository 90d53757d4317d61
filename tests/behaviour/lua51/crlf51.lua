-- CRLF line endings
local function f(x)
  if x > 1 then
    error("big " .. x)
  end
  return x
end
print(f(1), debug.getinfo(1, "l").currentline)
f(2)
