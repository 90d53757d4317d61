-- table.sort with Lua comparator functions (instrumented).
local people = {
  {name = "ann", age = 31}, {name = "bob", age = 25}, {name = "cid", age = 31},
  {name = "dan", age = 19}, {name = "eve", age = 25}, {name = "fay", age = 40},
}
table.sort(people, function(a, b)
  if a.age ~= b.age then return a.age < b.age end
  return a.name < b.name
end)
for _, p in ipairs(people) do io.write(p.name, ":", p.age, " ") end
print()
local calls = 0
local nums = {}
local s = 7
for i = 1, 300 do s = (s * 48271) % 2147483647 nums[i] = s % 1000 end
table.sort(nums, function(a, b) calls = calls + 1 return a > b end)
print(nums[1], nums[150], nums[300], calls > 0)
local words = {"pear", "Apple", "fig", "banana", "Cherry"}
table.sort(words, function(a, b) return a:lower() < b:lower() end)
print(table.concat(words, " "))
table.sort(words)
print(table.concat(words, " "))
local function bylen(a, b) return #a < #b or (#a == #b and a < b) end
table.sort(words, bylen)
print(table.concat(words, " "))
-- comparator errors propagate with the comparator's line
print(pcall(table.sort, {3, 1, 2}, function(a, b) return a.x < b end))
print(pcall(table.sort, {1, "x", 2}))
-- invalid order function
local bad = {}
for i = 1, 50 do bad[i] = (i * 37) % 50 end
print(pcall(table.sort, bad, function(a, b) return true end))
-- sorting with a comparator that is a method through a closure
local Sorter = {key = "v"}
function Sorter:cmp(a, b) return a[self.key] < b[self.key] end
local items = {{v = 3}, {v = 1}, {v = 2}}
table.sort(items, function(a, b) return Sorter:cmp(a, b) end)
print(items[1].v, items[2].v, items[3].v)
