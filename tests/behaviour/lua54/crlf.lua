-- This file has CRLF line endings.
local function f(x)
  if x > 2 then
    error("too big: " .. x)
  end
  return x * 2
end
print(f(1), f(2))
local s = [[
line one
line two]]
print(#s, s)
local function g()
  local t = nil
  return t.x
end
print(pcall(g))
print(debug.getinfo(f, "S").linedefined, debug.getinfo(f, "S").lastlinedefined)
print(debug.getinfo(1, "l").currentline)
local long = "a\
b"
print(#long, long == "a\nb")
local function tail(n) if n == 0 then return "t" end return tail(n - 1) end
print(tail(100000))
-- the uncaught error's line must match
f(10)
