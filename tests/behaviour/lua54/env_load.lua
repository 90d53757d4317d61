-- load() of strings at run time with custom environments.
local env = {print = print, x = 5}
local f = assert(load("y = x * 2 return y", "=chunk", "t", env))
print(f(), env.y, y)

local g = assert(load("local a, b = ... return a + b, select('#', ...)", "@virtual.lua"))
print(g(3, 4, nil))

local bad, err = load("return +", "=bad")
print(bad, err)
print(load("x =", "@file.lua"))
print(type(load("error('from loaded')", "=loaded")))
print(pcall(load("error('from loaded')", "=loaded")))
print(pcall(load("local t = nil\nreturn t.x", "@virtual.lua")))

-- a reader function
local parts = {"return ", "1 ", "+ ", "41"}
local i = 0
local h = load(function() i = i + 1 return parts[i] end, "=reader")
print(h())

-- binary chunks are refused in text mode
print(load(string.dump(load("return 1")), "bin", "t"))

-- load with an env whose __index is a function
local proxy = setmetatable({}, {__index = function(_, k) return k:upper() end})
print(load("return hello, world", "=p", "t", proxy)())

-- loaded code calling back into instrumented code
local function cb(n) return n * 3 end
local k = load("local cb = ... return cb(14)")
print(k(cb))

-- error line numbers of loaded code
local m = load([[
local function f()
  error("line two")
end
f()
]], "@loaded.lua")
print(pcall(m))
