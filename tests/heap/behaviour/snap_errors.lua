-- Snapshots while errors are raised and caught: inside a pcall'd function
-- before it raises, inside an xpcall message handler (the error still
-- unwinding), with a table as the error object, inside a coroutine that
-- then dies by an error, and after each error is caught.
local ok, p = pcall(require, "luainstr")
if not ok then p = nil end
local n = 0
local function snap(opts)
  if not p then return end
  n = n + 1
  local r, err = p.snapshot("err" .. n .. ".heapsnapshot", opts)
  if not r then io.stderr:write("snapshot failed: ", tostring(err), "\n") end
end

local ok1, e1 = pcall(function()
  local local_state = { 1, 2, 3 }
  snap()
  error("plain " .. #local_state, 0)
end)
snap()
print(ok1, e1)

local ok2, e2 = xpcall(function() error({ code = 42 }) end,
  function(e)
    snap({ collect = true })
    return type(e) == "table" and e.code or e
  end)
print(ok2, e2)

local co = coroutine.create(function(a)
  snap()
  local b = coroutine.yield(a)
  snap()
  error({ b = b })
end)
print(coroutine.resume(co, 5))
local ok3, e3 = coroutine.resume(co, 6)
snap()
print(ok3, type(e3), e3.b, coroutine.status(co))

local function level(k)
  if k == 0 then snap(); error("deep", 0) end
  return level(k - 1)
end
for k = 1, 3 do
  local okk, ek = pcall(level, k * 10)
  print(k, okk, ek)
end
