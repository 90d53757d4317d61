-- reject: 5.2 5.3 5.4 jit
-- a forward goto past a local declaration to a label that does not end
-- its block
do
  goto skip
  local x = 1
  ::skip::
  print(x)
end
