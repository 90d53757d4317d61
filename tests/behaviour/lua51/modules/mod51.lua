local M = {name = "mod51"}
function M.pair() return 1, nil end
function M.fail(x) error("mod51 fails: " .. x) end
return M
