# a BOM then a comment line
local function f(x)
  return x * 3
end
print(f(2), debug.getinfo(1, "l").currentline)
print(debug.getinfo(f, "S").linedefined)
error("bom error")
