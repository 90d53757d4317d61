-- Lua 5.1 (and LuaJIT, and 5.2's compatibility module()): module(),
-- package.seeall, and module() at the main level of the script.
if not module then print("no module() in this Lua") return end
local m = require "modseeall51"
print(m.bump(), m.bump(), m.names())
print("global and loaded", modseeall51 == m, package.loaded.modseeall51 == m)
print("sees globals", m.sees_globals())
local ok, e = pcall(m.fail)
print(ok, e)
print(select(2, xpcall(m.fail, debug.traceback)))
print("require gives", require "modplain51")
local p = plainmod
print(p.hello(), p.no_globals(), package.loaded.plainmod == p)
local d = require "moddotted51"
print(type(d), outer.inner.leaf.value, outer.inner.leaf.where())
print(package.loaded["outer.inner.leaf"] == outer.inner.leaf)
-- package.seeall on a table of our own
local t = {}
package.seeall(t)
print(getmetatable(t).__index == _G)
-- module() in the main chunk: the rest of the chunk runs in its table
local print, pcall, error = print, pcall, error
module("mainmod", package.seeall)
x = 10
function twice() return x * 2 end
print(_NAME, mainmod.x, mainmod.twice(), _M == mainmod, x)
print(pcall(function() error("from mainmod") end))
