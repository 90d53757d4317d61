-- Every way to define a function, and what names tracebacks give them.
local function localrec(n) if n == 0 then return "localrec" end return localrec(n - 1) end
local anon = function(n) return n end
function globalfn(n) return "globalfn " .. n end
local ns = {a = {b = {c = {}}}}
function ns.a.b.c.deep(n) return "deep " .. n end
function ns.a.b.c:meth(n) return self == ns.a.b.c, n end
local tbl = {
  f1 = function() return "f1" end,
  [2] = function() return "f2" end,
  ["key with space"] = function() return "f3" end,
  function() return "positional" end,
  nested = {function() return "nested positional" end},
}
print(localrec(5), anon(6), globalfn(7), ns.a.b.c.deep(8), ns.a.b.c:meth(9))
print(tbl.f1(), tbl[2](), tbl["key with space"](), tbl[1](), tbl.nested[1]())
-- `local f = function` does not see itself: f inside refers to the global
f = function() return "global f" end
local f = function(n) if n == 0 then return f() end return "local f" end
print(f(0), f(1))
-- redefinition
local function r() return 1 end
local r1 = r
local function r() return 2 end
print(r1(), r())
-- functions as arguments and immediately invoked
print((function(a, b) return a .. b end)("x", "y"))
print(select(2, pcall(function() return (function() error("iife error") end)() end)))
-- traceback names
local function tb() return debug.traceback("names", 1) end
ns.tb = tb
TB = tb
tbl.tb = function() local s = tb() return s end
print(tb())
print(ns.tb())
print(TB())
print(tbl.tb())
print((tb()))
