-- Coroutines collected by a collection run near the C-call limit (nested
-- pcalls).  The profiler once gave each coroutine's stack a finalizer: run
-- there, it raised "C stack overflow" in the program (Lua 5.1) or failed
-- and never ran (5.2-5.4), leaving a freed stack linked (use after free).
local made = 0
local function spawn()
  for _ = 1, 50 do
    local co = coroutine.create(function() coroutine.yield() end)
    coroutine.resume(co)
    made = made + 1
  end
end
local function f(n)
  if n == 0 then
    spawn()
    collectgarbage()
    return true
  end
  local ok, e = pcall(f, n - 1)
  return ok and e, e
end
for d = 150, 200 do
  spawn()
  local ok, e = pcall(f, d)
  if not ok or e ~= true then print(d, ok, e) break end
end
collectgarbage()
collectgarbage()
spawn()
collectgarbage()
print("made", made)
