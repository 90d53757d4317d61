-- The functions the profiler puts in place of stock ones (pcall, xpcall,
-- coroutine.*, load, loadfile, dofile, loadstring, the searchers of
-- require) show debug.getinfo and debug.getupvalue what the stock ones
-- show: the same nups, the same upvalue names and types.  A function
-- coroutine.wrap makes has one upvalue, its coroutine, as in stock Lua.
--
-- STOCK is what each Lua shows.  Under the C module this file runs first as
-- stock Lua (before require "luainstr"), which checks STOCK itself; then
-- again with the profiler attached.  Under luaprof it is attached already.
-- variant 5.1 5.2 5.3 jit: each Lua's library (5.1 and 5.2 with loadstring, 5.1 with
--   package.loaders, no coroutine.isyieldable before 5.3, no close before 5.4)
-- variant 5.1: upvalue counts only (5.1's debug library does not show C
--   functions' upvalues)
-- variant jit: 5.1's library with loadstring and package.loaders, and
--   coroutine.isyieldable; LuaJIT's debug library shows C functions'
--   upvalues (as 5.2's does); the profiler's pcall and xpcall are Lua
--   functions around LuaJIT's own, named "=[C]", with one upvalue (a
--   table): a C function there would refuse a yield and stop the JIT's
--   traces (runtime/boundary.c)
local LUA = tonumber(_VERSION:match("%d+%.%d+"))
local JIT = rawget(_G, "jit") ~= nil

-- name -> {what, nups, upvalue types in order}; C upvalues are named ""
local STOCK = {
  pcall = {"C", 0, {}}, xpcall = {"C", 0, {}},
  load = {"C", 0, {}}, loadfile = {"C", 0, {}}, dofile = {"C", 0, {}},
  ["coroutine.create"] = {"C", 0, {}}, ["coroutine.resume"] = {"C", 0, {}},
  ["coroutine.wrap"] = {"C", 0, {}}, ["coroutine.yield"] = {"C", 0, {}},
  ["coroutine.status"] = {"C", 0, {}}, ["coroutine.running"] = {"C", 0, {}},
  ["a coroutine.wrap function"] = {"C", 1, {"thread"}},
}
-- Lua 5.1's debug library does not show the upvalues of C functions
-- (debug.getupvalue returns nothing, debug.setupvalue does nothing): there
-- only their count (debug.getinfo) is compared, and the wrap function's
-- upvalue is not followed (wrap_upvalue).
local C_UPVALUES_SEEN = LUA >= 5.2 or JIT

-- the searchers of loadlib.c: the package table is upvalue 1 (5.2 on),
-- their environment on 5.1 (package.loaders), which getfenv does not show
-- (it gives the globals for any C function)
for i = 1, 4 do
  STOCK["package.searchers[" .. i .. "]"] =
    LUA >= 5.2 and {"C", 1, {"table"}} or {"C", 0, {}}
end
if LUA >= 5.3 or JIT then STOCK["coroutine.isyieldable"] = {"C", 0, {}} end
if LUA >= 5.4 then STOCK["coroutine.close"] = {"C", 0, {}} end
-- 5.1's loadstring, and 5.2's (LUA_COMPAT_LOADSTRING: Debian's lua5.2)
if LUA <= 5.2 and loadstring then STOCK.loadstring = {"C", 0, {}} end

-- what the profiler's pcall and xpcall show on LuaJIT (not stock's)
local PROFILED = {}
if JIT then
  PROFILED.pcall = {"Lua", 1, {"table"}}
  PROFILED.xpcall = {"Lua", 1, {"table"}}
end

local failures = {}
local function fail(fmt, ...)
  failures[#failures + 1] = fmt:format(...)
end

-- The functions under test, by name, as the program sees them now.
local function functions()
  local fs = {pcall = pcall, xpcall = xpcall, load = load,
              loadfile = loadfile, dofile = dofile, loadstring = loadstring,
              -- (5.1's wrap takes Lua functions only)
              ["a coroutine.wrap function"] = coroutine.wrap(function() end)}
  for k, f in pairs(coroutine) do fs["coroutine." .. k] = f end
  for i, f in ipairs(package.searchers or package.loaders) do
    fs["package.searchers[" .. i .. "]"] = f
  end
  return fs
end

-- Compare every function's getinfo/getupvalue figures with STOCK.
local function compare(when)
  local fs, names = functions(), {}
  for name in pairs(STOCK) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local f, want = fs[name], STOCK[name]
    if when ~= "stock" then want = PROFILED[name] or want end
    if type(f) ~= "function" then
      fail("%s: %s is a %s", when, name, type(f))
    else
      local info = debug.getinfo(f, "Su")
      if info.what ~= want[1] or info.nups ~= want[2] then
        fail("%s: %s is a %s function with %d upvalue(s), stock: %s, %d",
             when, name, info.what, info.nups, want[1], want[2])
      end
      for i = 1, C_UPVALUES_SEEN and want[2] + 1 or 0 do
        local n, v = debug.getupvalue(f, i)
        local wt = want[3][i]
        if wt == nil and n ~= nil then
          fail("%s: %s has an upvalue %d (%q, a %s)", when, name, i, n, type(v))
        elseif wt ~= nil and (n ~= "" or type(v) ~= wt) then
          fail("%s: %s upvalue %d is %q, a %s; stock: \"\", a %s",
               when, name, i, tostring(n), type(v), wt)
        end
      end
    end
  end
  for name in pairs(fs) do
    if not STOCK[name] then fail("%s: %s is not checked", when, name) end
  end
end

-- The upvalue of a coroutine.wrap function is the coroutine it drives.
local function wrap_upvalue(when)
  local inside
  local w = coroutine.wrap(function()
    inside = coroutine.running()
    coroutine.yield()
  end)
  local _, co = debug.getupvalue(w, 1)
  local function status(want, at)
    local got = type(co) == "thread" and coroutine.status(co) or type(co)
    if got ~= want then
      fail("%s: the wrap function's upvalue %s: %s, expected %s",
           when, at, got, want)
    end
  end
  status("suspended", "before the first call")
  w()
  if inside ~= co then
    fail("%s: the wrap function's upvalue is not the coroutine it runs", when)
  end
  status("suspended", "after a yield")
  w()
  status("dead", "after the body returned")
  -- each call resumes what upvalue 1 holds then, as stock Lua's does
  local ran = false
  co = coroutine.create(function() ran = true end)
  debug.setupvalue(w, 1, co)
  w()
  if not ran then fail("%s: a new upvalue 1 of the wrap function is not run", when) end
  status("dead", "after running the new upvalue")
end

-- (luaprof offers the module in package.preload: runtime/lapi.c open_step)
local attached = package.loaded.luainstr ~= nil or package.preload.luainstr ~= nil
compare(attached and "under luaprof" or "stock")
if C_UPVALUES_SEEN then wrap_upvalue(attached and "under luaprof" or "stock") end

package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"
check.start()
if not attached then
  compare("with the module")
  if C_UPVALUES_SEEN then wrap_upvalue("with the module") end
end
for _, msg in ipairs(failures) do check.fail("%s", msg) end
check.done()
