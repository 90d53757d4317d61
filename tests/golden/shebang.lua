#!/usr/bin/env lua
local function f() return 1 end
print(f())
