-- Lua 5.1 (and LuaJIT): environments of the standard functions and of
-- what runs through pcall, coroutines and load.  Later Luas have no
-- setfenv: the program says so and ends.
if not setfenv then print("no setfenv in this Lua") return end

-- C functions of the base and coroutine libraries have the globals
print("pcall", getfenv(pcall) == _G, "xpcall", getfenv(xpcall) == _G)
print("resume", getfenv(coroutine.resume) == _G, "yield", getfenv(coroutine.yield) == _G)
print("wrap", getfenv(coroutine.wrap) == _G,
      "a wrap function", getfenv(coroutine.wrap(function() end)) == _G)
print("tostring", getfenv(tostring) == _G)

-- levels seen from inside pcall: level 2 is pcall itself
local function try_parent() setfenv(2, {}) end
print("setfenv(2) on pcall", pcall(try_parent))
local function parent_env() return getfenv(2) == _G end
print("getfenv(2) is pcall's", pcall(parent_env))

-- setfenv(1) in a function called by pcall, xpcall and a coroutine
local function sandboxed(tag)
  setfenv(1, setmetatable({tag = tag}, {__index = _G}))
  answer = "set in sandbox " .. tag
  return tag, answer, rawget(_G, "answer")
end
print(pcall(sandboxed, "pcall"))
print(xpcall(function() return sandboxed("xpcall") end, debug.traceback))
print(coroutine.wrap(sandboxed)("wrap"))
print(coroutine.resume(coroutine.create(sandboxed), "resume"))

-- the thread's environment: what load and new coroutines get
local sandbox = setmetatable({marker = "thread env"}, {__index = _G})
local co = coroutine.create(function()
  setfenv(0, sandbox)
  local chunk = loadstring("return marker")
  local made = coroutine.create(function() return getfenv(0) == sandbox end)
  return chunk(), select(2, coroutine.resume(made)), getfenv(0) == sandbox
end)
print(coroutine.resume(co))
print("main thread untouched", getfenv(0) == _G, rawget(_G, "marker"))

-- a function's environment travels with it through coroutine.wrap
local function reads() return who end
setfenv(reads, {who = "custom env"})
print(coroutine.wrap(reads)(), pcall(reads))

-- setfenv on the running coroutine's body, from inside it
local body
body = function()
  setfenv(body, {coroutine = coroutine, print = print, type = type})
  coroutine.yield(type(_G))
  print("after yield sees _G as", type(_G), type(string))
  return "body done"
end
local wb = coroutine.wrap(body)
print(wb())
print(wb())
