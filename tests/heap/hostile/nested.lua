-- Snapshots from awkward places: an __index and a __newindex handler, a
-- table.sort comparator and a string.gsub callback (Lua called from C
-- called from Lua), an xpcall message handler while an error unwinds, an
-- iterator of a generic for, 150 calls deep, and a count hook
-- (debug.sethook: inside a hook, where Lua allows no other hook).
local H = require("heaphelp")
local snapped = {}
local function once(name, opts)
  if not snapped[name] then
    snapped[name] = true
    H.snap(name, opts, "ok")
  end
end

local proxy = setmetatable({}, {
  __index = function(t, k) once("in_index"); return k .. "!" end,
  __newindex = function(t, k, v) once("in_newindex", { collect = true }); rawset(t, k, v) end,
})
print(proxy.hello)
proxy.x = 1
print(rawget(proxy, "x"))

local arr = {}
for i = 1, 50 do arr[i] = (i * 37) % 101 end
table.sort(arr, function(a, b) once("in_sort"); return a < b end)
print(arr[1], arr[50])

local s = string.gsub("a-b-c", "%a", function(c) once("in_gsub"); return c:upper() end)
print(s)

local ok, msg = xpcall(function() error({ code = 7 }) end,
                       function(e) once("in_handler"); return e.code end)
print(ok, msg)

local function iter(t, i)
  i = i + 1
  if i == 2 then once("in_iterator") end
  if t[i] then return i, t[i] end
end
local sum = 0
for i, v in iter, { 10, 20, 30 }, 0 do sum = sum + i * v end
print(sum)

local function deep(n)
  if n == 0 then once("deep_150"); return 0 end
  return 1 + deep(n - 1)
end
print(deep(150))

local count = 0
debug.sethook(function()
  count = count + 1
  if count == 2 then once("in_hook") end
end, "", 1000)
local x = 0
for i = 1, 10000 do x = x + i % 7 end
debug.sethook()
print(x)
