local function f() return "ends with return" end
print(f())
return