-- Lua 5.1 and later: an error out of a coroutine.wrap function, uncaught:
-- wrap puts its caller's position before the message.
local gen = coroutine.wrap(function(n)
  for i = 1, n do coroutine.yield(i) end
  error("generator exhausted")
end)
local function consume()
  local total = 0
  for _ = 1, 5 do
    local v = gen(3)
    total = total + v
    print("got", v, total)
  end
end
consume()
