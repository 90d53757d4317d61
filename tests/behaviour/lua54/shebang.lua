#!/usr/bin/env lua
local function f(x)
  return x + 1
end
print(f(1), debug.getinfo(1, "l").currentline)
print(debug.getinfo(f, "S").linedefined)
local t = nil
print(t.x)
