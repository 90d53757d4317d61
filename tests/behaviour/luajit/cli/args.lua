-- prints what a script sees of its command line
local t = {}
for i = -3, #arg + 1 do t[#t + 1] = i .. "=" .. tostring(arg[i]) end
print(table.concat(t, " "))
print("...", select("#", ...), ...)
