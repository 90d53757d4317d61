-- Errors inside coroutines.
local co = coroutine.create(function(x)
  local function inner(y)
    if y > 1 then error("too big: " .. y) end
    return coroutine.yield(y)
  end
  inner(x)
  inner(x + 5)
end)
print(coroutine.resume(co, 1))
print(coroutine.resume(co))
print(coroutine.status(co))
print(debug.traceback(co))
print(coroutine.close(co))

local co2 = coroutine.create(function() error({code = 42}) end)
local ok, e = coroutine.resume(co2)
print(ok, type(e), e.code)

local co3 = coroutine.create(function() local t = nil return t.x end)
print(coroutine.resume(co3))
print(coroutine.close(co3))

-- wrap propagates errors with position information
local w = coroutine.wrap(function() error("wrapped error") end)
print(pcall(w))
local w2 = coroutine.wrap(function() error("no position", 0) end)
print(pcall(w2))
local w3 = coroutine.wrap(function() coroutine.yield(1) end)
w3() w3()
print(pcall(w3))

-- yield outside a coroutine
print(pcall(coroutine.yield, 1))
-- wrong arguments
print(pcall(coroutine.resume, 42))
print(pcall(coroutine.wrap, 42))

-- error in __close of a coroutine variable while closing
local co4 = coroutine.create(function()
  local v <close> = setmetatable({}, {__close = function() error("close error") end})
  coroutine.yield()
end)
coroutine.resume(co4)
print(coroutine.close(co4))

-- uncaught error from a coroutine.wrap at top level
local gen = coroutine.wrap(function()
  coroutine.yield("first")
  local n = nil
  return n + 1
end)
print(gen())
print(gen())
