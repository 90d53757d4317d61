-- Lua 5.1 / LuaJIT: `goto` and `continue` used as ordinary names.
local goto = 1
local continue = goto + 1
print(goto, continue)
local t = {goto = "field"}
t.goto = t.goto .. "!"
print(t.goto, t["goto"])
function t.goto(n) return n * 2 end
print(t.goto(21))
local function f(goto) return goto + 1 end
print(f(goto))
for goto = 1, 2 do io.write(goto, " ") end
print()
local function g()
  local goto = "local"
  return goto
end
print(g())
