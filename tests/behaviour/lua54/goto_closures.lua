-- Nested functions inside loops, with gotos around them.
local makers = {}
for i = 1, 3 do
  local function make(k)
    return function(x)
      if x == nil then goto none end
      do return x * k + i end
      ::none::
      return -i
    end
  end
  makers[i] = make(i * 2)
end
for i = 1, 3 do print(makers[i](10), makers[i]()) end

local acc = {}
local n = 0
while n < 3 do
  n = n + 1
  local captured = n
  acc[n] = function() return captured end
  if n == 2 then goto cont end
  acc[n] = function() return -captured end
  ::cont::
end
print(acc[1](), acc[2](), acc[3]())

local function outer()
  local results = {}
  for i = 1, 4 do
    local f = function()
      for j = 1, i do
        if j == 3 then goto done end
        results[#results + 1] = i .. ":" .. j
      end
      ::done::
    end
    f()
  end
  return table.concat(results, " ")
end
print(outer())
