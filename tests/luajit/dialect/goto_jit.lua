-- LuaJIT: `goto` is a statement where a statement starts and a name
-- follows, and a name everywhere else (lj_parse.c without LJ_52).
local function odds(n)
  local t = {}
  for i = 1, n do
    if i % 2 == 0 then goto continue end
    t[#t + 1] = i
    ::continue::
  end
  return table.concat(t, ",")
end
print(odds(9))

-- a label last in a function: the exit probe must not follow it
local function find(t, x)
  local i = 0
  ::again::
  i = i + 1
  if t[i] == x then return i end
  if t[i] ~= nil then goto again end
  print("not found", x)
  ::done::
end
print(find({5, 6, 7}, 7), find({5}, 9))

-- `goto` as a name: local, parameter, field, key, method, global
local goto = 10
local function twice(goto) return goto * 2 end
local t = {goto = 1, [2] = "two"}
t.goto = t.goto + goto
print(goto, twice(goto), t.goto, t["goto"] == t.goto)
function t:goto() return "method" end
print(t:goto())
-- after an operator or `=` it is a name, even with a name after it
local x = goto y = 3
print(x, y)
repeat local z = 1 until goto x = 4
print(x)
goto skip
print("never")
::skip::
do
  local goto = function(s) return "called " .. tostring(type(s)) end
  print(goto("f"), goto"s", goto{} ~= nil)
end
-- nested loops, a backward goto, and a goto out of a nested function body
local n = 0
::top::
n = n + 1
for i = 1, 3 do
  for j = 1, 3 do
    if i * j == 4 then goto next_i end
  end
  ::next_i::
end
if n < 3 then goto top end
print("n", n)
local function g(...)
  local s = 0
  for _, v in ipairs({...}) do
    if v < 0 then goto out end
    s = s + v
  end
  do return s end
  ::out::
  return -1
end
print(g(1, 2, 3), g(1, -2, 3))
