-- differs: offline
-- (With the runtime the loader hands the probe over itself: no difference.)
-- Programs that change the string metatable before requiring modules.
local smt = getmetatable("")
local original_index = smt.__index
-- strict string indexing: unknown keys are errors
smt.__index = function(s, k)
  local v = original_index[k]
  if v == nil then error("no string method '" .. tostring(k) .. "'", 2) end
  return v
end
print(("abc"):upper())
print(pcall(function() return ("abc"):nomethod() end))
local plain = require("plain")
print(plain.hello())
-- string indexing by number returns characters
smt.__index = function(s, k)
  if type(k) == "number" then return original_index.sub(s, k, k) end
  return original_index[k]
end
local s = "hello"
print(s[1], s[5], s:len())
-- no __index at all
smt.__index = nil
print(pcall(function() return ("x"):upper() end))
print(string.upper("still works"))
local co = require("chain_b")
print(co.run(7))
smt.__index = original_index
print(("restored"):upper())
-- a chunk loaded first, then run while the string metatable is gone (a
-- sandbox, as penlight's pretty.read does)
local chunk = load("return {n = 1, s = 'x'}", "tbl", "t", {})
debug.setmetatable("", nil)
local ok, t = pcall(chunk)
debug.setmetatable("", smt)
print(ok, type(t), t and t.n, t and t.s)
print(("back"):upper())
