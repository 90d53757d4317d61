-- reject:
-- labels that end their block (with `;` after them, but for LuaJIT;
-- labels in a run) count as outside the locals' scope
do
  goto a
  local x = 1
  print(x)
  ::a:: ::b::
end
if true then
  goto c
  local y
  print(y)
  ::c::
elseif false then
  goto d
  local z
  print(z)
  ::d::
else
  goto e
  local w
  print(w)
  ::e::
end
local function f()
  goto done
  local v
  print(v)
  ::done::
end
f()
goto eof
local u = 1
print(u)
::eof::
