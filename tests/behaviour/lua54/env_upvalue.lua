-- Functions using a custom _ENV upvalue; _ENV found by name with debug.
local function make(env)
  local _ENV = env
  return function(a)
    value = (value or 0) + a
    return value
  end
end
local e1, e2 = {}, {}
local f1, f2 = make(e1), make(e2)
print(f1(1), f1(2), f2(10))
print(e1.value, e2.value, value)

-- setfenv emulation: find the _ENV upvalue by name, never by index
local function setfenv(fn, env)
  local i = 1
  while true do
    local name = debug.getupvalue(fn, i)
    if name == "_ENV" then
      debug.upvaluejoin(fn, i, function() return env end, 1)
      return fn
    elseif not name then
      return fn
    end
    i = i + 1
  end
end
local function getfenv(fn)
  local i = 1
  while true do
    local name, val = debug.getupvalue(fn, i)
    if name == "_ENV" then return val end
    if not name then return nil end
    i = i + 1
  end
end
local function uses_globals() return greeting .. " " .. target end
local sandbox = {greeting = "hello", target = "sandbox"}
setfenv(uses_globals, sandbox)
print(uses_globals())
print(getfenv(uses_globals) == sandbox, getfenv(print))

-- setupvalue by name
local counter = 0
local function inc() counter = counter + 1 return counter end
local function setbyname(fn, want, v)
  local i = 1
  while true do
    local name = debug.getupvalue(fn, i)
    if not name then return false end
    if name == want then debug.setupvalue(fn, i, v) return true end
    i = i + 1
  end
end
print(inc(), setbyname(inc, "counter", 100), inc(), counter)
print(setbyname(inc, "nonexistent", 1))

-- getupvalue by name of a closure with several upvalues
local a, b, c = "A", "B", "C"
local function abc() return a .. b .. c end
local function upvals(fn)
  local names = {}
  local i = 1
  while true do
    local n, v = debug.getupvalue(fn, i)
    if not n then break end
    if n == "a" or n == "b" or n == "c" then names[#names + 1] = n .. "=" .. v end
    i = i + 1
  end
  table.sort(names)
  return table.concat(names, " ")
end
print(upvals(abc), abc())
