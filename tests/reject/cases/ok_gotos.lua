-- reject:
-- gotos every dialect with goto compiles (5.1 has none: a syntax error)
for i = 1, 3 do
  for j = 1, 3 do
    if j == 2 then goto continue end
    local x = i * j
    print(x)
    ::continue::
  end
end
do
  goto last                -- forward to a label that ends its block
  local y = 1
  print(y)
  ::last::
end
local n = 0
::top::                    -- backward, out of nested blocks
n = n + 1
if n < 3 then do goto top end end
while n < 5 do
  n = n + 1
  if n == 4 then break end
end
repeat
  local z = n
  if z > 0 then goto done end
  ::done::
until z > 0
local f = function() ::top:: return 1 end   -- a label per function
print(f())
