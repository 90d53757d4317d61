-- LuaJIT's load and loadfile take 5.2's arguments on a Lua 5.1: load(s
-- [, name [, mode [, env]]]) with a string or a reader function,
-- loadfile(name [, mode [, env]]); the environment is the function's
-- (setfenv's) and the chunk name of a string defaults to the string.
local f = assert(load("return 1 + 1"))
print(f())
print(load("return ...", "=named")(4, 5))
print(load("syntax error here"))
print(load("return x", "=env", "t", {x = "from env"})())
print(pcall(load, "return 1", "=b only", "b"))
print(load(string.dump(function() return "binary" end), "=bin", "b")())
print(load(string.dump(function() return "binary" end), "=bin", "t"))
local parts, i = {"return ", "'pieces'"}, 0
print(load(function() i = i + 1 return parts[i] end)())
local name = os.tmpname()
local h = assert(io.open(name, "w"))
h:write("return y")
h:close()
print(loadfile(name, "t", {y = "file env"})())
print(loadfile(name, "b"))
os.remove(name)
print(getfenv(load("return 1", "=x", "t", {marker = true})).marker)
