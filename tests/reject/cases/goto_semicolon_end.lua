-- reject: jit
-- LuaJIT counts a label followed by `;` as not ending its block (5.2-5.4
-- skip the `;`, so there the label is last and the goto is fine)
do
  goto out
  local x = 1
  print(x)
  ::out:: ;
end
