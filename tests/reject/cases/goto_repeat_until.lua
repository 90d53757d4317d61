-- reject: 5.2 5.3 5.4 jit
-- a label before `until` does not end its block: the condition sees the
-- locals, so the goto jumps into their scope
repeat
  if math.random() > 2 then goto continue end
  local done = true
  ::continue::
until done
