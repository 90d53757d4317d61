-- Varargs: select('#'), table.pack, forwarding, the main chunk's `...`.
print("main", select('#', ...), arg and arg[0], arg and #arg)
local function count(...) return select('#', ...) end
local function fwd(...) return count(...) end
local function fwd2(...) local r = count(...) return r end
local function fwd3(...) return (count(...)) end
print(count(), count(nil), count(nil, nil), count(1, nil, nil, nil))
print(fwd(), fwd(nil), fwd(nil, nil), fwd2(nil, nil, nil), fwd3(1, 2))
local function packed(...)
  local t = table.pack(...)
  return t.n, #{...}
end
print(packed(), packed(nil), packed(1, 2, 3))
local function tail(...) return select(-1, ...) end
print(tail(1, 2, 3), pcall(select, -5, 1))
print(select(2, "a", "b", "c"))
print(select('#', select(2, nil, nil, nil)))
local function addn(n, ...)
  if n == 0 then return ... end
  return addn(n - 1, n, ...)
end
print(addn(5))
print(count(addn(100)))
local function mixed(a, b, ...)
  local x, y = ...
  return a, b, x, y, select('#', ...)
end
print(mixed(1))
print(mixed(1, 2, 3))
print(mixed(1, 2, 3, 4, 5))
-- varargs in table constructors and the middle of lists
local function tc(...) return #{..., "end"}, #{"start", ...} end
print(tc(1, 2), tc())
local function middle(...) return ..., "last" end
print(middle(1, 2, 3))
print(middle())
-- varargs captured by closures through a table
local function capture(...)
  local args = table.pack(...)
  return function() return table.unpack(args, 1, args.n) end
end
print(count(capture(nil, nil, nil)()))
-- string.format with varargs
local function fmt(f, ...) return f:format(...) end
print(fmt("%d-%s-%q", 1, "two", "3"))
print(pcall(fmt, "%d %d", 1))
-- main chunk varargs are accessible from the main chunk only
local main_args = table.pack(...)
print(main_args.n, main_args[1], main_args[2], main_args[3])
