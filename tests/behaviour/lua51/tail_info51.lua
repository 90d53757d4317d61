-- Lua 5.1 and later (and LuaJIT): what tail calls look like from inside:
-- debug.getinfo, tracebacks, tail calls to C functions and through pcall.
local function show(...)
  local t = {n = select('#', ...), ...}
  for i = 1, t.n do t[i] = tostring(t[i]) end
  print(table.concat(t, " | ", 1, t.n))
end

local function caller_info()
  local me = debug.getinfo(1, "nS")
  local up = debug.getinfo(2, "nSl")
  return tostring(me.name), me.what, up and up.what, up and up.currentline
end
local function plain() local a, b, c, d = caller_info() return a, b, c, d end
local function tail() return caller_info() end
show(plain())
show(tail())

local function tb() return debug.traceback("tb", 1) end
local function tb_tail(n) if n == 0 then return tb() end return tb_tail(n - 1) end
print(tb_tail(3))

-- tail calls to C functions and through pcall
local function to_c(...) return select('#', ...) end
local function to_print(...) return print(...) end
local function to_pcall(f, ...) return pcall(f, ...) end
show(to_c(1, nil, nil))
to_print("printed", "by", "a tail call")
show(to_pcall(error, "tail pcall", 0))
show(to_pcall(to_c, 1, 2))
show(to_pcall(tail))

-- tail calls through a metamethod and a method
local callable = setmetatable({}, {__call = function(self, x) return "called " .. x end})
local function to_callable(x) return callable(x) end
show(to_callable("y"))
local obj = {n = 0}
function obj:count(k) self.n = self.n + 1 if k == 0 then return self.n end return self:count(k - 1) end
show(obj:count(10))

-- a tail call in a coroutine body, and a coroutine's last yield
local co = coroutine.wrap(function(a)
  local function finish(x) return x * 2 end
  local b = coroutine.yield(a + 1)
  return finish(b)
end)
show(co(1), co(20))

-- the line reported for a tail call's error
local function bad(t) return t.field.missing end
local function via(t) return bad(t) end
show(pcall(via, {}))
