-- Objects whose __gc metamethods are instrumented functions.
local check = ...
local clock = check.p.clock
local function spin(ms)
  local t = clock() + ms * 1e6
  while clock() < t do end check.over(clock() - t)
end
local function fin() spin(5) end
-- an error in a finalizer becomes a warning; its frame closes as an error
local function fin_err() spin(5); error("in __gc") end
local mt = {__gc = fin}

-- Finalizers run where the collector calls them: from an automatic step
-- they may run nested inside any function (inside spin, even), which is
-- measured correctly but is no known answer.  Only explicit collections
-- here.
collectgarbage("stop")

for _ = 1, 3 do setmetatable({}, mt) end
setmetatable({}, {__gc = fin_err})
collectgarbage(); collectgarbage()
collectgarbage("restart")

local M = {}
function M.drop_more()
  for _ = 1, 2 do setmetatable({}, mt) end
end
-- kept alive until the state closes
function M.leave_for_close()
  _G.kept = {}
  for i = 1, 3 do _G.kept[i] = setmetatable({}, mt) end
  _G.kept_err = setmetatable({}, {__gc = fin_err})
end
return M
