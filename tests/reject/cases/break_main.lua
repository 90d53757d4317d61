-- reject: 5.1 5.2 5.3 5.4 jit
-- a break outside any loop, last in the main chunk
local t = {}
for i = 1, 3 do t[i] = i end
break
