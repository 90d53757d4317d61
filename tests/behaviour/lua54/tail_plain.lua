-- Tail calls `return f(x)` must stay tail calls: 1,000,000 deep.
local N = 1000000

local function loop(n, acc)
  if n == 0 then return acc end
  return loop(n - 1, acc + 1)
end
print("local", loop(N, 0))

function gloop(n)
  if n == 0 then
    return "global done"
  end
  return gloop(n - 1)
end
print(gloop(N))

-- tail call with no arguments: the callee must see zero arguments
local count = 0
local function noargs(...)
  count = count + 1
  if select('#', ...) ~= 0 then error("got arguments: " .. select('#', ...)) end
  if count == N then return count end
  return noargs()
end
print("noargs", noargs())

-- tail call forwarding varargs with trailing nils
local function fwd(n, ...)
  if n == 0 then return select('#', ...), ... end
  return fwd(n - 1, ...)
end
print("fwd", fwd(N, 1, nil, 3, nil, nil))

-- tail call through a table field and an upvalue
local t = {}
function t.step(n) if n <= 0 then return "field done" end return t.step(n - 2) end
print(t.step(N))

-- tail call whose arguments are calls themselves
local function id(...) return ... end
local function nest(n) if n == 0 then return "nest done" end return nest(id(n) - 1) end
print(nest(N))

-- the callee sees exactly the arguments given
local function show(...) return table.concat({tostring(select('#', ...)), tostring((...))}, ",") end
local function a() return show(nil) end
local function b() return show(nil, nil) end
local function c() return show(id()) end
local function d() return show(id(1, 2, 3)) end
print(a(), b(), c(), d())
