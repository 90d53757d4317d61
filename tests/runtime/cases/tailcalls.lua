-- Tail calls: the caller's frame ends where Lua's does.
local check = ...
local clock = check.p.clock

local function spin(ms)
  local t = clock() + ms * 1e6
  while clock() < t do end check.over(clock() - t, ms)
end

local function g() spin(10) end
local function f() spin(5) return g() end
local function h() f() end

-- a tail-recursive loop: activations follow each other, none nested
local function loop(n)
  spin(5)
  if n > 1 then return loop(n - 1) end
end

-- a method tail call and a tail call to a builtin
local obj = {}
function obj:m(ms) spin(ms) end
local function tm() spin(5) return obj:m(5) end
local function tb() spin(5) return select("#", 1, 2) end

-- a tail-called function that throws: the caller ended without an error
local function thrower() spin(5); error("tail") end
local function tcaller() spin(5) return thrower() end
local function tdriver() assert(not pcall(tcaller)) end

-- a tail call inside a coroutine, across a yield
local function ty() spin(5); coroutine.yield(); spin(5) end
local function tco() spin(5) return ty() end
local function tcodriver()
  local co = coroutine.create(tco)
  assert(coroutine.resume(co))
  spin(20)
  assert(coroutine.resume(co))
end

h()
loop(3)
tm()
assert(tb() == 2)
tdriver()
tcodriver()
return {h = h}
