-- Snapshots and the collector: inside __gc finalizers (tables' on 5.2 and
-- later, newproxy's on 5.1 and LuaJIT), with {collect = true} (followed
-- at once by the program's own collectgarbage(), so that the stock
-- interpreter collects at the same point), and with weak tables, whose
-- entries are counted after each collection.
local ok, p = pcall(require, "luainstr")
if not ok then p = nil end
local n = 0
local function snap(opts)
  if not p then return end
  n = n + 1
  local r, err = p.snapshot("gc" .. n .. ".heapsnapshot", opts)
  if not r then io.stderr:write("snapshot failed: ", tostring(err), "\n") end
end
-- (so that dead registers keep nothing alive: see tests/heap/hostile)
local scrub = (loadstring or load)("local " .. string.rep("a, ", 149) .. "a")

local finalized = {}
local function finalizable(i)
  local fin = function()
    finalized[#finalized + 1] = i
    snap()
  end
  if newproxy then
    local u = newproxy(true)
    getmetatable(u).__gc = fin
    return u
  end
  return setmetatable({}, { __gc = fin })
end

local keep = {}
for i = 1, 6 do
  local o = finalizable(i)
  if i % 2 == 0 then keep[#keep + 1] = o end
end
scrub()
snap({ collect = true })
collectgarbage()
table.sort(finalized)
print("finalized", table.concat(finalized, " "))

local weak = setmetatable({}, { __mode = "v" })
for i = 1, 10 do weak[i] = (i % 3 == 0) and keep or {} end
scrub()
snap()
local c1 = 0
for _ in pairs(weak) do c1 = c1 + 1 end
snap({ collect = true })
collectgarbage()
local c2 = 0
for _ in pairs(weak) do c2 = c2 + 1 end
print("weak before", c1, "after", c2)
keep = nil
scrub()
collectgarbage()
collectgarbage()
table.sort(finalized)
print("finalized", table.concat(finalized, " "))
