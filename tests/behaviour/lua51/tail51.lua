-- Lua 5.1 / LuaJIT: tail calls stay tail calls, 1,000,000 deep.
local N = 1000000
local function loop(n, acc)
  if n == 0 then return acc end
  return loop(n - 1, acc + 1)
end
print(loop(N, 0))
local obj = {hits = 0}
function obj:m(n)
  self.hits = self.hits + 1
  if n == 0 then return self.hits end
  return self:m(n - 1)
end
print(obj:m(N))
local c = 0
local function sc(s) c = c + 1 if c >= N then return s, c end return sc"again" end
print(sc"start")
local function tc(t) if t.n == 0 then return "table call" end return tc{n = t.n - 1} end
print(tc{n = N})
local chain
local function mk() return chain end
function chain(n) if n == 0 then return "chained" end return mk()(n - 1) end
print(chain(N))
local is_even, is_odd
function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
print(is_even(N), is_odd(N))
local function noargs(...)
  c = c + 1
  if select('#', ...) ~= 0 then error("arguments appeared") end
  if c >= 2 * N then return "noargs" end
  return noargs()
end
print(noargs())
local function fwd(n, ...) if n == 0 then return select('#', ...), ... end return fwd(n - 1, ...) end
print(fwd(N, 1, nil, nil))
