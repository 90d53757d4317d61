-- mixed.lua -- chunks of both probes calling each other: chunk A loaded and
-- run with the JIT off (under luaprofjit: the lua_CFunction probe), then
-- the JIT turned on and chunk B loaded (the FFI probe); recursion across
-- them, errors raised in one and caught in the other, a tail call from one
-- into the other.  Prints "calls CHUNK LINE N" and "errors CHUNK LINE N"
-- (tests/jit/known.sh) and, under luaprofjit, which probe each chunk got.
local N = setmetatable({}, {__index = function() return 0 end})
local E = setmetatable({}, {__index = function() return 0 end})

local template = [[
local N, E = ...
local SELF = {}
function SELF.down(n, OTHER)
  N[SELF.down] = N[SELF.down] + 1
  if n == 0 then return 0 end
  return 1 + OTHER.down(n - 1, SELF)
end
function SELF.boom(n, OTHER)
  N[SELF.boom] = N[SELF.boom] + 1
  if n == 0 then error("SELF") end
  return OTHER.boom(n - 1, SELF) + 1
end
function SELF.tail(n, OTHER)
  N[SELF.tail] = N[SELF.tail] + 1
  if n == 0 then return 0 end
  return OTHER.tail(n - 1, SELF)
end
return SELF
]]
local A_src = template:gsub("SELF", "A"):gsub("OTHER", "B")
local B_src = template:gsub("SELF", "B"):gsub("OTHER", "A")
local load = loadstring or load             -- (LuaJIT's load takes strings too)

if jit then jit.off() end
local A = assert(load(A_src, "=A"))(N, E)
if jit then jit.on() end
local B = assert(load(B_src, "=B"))(N, E)

local function probe_of(f)                  -- under luaprofjit: ffi or api
  local function upvalue(fn, pattern)
    for i = 1, 20 do
      local name, v = debug.getupvalue(fn, i)
      if name == nil then return nil end
      if name:match(pattern) then return v end
    end
  end
  local p = upvalue(f, "^__LI%d*$")
  if p == nil then return "none" end
  return type(upvalue(p, "^map$")) == "cdata" and "ffi" or "api"
end

local s = 0
for i = 1, 200 do s = s + A.down(i % 20, B) + B.down(i % 15, A) end
for d = 0, 9 do
  for _ = 1, 10 do
    local ok = pcall(A.boom, d, B)
    -- A.boom at depths 0, 2, 4...; B.boom at 1, 3, ...: d + 1 frames
    E[A.boom] = E[A.boom] + math.floor(d / 2) + 1
    E[B.boom] = E[B.boom] + math.floor((d + 1) / 2)
    s = s + (ok and 0 or 1)
  end
end
for i = 1, 100 do s = s + A.tail(i, B) + B.tail(i, A) end
print("checksum", s)
for f, c in pairs(N) do
  local i = debug.getinfo(f, "S")
  print("calls", i.source, i.linedefined, c)
end
for f, c in pairs(E) do
  local i = debug.getinfo(f, "S")
  print("errors", i.source, i.linedefined, c)
end
if ("").__luainstr then
  print("probe A", probe_of(A.down), "probe B", probe_of(B.down))
end
