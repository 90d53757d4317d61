-- Lua 5.3: tail calls stay tail calls; goto/labels at the end of blocks.
local function loop(n) if n == 0 then return "loop" end return loop(n - 1) end
local obj = {}
function obj:m(n) if n == 0 then return "method" end return self:m(n - 1) end
local c = 0
local function sc(s) c = c + 1 if c >= 1000000 then return s end return sc"str" end
local function tc(t) if t.n == 0 then return "table" end return tc{n = t.n - 1} end
print(loop(1000000), obj:m(1000000), sc"x", tc{n = 1000000})
local function even(n) if n == 0 then return true end return odd(n - 1) end
function odd(n) if n == 0 then return false end return even(n - 1) end
print(even(1000001))
print(select('#', (function() return nil, nil end)()), select('#', (function() end)()))
for i = 1, 4 do
  if i % 2 == 0 then goto continue end
  local sq = i * i
  print("odd", sq)
  ::continue::
end
local function f(n)
  if n > 0 then goto done end
  local x = 1
  print("x", x)
  ::done:: ;
end
f(1) f(0)
local function retry()
  ::top::
  c = c + 1
  if c % 7 ~= 0 then goto top end
  return c
end
print(retry())
local function bottom() return debug.traceback("tb") end
local function mid(n) if n == 0 then return bottom() end return mid(n - 1) end
print(mid(3))
