-- Functions that allocate, each called twice with the collector stopped;
-- returns, for every call, what collectgarbage("count") saw and what the
-- profiler charged to the function and outside user code meanwhile.
local check = ...
local p = check.p
local N = 20000

KEEP = {}
local function f_local() for i = 1, N do local t = {i, i} end end
local function f_local_off() for i = 1, N do local t = {i, i} end end
local function f_escape() for i = 1, N do LAST = {i, i} end end
local function f_keep() for i = 1, N do KEEP[#KEEP + 1] = {i} end end
local function f_closure() for i = 1, N do LAST = function() return i end end end
if rawget(_G, "jit") then jit.off(f_local_off) end

-- alloc_bytes and alloc_count of each function, and alloc_bytes outside
-- user code, as the reports give them now
local function figures()
  local rows = check.snapshot()
  local fig = {}
  for _, r in ipairs(rows) do
    if r.source:sub(-#check.source) == check.source then
      fig[r.name] = {tonumber(r.alloc_bytes), tonumber(r.alloc_count)}
    end
  end
  return fig
end
local function outside(json)
  return tonumber(json:match('"mem_outside": {"alloc_bytes": (%d+)'))
end

local runs = {N = N}
local order = {{"local f_local", f_local}, {"local f_local_off", f_local_off},
               {"local f_escape", f_escape}, {"local f_keep", f_keep},
               {"local f_closure", f_closure}}
collectgarbage("stop")
for call = 1, 2 do
  for _, e in ipairs(order) do
    local name, f = e[1], e[2]
    local before = figures()
    -- (the outside figure read right before and after: the JIT compiles
    -- the loops of figures too)
    local json0 = assert(p.dump("json"))
    local c0 = collectgarbage("count")
    f()
    local counted = (collectgarbage("count") - c0) * 1024
    local json1 = assert(p.dump("json"))
    local after = figures()
    local b, a = before[name] or {0, 0}, after[name]
    runs[#runs + 1] = {name = name, call = call, counted = counted,
                       fn = a[1] - b[1], count = a[2] - b[2],
                       outside = outside(json1) - outside(json0)}
  end
end
collectgarbage("restart")
return runs
