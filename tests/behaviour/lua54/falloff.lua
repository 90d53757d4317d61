-- Falling off the end of functions: no values, whatever the last statement.
local function empty() end
local function one() local x = 1 end
local f2 = function() end
local t = {m = function() end}
function t:n() end
local function lastloop(n)
  local s = 0
  for i = 1, n do s = s + i end
  while s > 100 do s = s - 100 end
  print("lastloop", s)
  for i = 1, 2 do
    s = s + i
  end
end
local function lastif(x)
  if x then
    print("lastif true")
  elseif x == false then
    print("lastif false")
  else
    print("lastif nil")
  end
end
local function lastrepeat()
  local i = 0
  repeat i = i + 1 until i >= 3
end
local function lastdo() do local y = 2 end end
local function lastcall() print("lastcall") end
local function lastassign() local t2 = {} t2.x = 1 end
local function lastgeneric()
  for _, v in ipairs({1, 2}) do
    if v > 5 then return v end
  end
end
local function lastwhilebreak()
  while true do break end
end
local function nested()
  local function inner() end
  return inner
end

local function count(...) return select('#', ...) end
print(count(empty()), count(one()), count(f2()), count(t.m()), count(t:n()))
print(count(lastloop(20)), count(lastif(true)), count(lastif(false)), count(lastif()))
print(count(lastrepeat()), count(lastdo()), count(lastcall()), count(lastassign()))
print(count(lastgeneric()), count(lastwhilebreak()), count(nested()()), count(nested()))
print(count((function() end)()), count((function(...) end)(1, 2)))

-- methods and functions declared across lines, bodies only comments
local function commented()
  -- nothing here
  --[[ nor
       here ]]
end
print(count(commented()))
function GLOBAL_FN(a,
                   b)
end
print(count(GLOBAL_FN(1, 2)))
local function semi_only() ; ; end
print(count(semi_only()))
