-- reject: 5.4
-- 5.2, 5.3 and LuaJIT: a label may repeat one of an enclosing block (not
-- in 5.4); the goto inside takes the inner one
::l::
do
  goto l
  local x = 1
  print(x)
  ::l::
end
