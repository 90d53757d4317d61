-- Backward gotos at the start of functions: bodies starting with a label.
local attempts = 0
local function flaky()
  attempts = attempts + 1
  if attempts < 3 then error("try again") end
  return "ok after " .. attempts
end

local function retry()
  ::top::
  local ok, r = pcall(flaky)
  if not ok then goto top end
  return r
end
print(retry())

local function countdown(n)
::again::
  if n > 0 then
    io.write(n, " ")
    n = n - 1
    goto again
  end
  print("liftoff")
end
countdown(5)

local function collatz(n)
  ::top:: local steps = (steps_acc or 0)
  if n == 1 then return "reached 1" end
  if n % 2 == 0 then n = n // 2 else n = 3 * n + 1 end
  goto top
end
print(collatz(27))

local function oneliner(n) ::l:: if n > 0 then n = n - 1 goto l end return n end
print(oneliner(10))

-- closures created in a goto loop capture fresh locals
local fns = {}
local function build()
  local i = 1
  ::loop::
  local captured = i * 100
  fns[#fns + 1] = function() return captured end
  i = i + 1
  if i <= 3 then goto loop end
end
build()
print(fns[1](), fns[2](), fns[3]())
