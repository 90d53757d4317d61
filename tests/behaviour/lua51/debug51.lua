-- Lua 5.1 / LuaJIT: debug.getinfo, getlocal, traceback.
local function show(i) print(i.source, i.short_src, i.what, i.linedefined, i.lastlinedefined, i.currentline) end
show(debug.getinfo(1, "Sl"))
local function f(a, b)
  local c = a + b
  show(debug.getinfo(1, "Sl"))
  local names = {}
  local k = 1
  while true do
    local n, v = debug.getlocal(1, k)
    if not n then break end
    if n:sub(1, 1) ~= "(" and type(v) ~= "table" then names[#names + 1] = n .. "=" .. tostring(v) end
    k = k + 1
  end
  print(table.concat(names, " "))
  return c
end
f(1, 2)
local function named() local i = debug.getinfo(1, "n") return tostring(i.name) .. " " .. tostring(i.namewhat) end
local t = {named = named}
print(named(), t.named(), t:named())
local function cur() return debug.getinfo(2, "l").currentline end
print(cur(),
  cur())
local function tb() return debug.traceback("tb", 1) end
local function mid() local s = tb() return s end
print(mid())
