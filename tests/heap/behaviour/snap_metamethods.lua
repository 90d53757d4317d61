-- Snapshots from inside metamethods (__index, __newindex, __call,
-- __tostring, __eq, __lt, __concat, __len; __close on 5.4) and from Lua
-- functions that C functions call (a table.sort comparator, a string.gsub
-- replacement, a __tostring run by tostring).
local ok, p = pcall(require, "luainstr")
if not ok then p = nil end
local n = 0
local function snap(opts)
  if not p then return end
  n = n + 1
  local r, err = p.snapshot("mm" .. n .. ".heapsnapshot", opts)
  if not r then io.stderr:write("snapshot failed: ", tostring(err), "\n") end
end

local V = {}
V.__index = function(t, k) snap(); return "missing " .. k end
V.__newindex = function(t, k, v) snap(); rawset(t, k, v * 2) end
V.__call = function(self, a) snap(); return a + 1 end
V.__tostring = function(self) snap(); return "V(" .. rawget(self, "v") .. ")" end
V.__eq = function(a, b) snap(); return rawget(a, "v") == rawget(b, "v") end
V.__lt = function(a, b) snap(); return rawget(a, "v") < rawget(b, "v") end
V.__concat = function(a, b) snap({ collect = true }); return tostring(a) .. "|" .. tostring(b) end
V.__len = function(self) snap(); return 99 end
local function v(x) return setmetatable({ v = x }, V) end

local a, b = v(1), v(2)
print(a.nothing, a(41), tostring(a), a == v(1), a < b, a .. b, #a)
a.w = 5
print(rawget(a, "w"))

local list = { 5, 3, 9, 1, 7 }
table.sort(list, function(x, y) snap(); return x > y end)
print(table.concat(list, ","))
print((string.gsub("abc", "%w", function(c) snap(); return c .. c end)))

if _VERSION == "Lua 5.4" then
  local f = load([[
    local snap = ...
    local closed = {}
    do
      local x <close> = setmetatable({}, { __close = function() snap(); closed[#closed + 1] = "x" end })
      local y <close> = setmetatable({}, { __close = function() snap(); closed[#closed + 1] = "y" end })
    end
    return table.concat(closed, ",")
  ]])
  print("closed", f(snap))
else
  print("closed", "y,x")
end
