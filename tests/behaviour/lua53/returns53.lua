-- Lua 5.3: return value counts, varargs, falling off the end.
local function show(...)
  local t = {}
  for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end
  print(select('#', ...), table.concat(t, ","))
end
local function id(...) return ... end
show((function() return end)())
show((function() return nil end)())
show((function() return nil, nil end)())
show(id(1, nil, nil))
show((function() return (id(1, 2)) end)())
show((function() return id(1, 2), id(3, 4) end)())
show((function(t) return table.unpack(t, 1, t.n) end)(table.pack(nil, 2, nil)))
show((function() end)())
show((function() for i = 1, 2 do end end)())
show((function(x) if x then return 1 end end)())
show((function() return; end)())
local function fwd(n, ...) if n == 0 then return ... end return fwd(n - 1, ...) end
show(fwd(100000, nil, 2, nil))
show(table.pack(id()).n, table.pack(id(nil)).n)
print(select(-1, 1, 2, 3), select(2, "a", "b", "c"))
