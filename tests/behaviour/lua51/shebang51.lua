#!/usr/bin/env lua
local function f(x)
  return x + 1
end
print(f(1), debug.getinfo(1, "l").currentline)
local t = nil
print(t.x)
