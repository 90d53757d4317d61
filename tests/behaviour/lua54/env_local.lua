-- Code running under a local _ENV must see only what it was given.
local print, tostring, pairs, table = print, tostring, pairs, table
do
  local _ENV = {print = print, x = 10}
  y = 20
  print("x", x, "y", y, "z", z)
  local function f(a)
    w = a
    return x + a
  end
  print(f(5), w)
  local function keys()
    local ks = {}
    for k in pairs(_ENV) do ks[#ks + 1] = k end
    table.sort(ks)
    return table.concat(ks, ",")
  end
  print(keys())
  local function tail(n) if n == 0 then return x end return tail(n - 1) end
  print(tail(100000))
end

local function sandboxed()
  local _ENV = setmetatable({}, {__index = function(_, k) return "<" .. k .. ">" end})
  return anything, other
end
print(sandboxed())

-- a function with _ENV as a parameter
local function with_env(_ENV, k)
  v = k
  return v, print == nil
end
local e = {}
print(with_env(e, 3))
print(e.v)

-- _ENV assigned later in a block
local function reassign()
  local r = {}
  do
    local _ENV = r
    created = 1
    ; (function() created2 = 2 end)()
  end
  return r.created, r.created2
end
print(reassign())
print(created, created2)

-- the global table and _ENV of the main chunk are the same
print(_ENV == _G, _G._G == _G)
-- uncaught error inside an environment without error()
local _ENV = {print = print}
print("last")
undefined_fn()
