-- Enumerating the main chunk's locals: the probe is a local of the main
-- chunk; main chunk activelines include line 1 (the prologue).
local x, y = 1, 2
local i = 1
while true do
  local name = debug.getlocal(1, i)
  if not name then break end
  print(i, name)
  i = i + 1
end
local lines = {}
for l in pairs(debug.getinfo(1, "L").activelines) do lines[#lines + 1] = l end
table.sort(lines)
print(table.concat(lines, " "))
