-- Multi-line expressions, strings and calls: errors keep their lines.
local t = {
  a = 1,
  b = {
    c = nil,
  },
}
local function sum(...)
  local s = 0
  for _, v in ipairs({...}) do s = s + v end
  return s
end
print(sum(
  1,
  2,
  3
))
local ok, e = pcall(function()
  return t.a
    + t.b.c
end)
print(e)
ok, e = pcall(function()
  return t
    .b
    .c
    .d
end)
print(e)
ok, e = pcall(function()
  local r = sum(1,
                2,
                nil,
                "x" .. {})
  return r
end)
print(e)
ok, e = pcall(function()
  return
    t.a
    ..
    t.missing
end)
print(e)
ok, e = pcall(function()
  return nofunc
  (1)
end)
print(e)
ok, e = pcall(function()
  local s = [[
first
second]] .. t.b.c
  return s
end)
print(e)
local str = "line\
continued"
print(str)
local lng = [==[
]]
]=]
]==]
print(#lng, lng)
--[[ a long
comment over
several lines ]] print("after long comment", debug.getinfo(1, "l").currentline)
local function
  spread
  (
  a
  ,
  b
  )
  return
  a
  *
  b
end
print(spread(6,
  7))
print(debug.getinfo(spread, "S").linedefined, debug.getinfo(spread, "S").lastlinedefined)
local v = sum(1, 2) +
  sum(3,
      4) * 2
print(v)
print(select(2, pcall(spread, {}, 2)))
print(select(2, pcall(spread, 2, nil)))
