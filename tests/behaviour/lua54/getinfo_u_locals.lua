-- debug.getinfo "u" (nparams, isvararg) and debug.getlocal inside functions.
-- (nups is deliberately not printed: the probe adds an upvalue.)
local function f0() end
local function f2(a, b) return a end
local function fv(a, ...) return a end
local function fv0(...) end
local t = {}
function t:m(x, y, z) end
for _, fn in ipairs({f0, f2, fv, fv0, t.m, print}) do
  local i = debug.getinfo(fn, "u")
  print(i.nparams, i.isvararg)
end
print(debug.getinfo(1, "u").isvararg, debug.getinfo(1, "u").nparams)

local function dumplocals(level)
  local out = {}
  local i = 1
  while true do
    local name, value = debug.getlocal(level + 1, i)
    if not name then break end
    if name ~= "(temporary)" then  -- in-flight values are not locals
      out[#out + 1] = name .. "=" .. tostring(value)
    end
    i = i + 1
  end
  local j = -1
  while true do
    local name, value = debug.getlocal(level + 1, j)
    if not name then break end
    out[#out + 1] = name .. "=" .. tostring(value)
    j = j - 1
  end
  return table.concat(out, " ")
end

local function params(a, b, c)
  print("entry", dumplocals(1))
  local x = a + b
  print("after x", dumplocals(1))
  do
    local inner = "in"
    print("in block", dumplocals(1))
  end
  local y <const> = "const"
  for k = 1, 1 do
    print("in loop", dumplocals(1))
  end
  print("end", dumplocals(1), y)
  return x
end
params(1, 2, "three")

local function va(p, ...)
  print("vararg", dumplocals(1))
  local q = p
  print("vararg2", dumplocals(1), q)
end
va("p", 10, nil, 30)
va()

-- parameter names of a function that is not running
local function names(fn)
  local out = {}
  local k = 1
  while true do
    local n = debug.getlocal(fn, k)
    if not n then break end
    out[#out + 1] = n
    k = k + 1
  end
  return table.concat(out, ",")
end
print(names(params), names(va), names(f0), "[" .. names(t.m) .. "]")

-- setlocal changes a local of the caller
local function setter() debug.setlocal(2, 1, "changed") end
local function holder()
  local v = "orig"
  setter()
  return v
end
print(holder())

-- getinfo "f" and "r"
local function self_ref() return debug.getinfo(1, "f").func end
print(self_ref() == self_ref)
local function caller_ref() return debug.getinfo(2, "f").func end
local function wrapper() return (caller_ref()) end
print(wrapper() == wrapper)
