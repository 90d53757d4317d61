-- Lua 5.1 / LuaJIT: coroutines.
local co = coroutine.create(function(a, b)
  local c = coroutine.yield(a + b)
  local d, e = coroutine.yield(c * 2)
  return "done", d, e
end)
print(coroutine.status(co))
print(coroutine.resume(co, 1, 2))
print(coroutine.resume(co, 10))
print(coroutine.resume(co, "x", nil))
print(coroutine.status(co), coroutine.resume(co))
local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
  end)
end
for i in gen(4) do io.write(i, " ") end
print()
local function walk(t)
  return coroutine.wrap(function()
    local function visit(node)
      if not node then return end
      visit(node.l) coroutine.yield(node.v) visit(node.r)
    end
    visit(t)
  end)
end
for v in walk({v = 2, l = {v = 1}, r = {v = 3}}) do io.write(v, " ") end
print()
local bad = coroutine.create(function() local t = nil return t.x end)
print(coroutine.resume(bad))
local w = coroutine.wrap(function() error("wrapped") end)
print(pcall(w))
local tc = coroutine.create(function()
  local function y(n) if n == 0 then return coroutine.yield("deep") end return y(n - 1) end
  return y(10000)
end)
print(coroutine.resume(tc))
print(coroutine.resume(tc, "back"))
