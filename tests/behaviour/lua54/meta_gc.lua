-- __gc finalizers (Lua functions) run at collectgarbage() and at exit.
local order = {}
local function tracked(name)
  return setmetatable({name = name}, {__gc = function(o)
    order[#order + 1] = o.name
  end})
end
local function make()
  local a = tracked("a")
  local b = tracked("b")
  local c = tracked("c")
end
make()
collectgarbage()
collectgarbage()
table.sort(order)
print("collected:", table.concat(order, " "))

-- resurrection and finalizer errors become warnings
local saved
local function resurrect()
  local r = setmetatable({}, {__gc = function(o) saved = o end})
end
resurrect()
collectgarbage()
print("resurrected:", saved ~= nil)

warn("@on")
local function bad_gc()
  setmetatable({}, {__gc = function() error("error in gc") end})
end
bad_gc()
collectgarbage()
print("after gc error")

-- weak tables
local weak = setmetatable({}, {__mode = "k"})
local function fill()
  local key = {}
  weak[key] = "value"
end
fill()
collectgarbage()
local n = 0
for _ in pairs(weak) do n = n + 1 end
print("weak entries:", n)

-- finalizers at exit run in reverse order of marking
local keep = {}
for i = 1, 3 do
  keep[i] = setmetatable({}, {__gc = function() print("exit finalizer " .. i) end})
end
print("end of main chunk")
