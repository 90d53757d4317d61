-- reject:
-- <const> and <close> read, shadowed, and fields of them assigned (5.4;
-- the other dialects have no attributes: a syntax error)
local t <const> = {}
t.x = 1
t[1] = 2
local function g()
  local t = 5              -- a new local, not the <const>
  t = 6
  return t
end
function t.m() end         -- a field, not the variable
do
  local c <close> = nil
  local c = 1              -- shadows it
  c = 2
end
print(t.x, g())
