-- Lua 5.2 and 5.3: error values and xpcall with arguments.  5.3's error()
-- puts no position before numbers; integers and floats stay apart.
local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do
    local v = t[i]
    if type(v) == "table" or type(v) == "function" or type(v) == "thread" then
      v = type(v)
    end
    t[i] = tostring(v)
  end
  print(table.concat(t, " | ", 1, t.n))
end

show(pcall(error, 42))
show(pcall(error, 42.0))
show(pcall(error, 2^53))
show(pcall(function() error(7 // 2) end))
show(pcall(function() error(7 / 2) end))
show(pcall(function() local t = {} return t.x.y end))
show(pcall(function() return 1 // 0 end))
show(pcall(function() return 1 % 0 end))
show(pcall(function() return "a" + 1 end))
show(pcall(function() return ("x"):bad() end))

-- xpcall passes its extra arguments, and a handler sees the error value
show(xpcall(function(a, b) return a + b end, print, 20, 22))
show(xpcall(function(a) error({a = a}) end, function(e) return e.a end, "field"))
show(xpcall(function(...) return select('#', ...) end, print, nil, nil, nil))

-- _ENV inside protected calls and coroutines
local function reads_env()
  local _ENV = {x = "from local _ENV"}
  return x
end
show(pcall(reads_env))
show(coroutine.wrap(reads_env)())
local env = setmetatable({}, {__index = function(_, k) error("no global " .. k, 2) end})
local strict = load("return undefined_name", "=strict", "t", env)
show(pcall(strict))

-- errors from close to the C boundary: tostring, string.format, table.concat
show(pcall(tostring))
show(pcall(function() return ("%d"):format(1.5) end))
show(pcall(function() return table.concat({1, {}, 3}) end))
show(pcall(function() return math.tointeger and math.tointeger(3.0) end))

-- goto out of a loop that contains a pcall
local n = 0
for i = 1, 10 do
  local ok = pcall(function() if i == 4 then error("stop") end end)
  if not ok then goto done end
  n = n + 1
end
::done::
show("stopped after", n)
