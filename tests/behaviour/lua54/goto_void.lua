-- Labels followed by void statements `;` and other labels.
local out = {}
for i = 1, 4 do
  if i == 2 then goto cont end
  local v = i * 10
  out[#out + 1] = v
  ::cont:: ;
end
print(table.concat(out, ","))

for i = 1, 3 do
  if i ~= 2 then goto a end
  local s = "two"
  print(s)
  ::a:: ; ::b:: ; ;
end

do
  goto x
  ;;
  ::x:: ;
end

local function f()
  ;
  ::start:: ;
  print("in f")
  ;
end
f()

local function g(n)
  if n == 1 then goto e end
  local z = n
  print("g", z)
  ;;
  ::e::;;
end
g(1) g(2)
