-- Metatables that raise: userdata (newproxy on 5.1 and LuaJIT, else a
-- closed file handle given its own metatable with debug.setmetatable) and
-- tables whose every metamethod counts its call and raises (__index,
-- __newindex, __pairs, __ipairs, __len, __tostring, __call, __eq, __lt,
-- __le, __concat, __unm, __add, __gc, __close), whose __name is not a
-- string (a table, a number, a function) or a long string with NUL and
-- invalid UTF-8, whose __mode is garbage and whose __metatable hides
-- them; the same on the type metatables (nil, booleans, numbers,
-- functions, threads: debug.setmetatable) and on _G's.  A snapshot runs
-- no metamethod: the count printed at the end is 0, as without one.
-- (__gc raises only when the state closes, after the output: errors in
-- finalizers are then dropped, on every Lua.)
local H = require("heaphelp")
local calls = 0
local function raise(what)
  return function()
    calls = calls + 1
    error("metamethod " .. what .. " ran", 2)
  end
end
local events = { "__index", "__newindex", "__pairs", "__ipairs", "__len",
                 "__tostring", "__call", "__eq", "__lt", "__le", "__concat",
                 "__unm", "__add", "__gc", "__close", "__mode", "__name" }
local names = { {}, 42, print, "ud\0name\255" .. string.rep("\226\130\172", 4000) }

local function hostile_mt(i)
  local mt = {}
  for _, e in ipairs(events) do mt[e] = raise(e) end
  mt.__name = names[i % #names + 1]
  mt.__mode = ({ 7, "garbage", {}, false })[i % 4 + 1]
  mt.__metatable = "locked"
  return mt
end

local function udata(mt)
  if newproxy then
    local u = newproxy(true)
    local m = getmetatable(u)
    for k, v in pairs(mt) do m[k] = v end
    return u
  end
  local f = io.tmpfile()
  f:close()
  debug.setmetatable(f, mt)
  return f
end

local keep = {}
for i = 1, 40 do
  local mt = hostile_mt(i)
  keep[#keep + 1] = udata(mt)
  keep[#keep + 1] = setmetatable({ i = i }, mt)
end
-- metatables of metatables, all raising (debug.setmetatable: each is
-- protected by __metatable)
local chain = hostile_mt(0)
for i = 1, 10 do
  local mt = hostile_mt(i)
  debug.setmetatable(mt, chain)
  chain = mt
end
keep.chain = setmetatable({}, chain)

local tbc = nil
if _VERSION == "Lua 5.4" then
  tbc = load([[
    local mt, snap = ...
    local x <close> = setmetatable({}, mt)
    snap("inside_close_scope", nil, "ok")
    return 1
  ]])
end

local saved = {}
local function set_type_mt(v, mt)
  saved[#saved + 1] = { v, debug.getmetatable(v) }
  debug.setmetatable(v, mt)
end
set_type_mt(nil, hostile_mt(1))
set_type_mt(true, hostile_mt(2))
set_type_mt(0, hostile_mt(3))
set_type_mt(print, hostile_mt(4))
set_type_mt(coroutine.create(function() end), hostile_mt(5))
local gmt = getmetatable(_G)
setmetatable(_G, hostile_mt(6))
local string_mt = getmetatable("")
local old_name, old_gc, old_mode = string_mt.__name, string_mt.__gc, string_mt.__mode
string_mt.__name, string_mt.__gc, string_mt.__mode = {}, raise("string __gc"), 3

H.snap("raising", nil, "ok", { udata_min = 40 })
H.snap("raising_collect", { collect = true }, "ok", { udata_min = 40 })
if tbc then
  local mt = hostile_mt(7)
  mt.__gc = nil          -- (it is garbage at once: no finalizer to run later)
  local ok = pcall(tbc, mt, H.snap)
  keep.tbc_ok = ok
end

string_mt.__name, string_mt.__gc, string_mt.__mode = old_name, old_gc, old_mode
rawset(_G, "__unused", nil)
debug.setmetatable(_G, gmt)
for i = #saved, 1, -1 do debug.setmetatable(saved[i][1], saved[i][2]) end
print("metamethods run", calls, "objects", #keep, "tbc", keep.tbc_ok)
