-- Generators used with generic for, yields across nested Lua calls.
local function range(n, step)
  return coroutine.wrap(function()
    for i = 1, n, step or 1 do coroutine.yield(i) end
  end)
end
for i in range(10, 3) do io.write(i, " ") end
print()

local function walk(tree)
  return coroutine.wrap(function()
    local function visit(node, depth)
      if not node then return end
      visit(node.left, depth + 1)
      coroutine.yield(node.value, depth)
      visit(node.right, depth + 1)
    end
    visit(tree, 0)
  end)
end
local tree = {value = 4,
  left = {value = 2, left = {value = 1}, right = {value = 3}},
  right = {value = 6, left = {value = 5}, right = {value = 7}}}
for v, d in walk(tree) do io.write(v, "@", d, " ") end
print()

-- permutations generator
local function permgen(a, n)
  n = n or #a
  if n <= 1 then coroutine.yield(a) else
    for i = 1, n do
      a[n], a[i] = a[i], a[n]
      permgen(a, n - 1)
      a[n], a[i] = a[i], a[n]
    end
  end
end
local function permutations(a)
  return coroutine.wrap(function() permgen(a) end)
end
for p in permutations({"a", "b", "c"}) do io.write(table.concat(p), " ") end
print()

-- yield across pcall, metamethods and table iteration
local co = coroutine.wrap(function()
  local ok, v = pcall(function()
    local r = coroutine.yield("in pcall")
    return r * 2
  end)
  print("pcall result", ok, v)
  local mt = {__index = function(t, k) return coroutine.yield("in __index " .. k) end,
              __add = function(a, b) return coroutine.yield("in __add") end,
              __lt = function(a, b) return coroutine.yield("in __lt") end,
              __concat = function(a, b) return coroutine.yield("in __concat") end,
              __eq = function(a, b) return coroutine.yield("in __eq") end}
  local obj = setmetatable({}, mt)
  local other = setmetatable({}, mt)
  print("index", obj.key)
  print("add", obj + 1)
  print("lt", obj < other)
  print("concat", obj .. "s")
  print("eq", obj == other)
  local ok2, err = pcall(table.sort, {3, 2, 1}, function(a, b) coroutine.yield("in sort") end)
  print("sort", ok2, err)
  return "finished"
end)
print(co())
print(co(21))
print(co("indexed"))
print(co(100))
print(co(true))
print(co("concatenated"))
print(co(false))

-- xpcall inside a coroutine with a handler that yields is fine too
local co2 = coroutine.wrap(function()
  return xpcall(function() error("boom") end, function(m) return "handled: " .. m end)
end)
print(co2())

-- string.gsub callback yielding: C boundary
local co3 = coroutine.create(function()
  return ("abc"):gsub(".", function(c) coroutine.yield(c) end)
end)
print(coroutine.resume(co3))
