-- Snapshots at the top level, between statements that compute, under
-- luaprof (require "luainstr" works there; under the stock interpreter
-- nothing is taken).  The program prints only what it computes, and
-- checks what a snapshot must not change: a table's traversal order and
-- length, a weak table's entries, metatables, the collector's mode.
local ok, p = pcall(require, "luainstr")
if not ok then p = nil end
local n = 0
local function snap(opts)
  if not p then return end
  n = n + 1
  local r, err = p.snapshot("top" .. n .. ".heapsnapshot", opts)
  if not r then io.stderr:write("snapshot failed: ", tostring(err), "\n") end
end

local function order(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = tostring(k) end
  return table.concat(ks, ",")
end

snap()
local t = {}
for i = 1, 100 do t[i] = i * i end
for i = 1, 50 do t["k" .. i] = i end
local before = order(t)
snap()
print("same order", order(t) == before, "length", #t)

local weak = setmetatable({}, { __mode = "k" })
local held = {}
for i = 1, 20 do
  local k = {}
  weak[k] = i
  if i % 2 == 0 then held[#held + 1] = k end
end
local count = 0
for _ in pairs(weak) do count = count + 1 end
snap()
local count2 = 0
for _ in pairs(weak) do count2 = count2 + 1 end
print("weak entries unchanged", count == count2)

local mt = { __index = function(_, k) return k .. "?" end }
local obj = setmetatable({}, mt)
snap()
print(getmetatable(obj) == mt, obj.x, getmetatable("").__index == string)

local s = 0
for i = 1, 1000 do s = s + i % 13 end
snap()
print("sum", s)

local words = {}
for w in string.gmatch("the quick brown fox jumps over the lazy dog", "%a+") do
  words[#words + 1] = w
end
table.sort(words)
snap()
print(table.concat(words, " "))
local okr, running = pcall(collectgarbage, "isrunning")
print("collector running", okr and running or "n/a")
