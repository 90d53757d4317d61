-- reject: 5.2 5.3 5.4 jit
-- a goto leaves nested blocks, then jumps past a local of the outer one
while true do
  if os.time() then
    do goto next end
  end
  local v = 2
  ::next::
  print(v)
end
