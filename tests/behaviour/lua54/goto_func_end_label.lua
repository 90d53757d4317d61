-- A label as the last statement of a FUNCTION body, with a local jumped over.
local function f(n)
  if n > 0 then goto done end
  local x = 1
  print("x", x)
  ::done::
end
f(1) f(0)
print(select('#', f(1)))

local function g(n)
  if n > 0 then goto done end
  local y <const> = 5
  print("y", y)
  ::done:: ;
end
g(1) g(0)

local function h(n)
  if n > 0 then goto done end
  local z = 3
  print("z", z)
  ::done:: ; ::other:: ;;
  -- a comment after the labels
end
h(1) h(0)

local t = {}
function t.m(self, n)
  if n then goto out end
  local w = "w"
  print(w)
  ::out::
end
t:m(true) t:m(nil)

local k = function(n)
  do
    if n then goto inner end
    local q = 1
    print("q", q)
    ::inner::
  end
  if n then goto outer end
  local r = 2
  print("r", r)
  ::outer::
end
k(true) k(false)

-- in a vararg function with values after
local function va(...)
  if select('#', ...) > 0 then goto fin end
  local none = "none"
  print(none)
  ::fin::
end
va() va(1)
print("done")
