-- Weak tables of every mode ("k", "v", "kv"), ephemerons (a weak-keyed
-- table whose values hold their keys, and a chain of entries each key
-- reachable only through the previous entry's value), __mode values Lua
-- ignores or half-reads ("", "x", "vk", "kvkv", 42, a table, true), a
-- weak table that is its own key and value, and entries that only weak
-- references hold when the snapshot is taken (before the collection that
-- clears them).  What the collection leaves afterwards must be the same.
local H = require("heaphelp")

local strong = {}
local function obj(i) return { i = i } end
local modes = { "k", "v", "kv", "", "x", "vk", "kvkv", 42, {}, true }
local tables = {}
for m, mode in ipairs(modes) do
  local w = setmetatable({}, { __mode = mode })
  for i = 1, 100 do
    local k, v = obj(i), obj(-i)
    w[k] = v
    w[i] = obj(i * 1000)
    if i % 2 == 0 then strong[#strong + 1] = k; strong[#strong + 1] = v end
  end
  w[w] = w
  tables[m] = w
end

local eph = setmetatable({}, { __mode = "k" })
for i = 1, 100 do
  local k = obj(i)
  eph[k] = { back = k, i = i }
  if i % 3 == 0 then strong[#strong + 1] = k end
end
local chain = setmetatable({}, { __mode = "k" })
local root = obj(0)
local prev = root
for i = 1, 1000 do
  local nxt = obj(i)
  chain[prev] = nxt
  prev = nxt
end

H.snap("weak", nil, "ok", { weak_min = 100 })
H.snap("weak_collect", { collect = true }, "ok", { weak_min = 50 })
H.scrub()
collectgarbage()
collectgarbage()

local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end
for m, mode in ipairs(modes) do
  print(type(mode) == "string" and ("'" .. mode .. "'") or type(mode), count(tables[m]))
end
print("ephemerons", count(eph), "chain", count(chain))
local n, c = 0, root
while chain[c] do n = n + 1; c = chain[c] end
print("chain length", n)
