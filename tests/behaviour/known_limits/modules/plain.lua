local M = {}
function M.hello() return "hello from plain" end
return M
