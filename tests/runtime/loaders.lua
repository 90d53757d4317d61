-- The loaders the profiler puts in place of stock ones (load, loadfile,
-- dofile, loadstring where the Lua has it, the Lua searcher of require)
-- behave as that Lua's own: the same arguments taken, the same results
-- and messages (5.1's load takes a reader only, 5.1 and 5.2 have
-- loadstring, 5.2 on take a mode and an environment, 5.1's environments
-- are setfenv's and its modules module()'s ...), and what they load is
-- instrumented.  Every scenario below writes a line of what it saw; the
-- same file run by the stock interpreter (`--stock`, a process of its own)
-- writes the stock lines, which must be the same; then the profile must
-- hold each loaded function with its calls.
-- variant 5.1 5.2 5.3 jit: each Lua's loaders, compared with that Lua's own
-- variant jit: also LuaJIT's own: 5.2's load and loadfile with 5.1's
--   environments (a table given is the function's, anything else is
--   ignored), a '#' line skipped in any chunk, a chunk in a string.buffer
--   (loaded by LuaJIT's own load: not instrumented)
local LUA = tonumber(_VERSION:match("%d+%.%d+"))
local dir = arg[0]:match("^(.*)/[^/]*$") or "."
local stock = arg[1] == "--stock"
local check
if not stock then
  package.path = dir .. "/lib/?.lua;" .. package.path
  check = require "check"
  check.start()
end

-- a scratch directory for files to load and modules to require
local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir " .. tmp))
local function write(name, text)
  local f = assert(io.open(tmp .. "/" .. name, "wb"))
  f:write(text)
  f:close()
  return tmp .. "/" .. name
end

local lines = {}
-- what a call gave: its values, a function called (with `...`), an error's
-- message with the scratch directory's name taken out
local function show(v)
  if type(v) == "string" then return (("%q"):format(v):gsub(tmp, "TMP")) end
  return type(v) == "table" and "table" or tostring(v)
end
local function saw(what, ok, ...)
  local out = {}
  for i = 1, select("#", ...) do out[i] = show((select(i, ...))) end
  lines[#lines + 1] = ("%s: %s %s"):format(what, ok and "ok" or "error",
                                            table.concat(out, ", "))
end
local function try(what, f, ...) saw(what, pcall(f, ...)) end
-- a loader's result: nil and a message, or a function, then called with
-- the arguments in args
local function loaded(what, args, f, msg)
  if type(f) ~= "function" then saw(what, true, f, msg) return end
  saw(what .. " (called)", pcall(f, unpack(args)))
end
-- the same, the loader called under pcall (a loader that raises)
local function tryload(what, args, loader, ...)
  local ok, f, msg = pcall(loader, ...)
  if not ok then saw(what, false, f) else loaded(what, args, f, msg) end
end
unpack = unpack or table.unpack

-- a reader function giving these pieces, then nil
local function reader(...)
  local pieces, i = {...}, 0
  return function() i = i + 1; return pieces[i] end
end

-- load from a string (5.2 on), from a reader, with a name, a mode, an env
tryload("load string", {10}, load,
  "local function via_load(x) return x * 2 end return via_load(...) + via_load(1)",
  "=string chunk")
loaded("load reader", {"r"}, load(reader("local function via_reader(x) ", "return x end ",
                                         "return via_reader(...)"), "=reader chunk"))
loaded("load syntax error", {}, load(reader("x = = 1"), "=bad chunk"))
tryload("load reader error", {}, load, function() return {} end)
tryload("load reader raises", {}, load, function() error("in reader") end)
loaded("load mode b on text", {}, load(reader("return 'text'"), "=moded", "b"))
do
  local env = {}
  local src = "local function in_env() y_loaded = 1 end in_env() return y_loaded"
  if LUA >= 5.2 then
    loaded("load env", {}, load(src, "=env chunk", "t", env))
    lines[#lines + 1] = "env.y_loaded " .. tostring(env.y_loaded)
  else
    -- 5.1: the environment is given with setfenv
    local f = loadstring(src, "=env chunk")
    setfenv(f, env)
    loaded("setfenv", {}, f)
    lines[#lines + 1] = "env.y_loaded " .. tostring(env.y_loaded)
  end
  lines[#lines + 1] = "global y_loaded " .. tostring(rawget(_G, "y_loaded"))
end

-- LuaJIT: 5.2's load and loadfile arguments, 5.1's environments
if rawget(_G, "jit") then
  local env = {}
  loaded("jit load env", {}, load("local function in_jit_env() w_loaded = 3 end " ..
    "in_jit_env() return w_loaded", "=jit env chunk", "t", env))
  lines[#lines + 1] = "env.w_loaded " .. tostring(env.w_loaded) ..
    ", global " .. tostring(rawget(_G, "w_loaded"))
  loaded("jit load env not a table", {}, load("v_loaded = 1 return v_loaded", "=jit env2", "t", 5))
  lines[#lines + 1] = "global v_loaded " .. tostring(rawget(_G, "v_loaded"))
  loaded("jit loadfile env", {}, loadfile(write("f5.lua", "u_loaded = 4 return u_loaded"), "t", env))
  lines[#lines + 1] = "env.u_loaded " .. tostring(env.u_loaded)
  loaded("jit loadstring # line", {}, loadstring("#!x\nlocal function via_hash() return 5 end " ..
    "return via_hash()", "=hash chunk"))
  local ok, buffer = pcall(require, "string.buffer")
  if ok then
    local b = buffer.new()
    b:put("return 6")
    loaded("jit load string.buffer", {}, load(b, "=buffer chunk"))
  end
end

-- loadstring: 5.1's, and 5.2's (the same function as load)
lines[#lines + 1] = "loadstring " .. type(rawget(_G, "loadstring"))
if rawget(_G, "loadstring") then
  loaded("loadstring", {1, 2, 3}, loadstring("local function via_loadstring(...) " ..
    "return select('#', ...) end return via_loadstring(...)", "=ls chunk"))
  loaded("loadstring default name", {}, loadstring("return nil + 1"))
  loaded("loadstring error", {}, loadstring("return +", "=ls bad"))
  -- (called by its global name: a function called by pcall has none, and
  -- 5.2 looks one up in package.loaded, where load is loadstring too)
  try("loadstring no string", function() local f = loadstring(); return f end)
end

-- loadfile, dofile: a file, a missing one, a '#' line, a byte order mark
local f1 = write("f1.lua", "#!/usr/bin/env lua\n" ..
  "local function via_file(a, b) return a, b, 3 end\nreturn via_file(...)\n")
loaded("loadfile", {1, 2}, loadfile(f1))
loaded("loadfile missing", {}, loadfile(tmp .. "/missing.lua"))
loaded("loadfile bom", {}, loadfile(write("bom.lua", "\239\187\191return 'bom'")))
if LUA >= 5.2 then
  local env = {}
  local f2 = write("f2.lua", "z_loaded = 2 return z_loaded")
  loaded("loadfile env", {}, loadfile(f2, "t", env))
  lines[#lines + 1] = "env.z_loaded " .. tostring(env.z_loaded)
  loaded("loadfile mode b", {}, loadfile(f1, "b"))
end
try("dofile", dofile, f1)
try("dofile error", dofile,
    write("f3.lua", "local function via_dofile() error('in dofile') end via_dofile()"))
try("dofile missing", dofile, tmp .. "/missing.lua")
do  -- a chunk run by dofile that yields (5.1: across a C call, refused)
  local fy = write("f4.lua", "local function via_dofile_yield() return coroutine.yield(1) + 1 end " ..
                             "return via_dofile_yield()")
  local co = coroutine.create(function() return dofile(fy) end)
  saw("dofile yields", coroutine.resume(co))
  saw("dofile resumed", coroutine.resume(co, 41))
end

-- require: a module, its arguments (the file name from 5.2 on), a module
-- not found (empty entries of the path: skipped before 5.4), an error in
-- one; module() on 5.1 and 5.2 (its compatibility)
package.path = tmp .. "/?.lua;;" .. tmp .. "/sub/?.lua;"
package.cpath = ""
write("mod_a.lua", "local function via_require(...) return select('#', ...), ... end " ..
                   "return {via_require(...)}")
do
  local ok, t = pcall(require, "mod_a")
  saw("require", ok, type(t) == "table" and table.concat(t, " ") or t)
end
try("require missing", require, "mod_missing")
write("mod_bad.lua", "return +")
try("require syntax error", require, "mod_bad")
if rawget(_G, "module") then
  write("mod_m.lua", "module(..., package.seeall)\nfunction via_module() return _NAME end\n")
  local ok, m = pcall(require, "mod_m")
  saw("module()", ok, type(m) == "table" and m.via_module())
end

-- string.dump of an instrumented function, loaded back: it runs as it is
do
  local f = loadstring or load
  local g = f("local function dumped(x) return x + 1 end return dumped", "=dump chunk")()
  local ok, d = pcall(string.dump, g)
  if ok then loaded("load dump", {41}, (loadstring or load)(d)) else saw("string.dump", ok, d) end
end

os.execute("rm -rf " .. tmp)

if stock then
  io.write(table.concat(lines, "\n"), "\n")
  os.exit(0)
end

-- the stock lines, from the stock interpreter
local p = io.popen(("%s %q --stock"):format(
  rawget(_G, "jit") and "luajit" or "lua" .. _VERSION:match("%d+%.%d+"), arg[0]))
local want = p:read("*a")
p:close()
local got = table.concat(lines, "\n") .. "\n"
if got ~= want then
  local w, g = {}, {}
  for l in want:gmatch("[^\n]*\n") do w[#w + 1] = l end
  for l in got:gmatch("[^\n]*\n") do g[#g + 1] = l end
  for i = 1, math.max(#w, #g) do
    if w[i] ~= g[i] then
      check.fail("line %d:\n  stock:    %s  profiled: %s", i, w[i] or "(none)\n",
                 g[i] or "(none)\n")
    end
  end
end

-- what was loaded is instrumented (under the C module: loaded after it)
check.snapshot()
if LUA >= 5.2 then check.fn("local via_load", {calls = 2}, "string chunk") end
check.fn("local via_reader", {calls = 1}, "reader chunk")
if rawget(_G, "loadstring") then check.fn("local via_loadstring", {calls = 1}, "ls chunk") end
check.fn("local in_env", {calls = 1}, "env chunk")
check.fn("local via_file", {calls = 2}, "f1.lua")
check.fn("local via_dofile", {calls = 1, errors = 1}, "f3.lua")
check.fn("local via_require", {calls = 1}, "mod_a.lua")
check.fn("local via_dofile_yield", {calls = 1, errors = LUA >= 5.2 and 0 or 1}, "f4.lua")
if rawget(_G, "module") then check.fn("via_module", {calls = 1}, "mod_m.lua") end
if rawget(_G, "jit") then
  check.fn("local in_jit_env", {calls = 1}, "jit env chunk")
  check.fn("local via_hash", {calls = 1}, "hash chunk")
end
check.done()
