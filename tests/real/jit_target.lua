-- The program LuaJIT's own tools look at in tests/real/luajit_tools.sh:
-- jit.v and jit.dump watch its traces, jit.bcsave lists and saves its
-- bytecode.  Its loops are few, type-stable and free of table iteration
-- (whose order LuaJIT's string hash seed changes from run to run), so that
-- luajit compiles the same traces in every run.  Prints one checksum.
local ffi = require "ffi"
local bit = require "bit"

ffi.cdef [[
typedef struct { double x, y, vx, vy; } li_body_t;
]]

local n = 64
local bodies = ffi.new("li_body_t[?]", n)
for i = 0, n - 1 do
  local b = bodies[i]
  b.x, b.y = i, n - i
  b.vx, b.vy = 0.5, -0.25
end

-- A step of a toy simulation over the FFI array: field loads and stores
-- compile to plain memory accesses.
local function step(dt)
  for i = 0, n - 1 do
    local b = bodies[i]
    b.x = b.x + b.vx * dt
    b.y = b.y + b.vy * dt
    if b.y < 0 then b.vy = -b.vy end
  end
end

for _ = 1, 200 do step(0.01) end

-- A bit-operation hash of the positions, as integers.
local h = 0
for i = 0, n - 1 do
  local x = math.floor(bodies[i].x * 1000)
  h = bit.bxor(bit.rol(h, 5), x)
end
print(string.format("checksum %08x", h % 2^32))
