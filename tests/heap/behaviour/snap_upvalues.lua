-- Snapshots while upvalues are open (their variables still on a live
-- stack) and after they are closed; closures sharing an upvalue; values
-- changed after each snapshot are seen by every closure.
local ok, p = pcall(require, "luainstr")
if not ok then p = nil end
local n = 0
local function snap(opts)
  if not p then return end
  n = n + 1
  local r, err = p.snapshot("up" .. n .. ".heapsnapshot", opts)
  if not r then io.stderr:write("snapshot failed: ", tostring(err), "\n") end
end

local function counter()
  local count = 0
  local function inc() count = count + 1; return count end
  local function get() return count end
  snap()                        -- count is an open upvalue here
  inc()
  return inc, get
end
local inc, get = counter()
snap()                          -- now closed
inc(); inc()
print("count", get())

local fns = {}
for i = 1, 5 do
  local shared = { i }
  fns[i] = function(d) shared[1] = shared[1] + d; return shared[1] end
end
snap({ collect = true })
local out = {}
for i = 1, 5 do out[i] = fns[i](i) end
print(table.concat(out, " "))

local function chain(k)
  if k == 0 then return function() return 0 end end
  local nxt = chain(k - 1)
  return function() return 1 + nxt() end
end
local c = chain(50)
snap()
print("chain", c())
