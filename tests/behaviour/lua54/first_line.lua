local function f() return debug.getinfo(1, "l").currentline end print("line one", f()) local function bad() error("error on line one") end
print(debug.getinfo(f, "S").linedefined, pcall(bad))
local ok, e = pcall(function() local x = nil; return x.y end) print(e)
bad()
