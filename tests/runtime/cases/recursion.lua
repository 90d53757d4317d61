-- Recursion: inclusive time once per outermost activation.
local check = ...
local clock = check.p.clock

-- returns the wall time it took, from its call to its return
local function spin(ms)
  local t0 = clock()
  local t = t0 + ms * 1e6
  while clock() < t do end
  local t1 = clock()
  check.over(t1 - t, ms)
  return t1 - t0
end

local function fact(n)
  spin(5)
  if n <= 1 then return 1 end
  local r = n * fact(n - 1)          -- not a tail call: frames nest
  return r
end

-- the same with the spin inline: the time is fact2's self time
local function fact2(n)
  local t = clock() + 5e6 while clock() < t do end check.over(clock() - t, 5)
  if n <= 1 then return 1 end
  local r = n * fact2(n - 1)
  return r
end

-- mutual recursion
local even, odd
function even(n) spin(5); if n == 0 then return true end local r = odd(n - 1); return r end
function odd(n) spin(5); if n == 0 then return false end local r = even(n - 1); return r end

-- recursion unwound by an error at the bottom; the case measures the wall
-- time of the pcall outside the spins (the error's unwinding, and whatever
-- the machine did there), the most dive's self time may be
local spun = 0
local function dive(n) spun = spun + spin(5); if n == 0 then error("bottom") end dive(n - 1) end

-- recursion that crosses a coroutine: the inner activations run in their
-- own thread, so each thread has an outermost one
local function cofact(n)
  spin(5)
  if n == 2 then
    local co = coroutine.wrap(cofact)
    co(n - 1)
  elseif n > 1 then
    cofact(n - 1)
  end
end

assert(fact(5) == 120)
assert(fact2(5) == 120)
assert(even(3) == false)
local t0 = clock()
assert(not pcall(dive, 3))
local dive_outside = clock() - t0 - spun
cofact(3)
return {dive_outside_ns = dive_outside}
