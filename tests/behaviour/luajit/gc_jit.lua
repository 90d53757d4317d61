-- LuaJIT: finalizers.  LuaJIT (a Lua 5.1) runs __gc only for userdata
-- (newproxy) and cdata (ffi.gc); a table's __gc is never called.  They
-- run at a full collection, from an error unwound by pcall, and at the
-- end of the program (lua_close), where their order is the reverse of
-- their making; a finalizer that raises an error (it comes out of the
-- collection that ran it), and one that calls instrumented code.
local ffi = require("ffi")
local function tracked(name)
  local u = newproxy(true)
  getmetatable(u).__gc = function() print("gc " .. name) end
  return u
end
setmetatable({}, {__gc = function() print("table __gc: never") end})

do local a = tracked("a") end
collectgarbage()
print("after first collect")

-- made inside a function that fails: collected after pcall returns
local function fails()
  local b = tracked("b")
  error("fails with b alive")
end
print(pcall(fails))
collectgarbage()
print("after second collect")

-- a finalizer that calls other (measured) functions
local function describe(n) return ("cdata finalized with %d"):format(n) end
do
  local c = ffi.gc(ffi.new("int[1]", 42), function(p) print(describe(p[0])) end)
end
collectgarbage()

-- a finalizer that raises: the error comes out of the collection
do
  local e = newproxy(true)
  getmetatable(e).__gc = function() error("error in __gc") end
end
print(pcall(collectgarbage))
print("after the failing finalizer")

-- these run when the state closes, newest first
keep1 = tracked("at close 1")
keep2 = tracked("at close 2")
keep3 = ffi.gc(ffi.new("int[1]", 3), function() print("gc cdata at close") end)
print("end of main chunk")
