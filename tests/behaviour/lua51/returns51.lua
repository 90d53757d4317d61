-- Lua 5.1 / LuaJIT: return value counts, unpack, falling off the end.
local function show(label, ...)
  local t = {}
  for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end
  print(label, select('#', ...), table.concat(t, ","))
end
local function id(...) return ... end
show("return", (function() return end)())
show("nil", (function() return nil end)())
show("nil,nil", (function() return nil, nil end)())
show("...", id(1, nil, nil))
show("(f())", (function() return (id(1, 2)) end)())
show("f(),g()", (function() return id(1, 2), id(3, 4) end)())
show("unpack", (function(t) return unpack(t, 1, t.n) end)({n = 3, nil, 2, nil}))
show("falloff", (function() end)())
show("loop last", (function() for i = 1, 2 do end end)())
show("if last", (function(x) if x then return 1 end end)())
show("return;", (function() return; end)())
show("nested", (function(x)
  while true do
    if x > 3 then return x, "big" end
    x = x + 1
  end
end)(1))
show("repeat", (function()
  local i = 0
  repeat
    i = i + 1
    if i == 2 then return i end
  until false
end)())
show("do return", (function() do return 7 end end)())
local function many() return unpack({1, 2, 3, 4, 5}) end
show("many", many())
local M = require("mod51")
show("module", M.pair())
print(M.name, package.loaded.mod51 == M)
