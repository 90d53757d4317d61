-- The collector mid-cycle: snapshots after a few collector steps with
-- garbage about (incremental, and on 5.4 generational too), with the
-- collector stopped (it must still be stopped afterwards), from inside a
-- finalizer while a collection runs finalizers (5.2 on: a table's __gc;
-- 5.1 and LuaJIT: newproxy), with and without {collect = true}; and a
-- snapshot with {collect = true} whose collection runs a finalizer that
-- itself takes a snapshot (re-entry: a whole file or a clear error).
local H = require("heaphelp")
local live = {}
for i = 1, 20000 do live[i] = { i, "s" .. i } end
local function garbage(n)
  for i = 1, n do local _ = { i, { i } } end
end
local function steps(n)
  for _ = 1, n do collectgarbage("step") end
end

collectgarbage()
garbage(100000)
steps(3)
H.snap("midcycle", nil, "ok", { nodes_min = 20000 })
garbage(100000)
steps(2)
H.snap("midcycle_collect", { collect = true }, "ok", { nodes_min = 20000 })

if _VERSION == "Lua 5.4" then
  collectgarbage("generational")
  garbage(100000)
  steps(2)
  H.snap("generational", nil, "ok", { nodes_min = 20000 })
  garbage(50000)
  H.snap("generational_collect", { collect = true }, "ok", { nodes_min = 20000 })
  collectgarbage("incremental")
end

collectgarbage("stop")
garbage(10000)
H.snap("stopped", nil, "ok", { nodes_min = 20000 })
local okr, running = pcall(collectgarbage, "isrunning")   -- (5.1: no such option)
collectgarbage("restart")
print("stopped collector still stopped:", okr and tostring(not running) or "n/a")

local finalized = {}
local function with_gc(i, fn)
  if newproxy then
    local u = newproxy(true)
    getmetatable(u).__gc = function() fn(i) end
    return u
  end
  return setmetatable({}, { __gc = function() fn(i) end })
end
local function in_finalizer(i)
  finalized[#finalized + 1] = i
  H.snap("in_finalizer_" .. i, nil, "ok")
end
for i = 1, 3 do with_gc(i, in_finalizer) end
H.scrub()
collectgarbage()
collectgarbage()

local function reentrant(i)
  finalized[#finalized + 1] = i
  H.snap("reentrant_" .. i, nil, "any")
end
for i = 4, 5 do with_gc(i, reentrant) end
H.scrub()
H.snap("outer_collect", { collect = true }, "ok", { nodes_min = 20000 })
collectgarbage()
collectgarbage()
table.sort(finalized)
print("finalized", table.concat(finalized, " "))
print("live", #live, live[20000][2])
