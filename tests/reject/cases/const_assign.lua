-- reject: 5.4
-- an assignment to a <const> local
local limit <const> = 10
local n = 0
n, limit = 1,
  2
