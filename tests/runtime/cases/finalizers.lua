-- Objects whose __gc metamethods are instrumented functions.
local check = ...
local clock = check.p.clock
local function spin(ms)
  local t = clock() + ms * 1e6
  while clock() < t do end check.over(clock() - t, ms)
end
local function fin() spin(5) end
-- an error in a finalizer becomes a warning (5.4) or an error of the
-- collection (see collect); its frame closes as an error
local function fin_err() spin(5); error("in __gc") end
local finalized = check.finalized

-- An error in a finalizer is raised out of the collection that ran it
-- before Lua 5.4 (5.2 and 5.3 as "error in __gc metamethod (...)"), and
-- that collection stops there: collect until a full cycle runs clean.
local function collect()
  if check.lua >= 5.4 then collectgarbage(); collectgarbage(); return end
  repeat local ok = pcall(collectgarbage) until ok
  collectgarbage()
end

-- Finalizers run where the collector calls them: from an automatic step
-- they may run nested inside any function (inside spin, even), which is
-- measured correctly but is no known answer.  Only explicit collections
-- here.
collectgarbage("stop")

for _ = 1, 3 do finalized(fin) end
finalized(fin_err)
collect()
collectgarbage("restart")

local M = {collect = collect}
function M.drop_more()
  for _ = 1, 2 do finalized(fin) end
end
-- kept alive until the state closes
function M.leave_for_close()
  _G.kept = {}
  for i = 1, 3 do _G.kept[i] = finalized(fin) end
  _G.kept_err = finalized(fin_err)
end
return M
