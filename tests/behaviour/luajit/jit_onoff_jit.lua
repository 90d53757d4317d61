-- LuaJIT: code under jit.off() and jit.on(), jit.off(func) for one
-- function (and its nested ones with `true`), jit.flush, and chunks
-- loaded while the JIT is off: every result the same either way.
local function work(n)
  local s = 0
  for i = 1, n do s = s + (i % 7) * (i % 3) end
  return s
end
print("on", (jit.status()), work(100000))
jit.off()
print("off", (jit.status()), work(100000))
-- a chunk loaded while the JIT is off
local f = loadstring("local n = ... local s = 0 for i = 1, n do s = s + i end return s")
print("loaded off", f(10000))
jit.on()
print("on again", (jit.status()), work(100000), f(10000))

-- one function off, then its nested ones too
local function outer(n)
  local function inner(k) local s = 0 for i = 1, k do s = s + i % 5 end return s end
  local s = 0
  for i = 1, n do s = s + inner(50) end
  return s
end
jit.off(outer)
print("outer off", outer(2000))
jit.off(outer, true)
print("outer and inner off", outer(2000))
jit.on(outer, true)
print("back on", outer(2000))
jit.flush()
print("flushed", work(50000))

-- a chunk loaded while on, run while off, and the reverse
local g = loadstring("return function(n) local s = 1 for i = 1, n do s = (s * 31 + i) % 1000003 end return s end")()
jit.off()
print("g off", g(20000))
jit.on()
print("g on", g(20000))
-- jit.off inside a protected call that fails leaves the JIT off
print(pcall(function() jit.off() error("while turning off", 0) end))
print("after", (jit.status()))
jit.on()
print("on at the end", (jit.status()))
