-- errors.lua -- errors through pcall, xpcall (with an instrumented
-- handler), error with tables, nested pcalls, errors raised by C functions
-- and metamethods, an error through coroutine.wrap.  Prints "calls LINE N"
-- and "errors LINE N", counted by the program (tests/jit/known.sh).
local N = setmetatable({}, {__index = function() return 0 end})
local E = setmetatable({}, {__index = function() return 0 end})

local function thrower(d)
  N[thrower] = N[thrower] + 1
  if d == 0 then error("boom") end
  return thrower(d - 1) + 1
end

local function handler(msg)
  N[handler] = N[handler] + 1
  return "handled: " .. tostring(msg)
end

local function table_error()
  N[table_error] = N[table_error] + 1
  error({code = 42})
end

local function c_error()
  N[c_error] = N[c_error] + 1
  local r = math.floor("x")                 -- a C function raises
  return r
end

local mt = {__index = function(t, k)
  N[mt.__index] = N[mt.__index] + 1
  error("no field " .. k)
end}

local function nested()
  N[nested] = N[nested] + 1
  local ok = pcall(thrower, 2)              -- caught inside: 3 errors
  E[thrower] = E[thrower] + 3
  thrower(1)                                -- then its own: 2 more, and nested
end

local function xp_body()
  N[xp_body] = N[xp_body] + 1
  local r = thrower(3)                      -- (not a tail call: it errors too)
  return r
end

local function wrapped(d)
  N[wrapped] = N[wrapped] + 1
  return thrower(d)                         -- a tail call: it ends first
end

local function recovers(n)
  N[recovers] = N[recovers] + 1
  local ok, e = pcall(thrower, n)
  E[thrower] = E[thrower] + n + 1
  return ok and 0 or 1
end

local s = 0
for d = 0, 4 do
  for _ = 1, 20 do
    local ok = pcall(thrower, d)
    E[thrower] = E[thrower] + d + 1
    s = s + (ok and 0 or 1)
  end
end
for _ = 1, 20 do
  local ok, m = xpcall(xp_body, handler)
  E[thrower] = E[thrower] + 4
  E[xp_body] = E[xp_body] + 1
  s = s + #m
end
for _ = 1, 20 do
  local ok, e = pcall(table_error)
  E[table_error] = E[table_error] + 1
  s = s + e.code
end
for _ = 1, 20 do
  local ok = pcall(c_error)
  E[c_error] = E[c_error] + 1
  s = s + (ok and 0 or 1)
end
for _ = 1, 20 do
  local ok = pcall(function() return setmetatable({}, mt).missing end)
  E[mt.__index] = E[mt.__index] + 1
  s = s + (ok and 0 or 1)
end
for _ = 1, 20 do
  local ok = pcall(nested)
  E[thrower] = E[thrower] + 2
  E[nested] = E[nested] + 1
  s = s + (ok and 0 or 1)
end
for i = 1, 20 do s = s + recovers(i % 4) end
for _ = 1, 20 do                            -- through coroutine.wrap
  local w = coroutine.wrap(wrapped)
  local ok = pcall(w, 2)
  E[thrower] = E[thrower] + 3
  s = s + (ok and 0 or 1)
end
print("checksum", s)
for f, c in pairs(N) do print("calls", debug.getinfo(f, "S").linedefined, c) end
for f, c in pairs(E) do print("errors", debug.getinfo(f, "S").linedefined, c) end
