-- LuaJIT: os.exit called inside nested coroutines, inside a pcall that
-- a yield crossed: the process ends at once with the status asked for,
-- the output written so far is flushed, and (the second argument true)
-- the state is closed first, so pending finalizers run.
io.stdout:setvbuf("full")
local proxy = newproxy(true)
getmetatable(proxy).__gc = function() print("finalizer of the proxy ran") end
local depth = 0
local function nest(n)
  depth = depth + 1
  if n == 0 then
    local ok = pcall(function()
      coroutine.yield("yield before exit")
      print("exiting from depth", depth)
      os.exit(3, true)
    end)
    print("not reached", ok)
  end
  local co = coroutine.wrap(nest)
  local v = co(n - 1)
  coroutine.yield(v)
  return co()
end
local top = coroutine.wrap(nest)
print(top(3))
print("resuming")
top()
print("not reached either")
