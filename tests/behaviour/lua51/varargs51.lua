-- Lua 5.1 / LuaJIT: varargs, select, unpack, `#`.
local function count(...) return select('#', ...) end
local function fwd(...) return count(...) end
print(count(), count(nil), count(nil, nil), fwd(1, nil, nil), fwd())
local function pack(...) return {n = select('#', ...), ...} end
local p = pack(1, nil, 3, nil)
print(p.n, p[1], p[3])
print(unpack({1, 2, 3}))
print(unpack({1, nil, 3}, 1, 3))
print(select(2, "a", "b", "c"), select(-1, "x", "y"))
local function addn(n, ...) if n == 0 then return ... end return addn(n - 1, n, ...) end
print(addn(5))
local function mixed(a, b, ...)
  local x, y = ...
  return a, b, x, y, select('#', ...)
end
print(mixed(1))
print(mixed(1, 2, 3, 4, 5))
print(#"abc", #{1, 2, 3}, #"")
local function middle(...) return ..., "last" end
print(middle(1, 2))
print(string.format("%d %s %5.2f", 1, "two", 3))
