local say = print; say("-- jit_loader.lua: the loader's form on LuaJIT, seen from a program")
-- (jit_loader.sh runs it under luajit and under luaprofjit, with the JIT on
-- and off: the outputs must be the same).  Every chunk loaded here is
-- instrumented under luaprofjit, this file too: what a program can see of
-- its main functions must be what luajit shows.
local function show(...)
  local t = { ... }
  for i = 1, select("#", ...) do t[i] = tostring(t[i]) end
  say(table.concat(t, " | "))
end

-- the main function as debug.getinfo sees it
local function info(f, what)
  local i = debug.getinfo(f, "Sl")
  show(what, i.what, i.linedefined, i.lastlinedefined, i.source, i.short_src,
       i.currentline)
end
info(2, "this file")
local src = "local a, b = ...\n" ..
            "local i = debug.getinfo(1, 'Sl')\n" ..
            "return i.what, i.linedefined, i.lastlinedefined, i.currentline, a, b, select('#', ...)\n" ..
            "\n\n-- a comment on the last line"
show("varargs", loadstring(src, "=chunk")(1, 2, 3))
show("getinfo of a loaded main", pcall(info, loadstring(src, "@some/file.lua"), "loaded"))

-- error positions, in the main function and in functions inside it
local function err(s, name)
  local f, e = loadstring(s, name)
  if not f then return show("compile", e) end
  show("error", pcall(f))
  -- the chunk's frames: the traceback up to xpcall's (what is below is
  -- this file's, and under luaprofjit xpcall is a wrapper: two lines)
  show("traceback", select(2, xpcall(f, function(m)
    local tb = debug.traceback(m, 1)
    return tb:sub(1, (tb:find("\n\t%[C%]: in function 'xpcall'") or 0) - 1)
  end)))
end
err("local x\n\nreturn x.y", "=main error")
err("local function f(t)\n  return t.k\nend\nreturn f(nil)\n", "@nested.lua")
err("error('raised', 1)", "=level 1")
err("local t = setmetatable({}, {__index = function() error('in meta') end})\nreturn t.x", "=meta")
err("return 1 +", "=syntax")

-- string.dump of main functions and of functions inside them, loaded back
local chunk = loadstring("local n = 0\n" ..
                         "local function count(x) n = n + x return n end\n" ..
                         "return count, function(...) return select('#', ...), ... end\n", "=dumped")
local count, va = chunk()
for _, strip in ipairs({ false, true }) do
  local m = loadstring(string.dump(chunk, strip))
  local c2, v2 = m()
  show("main dumped" .. (strip and " stripped" or ""), c2(2), c2(3), v2(1, nil, 3))
  local c3 = loadstring(string.dump(count, strip))
  show("inner dumped" .. (strip and " stripped" or ""), pcall(c3, 1))
  local v3 = loadstring(string.dump(va, strip))
  show("vararg dumped" .. (strip and " stripped" or ""), v3("a", "b"))
end
show("counted", count(1), count(1))

-- 200 locals at the main level: the limit the original has, no closer
local names = {}
for i = 1, 200 do names[i] = "l" .. i end
local big = "local " .. table.concat(names, ", ") .. " = 1\nreturn l1, l200"
show("200 locals", pcall(loadstring(big, "=locals")))
show("201 locals", loadstring("local l0 = 0\n" .. big, "=locals201"))

-- no string metatable: chunks loaded then still run
local mt = getmetatable("")
debug.setmetatable("", nil)
show("no string metatable", pcall(loadstring("local a = ... return 1, a", "=nometa"), 7))
local f, e = loadstring("return (...):upper()", "=method")
show("no string metatable, a method", pcall(f, "x"))
debug.setmetatable("", mt)
show("metatable back", pcall(f, "x"))

-- what the program sees of the libraries
local keys = {}
for k in pairs(string) do keys[#keys + 1] = tostring(k) end
table.sort(keys)
show("string", table.concat(keys, " "))
keys = {}
for k in pairs(package.loaded) do
  if k ~= "ffi" and k ~= "jit.profile" and k ~= "jit.util" then keys[#keys + 1] = tostring(k) end
end
table.sort(keys)
show("package.loaded", table.concat(keys, " "))
show("upvalues of a loaded main", select(2, pcall(function()
  local n = 0
  local g = loadstring("return 1", "=upv")
  while debug.getupvalue(g, n + 1) ~= nil do n = n + 1 end
  return n <= 1
end)))
