-- debug.traceback must still show "(...tail calls...)", istailcall set.
local function bottom()
  print(debug.traceback("tb", 1))
  local info = debug.getinfo(1, "nt")
  print("istailcall", info.istailcall, info.name, info.namewhat)
  return "bottom"
end
local function middle(n)
  if n == 0 then return bottom() end
  return middle(n - 1)
end
local function top()
  local r = middle(5)
  return r
end
print(top())

-- not a tail call: parentheses, extra values, operators
local function notail1() return (bottom()) end
local function notail2() return bottom(), 1 end
local function notail3() return bottom() .. "" end
print(notail1())
print(notail2())
print(notail3())

-- error through tail calls, uncaught
local function fail(x) error("failing with " .. x) end
local function relay(x) return fail(x) end
local function go() return relay("tail") end
go()
