local function f() return "no trailing newline" end
print(f())
print(debug.getinfo(1, "l").currentline)