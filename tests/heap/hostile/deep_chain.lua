-- Depth: a chain of 10^6 tables (t.next), then of 10^6 closures (each
-- holding the previous one as an upvalue), then of 10^5 tables linked
-- through keys (t[prev] = true) and of 10^4 metatables; each snapshot must
-- be whole (the walk is iterative: no C recursion).  (H.scaled: the
-- first two 2*10^5 deep but on the main Lua, still far past what a C
-- stack of 8 MB could recurse.)
local H = require("heaphelp")
local N = H.scaled(1000000)

local head = nil
for i = 1, N do head = { next = head, i = i } end
H.snap("table_chain", nil, "ok", { nodes_min = N })
local n = 0
while head do n = n + 1; head = head.next end
print("tables", n)
collectgarbage()

local f = function() return nil end
for i = 1, N do
  local prev = f
  f = function() return prev end
end
H.snap("closure_chain", nil, "ok", { nodes_min = N })
n = 0
while f do n = n + 1; f = f() end
print("closures", n)
collectgarbage()

local k = {}
for i = 1, 100000 do k = { [k] = true } end
local m = {}
for i = 1, 10000 do m = setmetatable({}, m) end
H.snap("key_chain", nil, "ok", { nodes_min = 110000 })
n = 0
while true do
  local nk = next(k)
  if nk == nil then break end
  n = n + 1
  k = nk
end
local depth = 0
while m do depth = depth + 1; m = getmetatable(m) end
print("keys", n, "metatables", depth)
