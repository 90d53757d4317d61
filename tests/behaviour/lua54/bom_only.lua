local function f(x) return x - 1 end
print(f(10), debug.getinfo(1, "l").currentline)
error("bom only, line 3")
