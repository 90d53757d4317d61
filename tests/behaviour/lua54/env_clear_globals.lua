-- Every global is cleared; the program keeps running on saved locals.
local print, pairs, tostring, select = print, pairs, tostring, select
local concat, sort = table.concat, table.sort
local G = _G

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local function tail(n) if n == 0 then return "tail ok" end return tail(n - 1) end
local function va(...) return select('#', ...), ... end
local obj = {}
function obj:m(x) return x * 2 end

local names = {}
for k in pairs(G) do names[#names + 1] = k end
sort(names)
print(#names > 10)
for _, k in pairs(names) do G[k] = nil end

local left = {}
for k in pairs(G) do left[#left + 1] = tostring(k) end
print("globals left:", #left)

print(fib(15), tail(100000), va(nil, nil), obj:m(21))
local function closures()
  local n = 0
  return function() n = n + 1 return n end
end
local c = closures()
c() c()
print(c())
print("still fine")
-- now an error: the global 'error' is gone
error("unreachable")
