-- `return f(a)(b)` and other call chains as tail calls.
local loop
local function mk() return loop end
function loop(n)
  if n == 0 then return "chain done" end
  return mk()(n - 1)
end
print(loop(1000000))

local function curry(a) return function(b) return function(c) return a + b * c end end end
local function use(x) return curry(x)(2)(3) end
print(use(1))

local t = {f = function() return {g = function(_, v) return v * 2 end} end}
local function deep(v) return t.f():g(v) end
print(deep(21))

local calls = 0
local function self_ret(...)
  calls = calls + 1
  if calls >= 1000000 then return calls, select('#', ...) end
  return self_ret(...)
end
local function chain() return (function() return self_ret end)()(1, nil) end
print(chain())

local function strs(s) return s end
local function sc() return (function() return strs end)()"sc" end
print(sc())
