-- LuaJIT: real tail calls (a million deep, no stack growth), mutual and
-- method tail calls, tail calls of C functions and through pcall, deep
-- recursion up to LuaJIT's stack limit, and what tracebacks show of them.
local function count(n, acc)
  if n == 0 then return acc end
  return count(n - 1, acc + 1)
end
print(count(1000000, 0))

local is_even, is_odd
function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
print(is_even(300001), is_odd(300001))

local obj = {n = 0}
function obj:step(k)
  if k == 0 then return self.n end
  self.n = self.n + 1
  return self:step(k - 1)
end
print(obj:step(200000))

-- a tail call to a C function, and one to pcall
local function to_c(s) return string.upper(s) end
print(to_c("tail"))
local function to_pcall(f) return pcall(f) end
print(to_pcall(function() return "in pcall" end))
print(to_pcall(function() error("caught after tail", 0) end))

-- tail calls through varargs and select
local function va(n, ...)
  if n == 0 then return select("#", ...), ... end
  return va(n - 1, n, ...)
end
print(va(5))

-- deep (non-tail) recursion, then the stack overflow error, caught
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(10000))
local function forever(n) return 1 + forever(n + 1) end
local ok, e = pcall(forever, 1)
print(ok, (tostring(e):gsub("^.-:%d+: ", "")))
-- and the program goes on with a stack that shrank back
print(depth(5000))

-- what a traceback shows after tail calls
local function leaf() return debug.traceback("tb", 1) end
local function mid() return leaf() end
local function top() local s = mid() return s end
print(top())
