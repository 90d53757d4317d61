-- a module that fails while loading
local M = {}
function M.f() return 1 end
local cfg = nil
M.value = cfg.value   -- line 5
return M
