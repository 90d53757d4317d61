-- Statements starting with '(' and other places where text insertion could
-- change the parse.
local log = {}
local function rec(x) log[#log + 1] = type(x) == "function" and "fn" or tostring(x) return rec end
local function f()
  (rec)(1)
  ;(rec)(2)
end
f()
local function g()
  local a = rec
  ;(a)(3)
  return (a)(4)
end
g()
local function h()
  rec(5)
  (rec)(6)
end
h()
local function k()
  local t = {rec}
  t[1](7)
  ;({rec})[1](8)
end
k()
local function m() ("x"):len() rec(9) end
m()
local function n() return ("n"):rep(2) end
print(n())
print(table.concat(log, " "))
-- a function call spanning a line break in the main chunk
local r = rec
(10)
print(table.concat(log, " "))
-- method chain at the start of a statement after a label
local function o()
  ::l::
  ;(rec)(11)
end
o()
print(table.concat(log, " "))
