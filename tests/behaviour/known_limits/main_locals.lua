-- differs: offline
-- Enumerating the main chunk's locals: offline (the prologue's form) the
-- probe is a local of the main chunk, the first one `debug.getlocal(1, i)`
-- lists.  With the runtime the loader hands the probe over as an upvalue
-- and the locals are the original's.
local x, y = 1, 2
local i = 1
while true do
  local name = debug.getlocal(1, i)
  if not name then break end
  print(i, name)
  i = i + 1
end
