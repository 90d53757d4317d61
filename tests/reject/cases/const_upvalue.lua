-- reject: 5.4
-- an assignment to a <const> local from a nested function (an upvalue)
local k <const> = {}
local function set()
  k = nil
end
set()
