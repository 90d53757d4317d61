-- A line hook recording the executed lines of some functions.
local function work(n)
  local s = 0
  for i = 1, n do
    if i % 2 == 0 then
      s = s + i
    else
      s = s - 1
    end
  end
  return s
end

local function helper(x)
  return x * 2
end

local function caller(n)
  local a = helper(n)
  local b = work(a)
  return a + b
end

local function noret(n)
  local t = {}
  for i = 1, n do t[i] = i end
end

local watched = {[work] = "work", [helper] = "helper", [caller] = "caller", [noret] = "noret"}
local log = {}
local function hook(event, line)
  local fn = debug.getinfo(2, "f").func
  local name = watched[fn]
  if name then log[#log + 1] = name .. ":" .. line end
end

debug.sethook(hook, "l")
local r = caller(3)
noret(2)
debug.sethook()
print(r)
for i = 1, #log, 8 do
  print(table.concat(log, " ", i, math.min(i + 7, #log)))
end
print(#log)

-- lines seen by the hook in the main chunk, between two markers
local mainlines = {}
debug.sethook(function(_, line)
  if debug.getinfo(2, "S").what == "main" then mainlines[#mainlines + 1] = line end
end, "l")
local x = 1
x = x + 1
if x > 1 then
  x = 0
end
debug.sethook()
print(table.concat(mainlines, " "))
