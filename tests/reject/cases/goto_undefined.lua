-- reject: 5.2 5.3 5.4 jit
-- a goto with no label of its name anywhere, found when the chunk ends
local n = 0
goto
  finish
n = n + 1
print(n)
