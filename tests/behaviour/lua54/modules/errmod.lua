-- a module whose functions raise errors
local M = {}
function M.raise(msg)
  error("errmod: " .. msg)
end
function M.raise2(msg)
  error("errmod2: " .. msg, 2)
end
function M.tail(msg) return M.raise(msg) end
return M
