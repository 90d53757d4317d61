-- The Lua-level loaders under luaprof must give what lua5.4's give: results,
-- messages, argument errors.  run_tests.sh runs this under both and
-- compares the output.  Needs the files that run_tests.sh creates next to
-- it (see there): nul.lua, bom.lua, shebang.lua, bad.lua, yields.lua,
-- mod_ok.lua, mod_bad.lua, big.lua.
local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do t[i] = tostring(t[i]) end
  print(table.concat(t, " | ", 1, t.n))
end
local function try(f, ...)
  if _VERSION == "Lua 5.2" then
    -- (5.2 names a function pcall calls by searching _G, whose order is
    -- seeded per run: 'load', '_G.load' or 'loadstring'; called from Lua
    -- it is the local 'f')
    show(pcall(function(...)
      local r = table.pack(f(...))
      return table.unpack(r, 1, r.n)
    end, ...))
  else
    show(pcall(f, ...))
  end
end

-- load: strings
show(load("return 1, 2")())
show(load("return ...", "=name")(7, 8))
show(load("x = "))
show(load("x = ", "chunk"))
show(load("x = ", "=chunk"))
show(load("return 1", "c", "b"))
show(load(string.dump(function() return 42 end), "d", "t"))
-- (a dumped instrumented function cannot run again: docs/limits.md)
show(type(load(string.dump(function() return 42 end), "d", "b")))
show(load(12))
show(load("return x", "env", "t", { x = "from env" })())
local f = load("return x", "env", "t", nil)
try(f)
show(load("return _ENV", "e", "bt", 5)())
-- load: readers
local function reader(pieces)
  local i = 0
  return function() i = i + 1; return pieces[i] end
end
show(load(reader({ "return ", "1 ", "+ 2" }))())
show(load(reader({ "return ", 5, " + 2" }))())
show(load(reader({ "return 1", "", "error()" }))())
show(load(reader({ "return ", {} })))
show(load(function() error("reader failed") end))
show(type(select(2, load(function() error({}) end))))
show(load(function() error() end))
show(load(reader({ "x =" })))
show(load(reader({ "x =" }), "=rd"))
show(load(reader({ "return x" }), "=rd", "t", { x = 3 })())
-- load: argument errors
try(load)
try(load, nil)
try(load, {})
try(load, {}, {})
try(load, "x", {})
try(load, "x", "n", {})
try(load, "x", "n", "q")
show(pcall(function() return load() end))
show(pcall(function() local l = load; return l(true) end))
-- loadfile
show(loadfile("no_such_file.lua"))
show(loadfile("."))
show(loadfile("bad.lua"))
show(loadfile("nul.lua")())
show(loadfile("bom.lua")())
show(loadfile("shebang.lua")())
show(loadfile("big.lua")())
show(loadfile("nul.lua", "b"))
show(loadfile("env.lua", "t", { y = "env y" })())
try(loadfile("env.lua", "t", nil))
try(loadfile, {})
try(loadfile, "x", {})
-- dofile
show(dofile("nul.lua"))
try(dofile, "no_such_file.lua")
try(dofile, "bad.lua")
try(dofile, {})
show(pcall(dofile, "raises.lua"))
local co = coroutine.wrap(function() return dofile("yields.lua") end)
show(co())
show(co("resumed"))
-- require and the searcher
local m, mfile = require("mod_ok")
show(m.name, m.file, mfile, package.loaded.mod_ok == m)
try(require, "mod_bad")
try(require, "no_such_module")
try(require, "dir.no_such")
show(select(2, package.searchers[2]("mod_ok")))
show(package.searchers[2]("no_such_module"))
try(package.searchers[2], "mod_bad")
local oldpath = package.path
package.path = "./?.lua;;./?/init.lua;"
try(require, "nope")
package.path = ""
show(package.searchers[2]("nope"))
package.path = 42
show(package.searchers[2]("nope"))
package.path = nil
try(require, "nope2")
package.path = oldpath
