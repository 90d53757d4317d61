-- reject: 5.4
-- an attribute 5.4 does not know
local x <static> = 1
print(x)
