-- LuaJIT: errors through pcall and xpcall, with LuaJIT's own messages:
-- argument checks, xpcall's extra arguments, error objects and levels,
-- nested protected calls, errors in handlers; each case also in a hot
-- loop, so that the JIT compiles the protected calls.
local function show(...)
  local t = {...}
  for i = 1, select("#", ...) do t[i] = tostring(t[i]) end
  print(table.concat(t, " | "))
end

-- pcall's and xpcall's own argument errors, caught one level up
show(pcall(function() local r = pcall() return r end))
show(pcall(function() local r = xpcall() return r end))
show(pcall(function() local r = xpcall(print) return r end))
show(pcall(function() local r = xpcall(print, 1) return r end))
show(pcall(function() local r = xpcall(print, nil, 1) return r end))
show(pcall(function() local p = pcall local r = p() return r end))
show(pcall(function() local t = {f = xpcall} local r = t.f(1) return r end))

-- calling what cannot be called
show(pcall(nil))
show(pcall(42, 1, 2))
show(xpcall(nil, function(m) return "H:" .. m end))

-- results and arguments pass through
show(pcall(function(...) return select("#", ...), ... end, 1, nil, 3, nil))
show(xpcall(function(a, b, ...) return a + b, select("#", ...) end,
            print, 40, 2, nil, nil))
show(xpcall(function(...) return ... end, print))
show(pcall(error))
show(pcall(error, nil))
show(pcall(error, false))

-- error objects: tables, functions, numbers, userdata, nil
local E = setmetatable({code = 7}, {__tostring = function(e) return "E" .. e.code end})
local ok, e = pcall(error, E)
show(ok, e == E, tostring(e))
ok, e = pcall(function() error(12.5) end)
show(ok, e, type(e))
ok, e = pcall(function() error(12.5, 0) end)
show(ok, e, type(e))
ok, e = pcall(function() error(print) end)
show(ok, e == print)
ok, e = pcall(function() error(newproxy(false)) end)
show(ok, type(e))

-- levels
local function lvl(n) error("at level " .. n, n) end
local function callsl(n) lvl(n) end
for n = 0, 3 do show(pcall(callsl, n)) end

-- nested: inner errors caught inside, outer error after
local function inner(x)
  if x > 2 then error({depth = x}) end
  return x
end
local function outer(n)
  local caught = 0
  for i = 1, n do
    local ok2, v = pcall(inner, i)
    if not ok2 then caught = caught + v.depth end
  end
  if caught > 10 then error("outer: " .. caught) end
  return caught
end
show(pcall(outer, 4))
show(pcall(outer, 5))
show(xpcall(outer, function(m) return "handled " .. m end, 6))

-- errors in the handler: LuaJIT's "error in error handling"
show(xpcall(function() error("first") end, function() error("second") end))
show(xpcall(function() error("first") end, function(m) return nil end))
-- the handler runs where the error happened: it sees the failing frame
show(xpcall(function() local x = nil; return x.y end,
            function(m) return debug.getinfo(2, "l").currentline .. ": " .. m end))

-- a hot loop: the JIT compiles pcall and the calls inside
local function maybe(i)
  if i % 7 == 0 then error("seven " .. i, 0) end
  return i
end
local sum, errs, last = 0, 0, nil
for i = 1, 2000 do
  local ok3, v = pcall(maybe, i)
  if ok3 then sum = sum + v else errs = errs + 1; last = v end
end
show(sum, errs, last)
sum, errs = 0, 0
for i = 1, 2000 do
  local ok3, v = xpcall(maybe, function(m) return #m end, i)
  if ok3 then sum = sum + v else errs = errs + v end
end
show(sum, errs)

-- error() from a tail call and from a metamethod
local function tailerr() return error("from tail") end
show(pcall(tailerr))
local mt = setmetatable({}, {__index = function(t, k) error("no field " .. k) end})
show(pcall(function() return mt.missing end))
show(pcall(function() return #nil end))
show(pcall(function() return {} < {} end))
show(pcall(string.rep))
show(pcall(function() local r = ("x"):rep() return r end))
