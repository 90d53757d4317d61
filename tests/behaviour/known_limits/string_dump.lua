-- load(string.dump(f)) of a function with no upvalues of its own: once
-- instrumented, f has the probe as an upvalue, which is nil after load().
local function f(a, b)
  return a * b + 1
end
local g = load(string.dump(f))
print(g(6, 7))
local h = load(string.dump(f, true))
print(h(2, 3))
