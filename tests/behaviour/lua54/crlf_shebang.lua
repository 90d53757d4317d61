#!/usr/bin/env lua
-- shebang line with CRLF endings
local function f(x)
  return x * 2
end
print(f(4), debug.getinfo(1, "l").currentline)
error("crlf shebang line 7")
