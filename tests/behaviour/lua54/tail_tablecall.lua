-- `return f{...}` must stay a tail call.
local function walk(t)
  if t.n == 0 then return t.tag, t.n end
  return walk{n = t.n - 1, tag = t.tag}
end
print(walk{n = 1000000, tag = "walked"})

local function sum(t)
  local s = 0
  for i = 1, #t do s = s + t[i] end
  return s
end
local function mk(a, b) return sum{a, b, a * b} end
print(mk(3, 4))

local M = {}
function M.f(t) return #t end
function M:g(t) return self == M and #t end
local function k1() return M.f{1, 2, 3} end
local function k2() return M:g{1, 2} end
print(k1(), k2())
