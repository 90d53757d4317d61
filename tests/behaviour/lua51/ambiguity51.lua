-- Lua 5.1 / LuaJIT: a statement starting with '(' on a new line needs a
-- ';' after the previous one (5.1 rejects "ambiguous syntax"), and 5.1 has
-- no empty statement: inserted text must create neither problem.
local log = {}
local function rec(x) log[#log + 1] = type(x) == "function" and "fn" or tostring(x) return rec end
local function f()
  (rec)(1);
  (rec)(2)
end
f()
local function g()
  rec(3);
  (rec)(4)
  return (rec)(5)
end
g()
local function h() (rec)(6) end
h()
local function k() return ("k"):rep(2) end
print(k(), table.concat(log, " "))
local function m()
  local t = {rec}
  t[1](7);
  ({rec})[1](8)
end
m()
local function n(x)
  if x then (rec)(9) end
  for i = 1, 1 do (rec)(10) end
  do (rec)(11) end
end
n(true)
print(table.concat(log, " "))
