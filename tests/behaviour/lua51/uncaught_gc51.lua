-- Lua 5.1 and later: finalizers around an uncaught error.  lua5.1 collects
-- all garbage before printing the message, lua5.2 after it, lua5.3 not at
-- all (the state's close runs every finalizer).
collectgarbage("stop")
local function finalized(name)
  local function gc() print("finalized " .. name) end
  if newproxy then
    local u = newproxy(true)
    getmetatable(u).__gc = gc
    return u
  end
  return setmetatable({}, {__gc = gc})
end
do local garbage = finalized("garbage") end
kept = finalized("kept")
print("failing")
error("with finalizers pending")
