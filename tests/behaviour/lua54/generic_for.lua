-- Generic for with stateless and stateful iterators, ipairs, closing value.
local function iter(t, i)
  i = i + 1
  if t[i] then return i, t[i] end
end
for i, v in iter, {"a", "b", "c"}, 0 do io.write(i, v, " ") end
print()
for i, v in ipairs({10, 20, nil, 40}) do io.write(i, "=", v, " ") end
print()
local function chars(s)
  local i = 0
  return function()
    i = i + 1
    if i <= #s then return s:sub(i, i), i end
  end
end
for c, i in chars("xyz") do io.write(c, i, " ") end
print()
local t = {z = 1, a = 2, m = 3}
local keys = {}
for k in pairs(t) do keys[#keys + 1] = k end
table.sort(keys)
print(table.concat(keys, ","))
for k, v in next, {single = "only"} do print(k, v) end
local function fib_iter(max)
  return function(state, prev)
    local a, b = state[1], state[2]
    if b > max then return nil end
    state[1], state[2] = b, a + b
    return b
  end, {0, 1}, 0
end
for v in fib_iter(100) do io.write(v, " ") end
print()
-- the loop variable is a fresh local per iteration
local fns = {}
for i, v in ipairs({"p", "q"}) do fns[i] = function() return i .. v end end
print(fns[1](), fns[2]())
-- break and return inside generic for
local function find(list, x)
  for i, v in ipairs(list) do
    if v == x then return i end
    if v > x then break end
  end
  return "not found"
end
print(find({1, 3, 5}, 3), find({1, 3, 5}, 2))
-- errors in the iterator
print(pcall(function() for k in 42 do end end))
print(pcall(function() for k in nil do end end))
local function bad_iter() error("iterator failed") end
print(pcall(function() for x in bad_iter do end end))
