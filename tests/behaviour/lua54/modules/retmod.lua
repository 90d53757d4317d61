-- a module returning a table
local M = {}
function M.greet(name) return "hello " .. name end
function M.pair() return 1, nil end
local count = 0
function M.bump() count = count + 1 return count end
return M
