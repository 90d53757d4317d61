-- coroutine create/resume/yield/wrap/status/close/isyieldable/running.
local co = coroutine.create(function(a, b)
  print("start", a, b, coroutine.isyieldable(), coroutine.status(coroutine.running()))
  local c = coroutine.yield(a + b)
  print("got", c)
  local d, e = coroutine.yield(c * 2)
  print("got", d, e)
  return "finished", select('#', coroutine.yield())
end)
print(coroutine.status(co))
print(coroutine.resume(co, 1, 2))
print(coroutine.status(co))
print(coroutine.resume(co, 10))
print(coroutine.resume(co, "x", nil))
print(coroutine.resume(co, nil, nil, nil))
print(coroutine.status(co))
print(coroutine.resume(co))
print(coroutine.isyieldable(), select(2, coroutine.running()))

-- yields with varying numbers of values
local counts = coroutine.wrap(function(...)
  local args = table.pack(...)
  while true do
    args = table.pack(coroutine.yield(args.n, table.unpack(args, 1, args.n)))
  end
end)
print(counts())
print(counts(nil))
print(counts(nil, nil, 3))

-- status of the running and normal coroutines
local outer
outer = coroutine.create(function()
  local inner = coroutine.create(function()
    print("outer from inner:", coroutine.status(outer))
    coroutine.yield()
  end)
  coroutine.resume(inner)
  print("inner:", coroutine.status(inner))
  print(coroutine.close(inner), coroutine.status(inner))
end)
coroutine.resume(outer)
print(coroutine.status(outer))

-- resuming dead and running coroutines
print(coroutine.resume(outer))
print(coroutine.resume(coroutine.running()))
local w = coroutine.wrap(function() return 1 end)
print(w())
print(pcall(w))

-- a coroutine that tail calls and yields inside the tail-called function
local function yielder(n)
  if n == 0 then return coroutine.yield("deep") end
  return yielder(n - 1)
end
local tc = coroutine.create(function() return yielder(100000) end)
print(coroutine.resume(tc))
print(coroutine.resume(tc, "back", "again"))

-- a producer/consumer pipeline
local function producer()
  return coroutine.create(function()
    for i = 1, 4 do coroutine.yield("item" .. i) end
    return nil
  end)
end
local function filter(src)
  return coroutine.create(function()
    while true do
      local _, v = coroutine.resume(src)
      if v == nil then return nil end
      if v ~= "item2" then coroutine.yield(v:upper()) end
    end
  end)
end
local f = filter(producer())
while true do
  local _, v = coroutine.resume(f)
  if v == nil then break end
  print(v)
end
