-- Lua 5.1 / LuaJIT: setfenv/getfenv on functions and stack levels.
local print, setfenv, getfenv, pairs, tostring = print, setfenv, getfenv, pairs, tostring
local function uses_globals() return greeting, target end
local env = {greeting = "hello", target = "sandbox"}
setfenv(uses_globals, env)
print(uses_globals())
print(getfenv(uses_globals) == env, getfenv(1) == _G, getfenv(0) == _G)
local function creates()
  created = "in env"
  return created
end
local env2 = {}
setfenv(creates, env2)
print(creates(), env2.created, rawget(_G, "created"))
local function level_setter()
  setfenv(1, {x = "level one"})
  return x
end
print(level_setter())
local function sets_caller()
  setfenv(2, setmetatable({y = "caller env"}, {__index = _G}))
end
local function caller()
  sets_caller()
  return y
end
print(caller())
local function inherit()
  local inner = function() return z end
  return inner()
end
setfenv(inherit, {z = "inherited"})
print(pcall(inherit))
local function tail(n) if n == 0 then return w end return tail(n - 1) end
setfenv(tail, {w = "tail env"})
print(tail(10000))
print(pcall(setfenv, print, {}))
