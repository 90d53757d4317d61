local function skip(n)
  if n > 0 then goto done end
  local x = n * 2
  print(x)
  ::done::
end
local function retry(n)
  ::top::
  n = n - 1
  if n > 0 then goto top end
  return n
end
for i = 1, 3 do
  if i == 2 then goto continue end
  local y = i
  print(y)
  ::continue::
end
skip(1) retry(3)
::chunk_end:: ;
