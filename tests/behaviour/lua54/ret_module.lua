-- Returns in the main chunk of required modules.
local M, where = require("retmod")
print(type(M), where)
print(M.greet("world"), select('#', M.pair()), M.bump(), M.bump())
print(require("retmod") == M, require("retmod").bump())

print(require("retnothing"), X_FROM_RETNOTHING)
print(require("retnothing"), X_FROM_RETNOTHING)

local f, w2 = require("retmulti")
print(type(f), w2, f(nil, nil))

print(require("retfalse"), package.loaded.retfalse)

-- dofile and loadfile return what the chunk returns
local a, b, c = dofile("retmulti.lua")
print(type(a), b, c)
local chunk = assert(loadfile("retmod.lua"))
local M2 = chunk()
print(M2 ~= M, M2.bump(), M.bump())

-- the main chunk returns too: lua ignores its values
do
  local t = {}
  if #t == 0 then
    print("leaving")
    return 1, 2, 3
  end
end
print("not reached")
