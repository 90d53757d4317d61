-- <close> variables: order, with returns, errors, loops, goto and break.
local function closer(name)
  return setmetatable({}, {__close = function(_, err)
    print("close " .. name, err)
  end})
end

local function returns_values()
  local a <close> = closer("a")
  local b <close> = closer("b")
  return 1, nil, 3
end
print(select('#', returns_values()), returns_values())

local function returns_call()
  local c <close> = closer("c")
  return tostring(42)
end
print(returns_call())

local function errors()
  local d <close> = closer("d")
  error("inside errors")
end
print(pcall(errors))

local function nested_blocks(n)
  local outer <close> = closer("outer")
  for i = 1, n do
    local loop <close> = closer("loop " .. i)
    if i == 2 then break end
  end
  do
    local inner <close> = closer("inner")
    if n > 5 then return "early" end
  end
  return "late"
end
print(nested_blocks(3))
print(nested_blocks(9))

local function with_goto()
  local i = 0
  ::again::
  i = i + 1
  do
    local g <close> = closer("goto " .. i)
    if i < 3 then goto again end
  end
  return i
end
print(with_goto())

local function nilclose()
  local x <close> = nil
  local y <close> = false
  return "nil and false are fine"
end
print(nilclose())

print(pcall(function() local z <close> = {} end))

-- error in __close replaces the error
local function close_errors()
  local e <close> = setmetatable({}, {__close = function() error("close failed") end})
  error("original")
end
print(pcall(close_errors))

-- generic for closes its 4th value
local function iter()
  local i = 0
  return function() i = i + 1 if i <= 5 then return i end end, nil, nil, closer("iterator")
end
for i in iter() do
  if i == 2 then break end
  print("iter", i)
end

-- coroutine.close closes pending variables
local co = coroutine.create(function()
  local cv <close> = closer("coroutine var")
  coroutine.yield("yielded")
end)
print(coroutine.resume(co))
print(coroutine.close(co), coroutine.status(co))

-- tail position with a <close> variable is not a tail call: still closes
local function tail_like(n)
  local tv <close> = closer("tail " .. n)
  if n == 0 then return "bottom" end
  return tail_like(n - 1)
end
print(tail_like(2))

-- an uncaught error with a pending close variable in the main chunk
local m <close> = closer("main")
error("uncaught with close")
