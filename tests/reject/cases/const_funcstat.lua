-- reject: 5.4
-- `function name()` assigns to name, here a <const> (seen after its body)
local handler <const> = print
function handler(x)
  return x
end
