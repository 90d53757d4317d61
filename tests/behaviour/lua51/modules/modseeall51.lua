-- module() with package.seeall (Lua 5.1; 5.2's compatibility module()).
module(..., package.seeall)
local counter = 0
function bump()
  counter = counter + 1
  return counter
end
function names() return _NAME, _PACKAGE == "", type(_M) end
function fail() error("failed in " .. _NAME) end
function sees_globals() return type(print), type(string.format) end
