-- Every local name a rewriter might pick, in every scope kind.
local P, LI, probe, __probe, _ = 1, 2, 3, 4, 5
local function f(P, ...)
  local LI <const> = P
  local function probe(x) return x + LI end
  for i = 1, 2 do
    local P = i
    local LI = LI + P
  end
  return probe(P), ...
end
print(f(10, "a", nil))
print(P, LI, probe, __probe, _)

-- shadowing P inside a block in the middle of a function that returns
local function mid(n)
  do
    local P = "shadow"
    if n == 1 then return P end
  end
  if n == 2 then
    local P = function() return "inner fn" end
    return P()
  end
  return P
end
print(mid(1), mid(2), mid(3))

-- P declared in the main chunk after functions that return
local function before() return "before" end
local P = "main P redeclared"
local function after() return P end
print(before(), after())

-- local function named like the probe
local function P(x) return "local fn P " .. x end
print(P("a"))
local function tailcallsP(x) return P(x) end
print(tailcallsP("b"))
