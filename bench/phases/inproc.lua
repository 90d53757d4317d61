-- inproc.lua -- the phases of phases.lua against their truth in the same
-- process (bench/phases.sh --inproc): the chunk is loaded twice, as
-- "=phases-prof", which the profiler instruments, and as "=phases-plain",
-- which it is told to leave alone (luaprof --exclude phases-plain), each
-- with globals of its own; every round calls each phase of both copies in
-- turn (which copy first alternates from round to round), with a full
-- collection before each call.  The plain copy's coroutine and pcall
-- functions are Lua's own (the registry keeps them, luainstr.boundaries),
-- so its time is Lua's alone.  A truth measured beside the profiled figure,
-- seconds apart in the same process, is not moved by what moves between
-- processes on a shared machine (another moment's load, another binary's
-- speed), which the separate runs of phases.sh can only normalise.
--
--   luaprof --exclude phases-plain -f json -o R inproc.lua CLOCK_SO ROUNDS SCALE PHASES_LUA
--
-- Prints "plain KIND ROUND NS" and "prof KIND ROUND NS" a call (wall time
-- around it), then "checksum PLAIN PROF" (equal: the same work).

local clock_so, rounds, scale, src_path = arg[1], tonumber(arg[2] or 5), arg[3] or "1", arg[4]
assert(clock_so and src_path, "usage: inproc.lua CLOCK_SO ROUNDS SCALE PHASES_LUA")
local clock = assert(package.loadlib(clock_so, "luaopen_phaseclock"))()
local now = clock.now
local f = assert(io.open(src_path, "rb"))
local src = f:read("*a")
f:close()
local orig = debug.getregistry()["luainstr.boundaries"]

-- Globals of a copy: the real ones behind, its phases its own; rounds 0
-- (the copy only defines its phases), no output.
local function env_for(plain)
  local e = setmetatable({}, { __index = _G })
  e._G = e
  e.arg = { clock_so, "0", scale }
  e.print = function() end
  if plain and orig then                -- Lua's own, as in a plain run
    local co = {}
    for k, v in pairs(coroutine) do co[k] = v end
    co.resume, co.wrap, co.yield, co.close = orig[3], orig[4], orig[5], orig[6]
    e.coroutine = co
    e.pcall, e.xpcall = orig[1], orig[2]
  end
  return e
end

local function copy(name, plain)
  local e, fn = env_for(plain), nil
  if setfenv then
    fn = assert(loadstring(src, name))
    setfenv(fn, e)
  else
    fn = assert(load(src, name, "t", e))
  end
  fn()
  return e
end

local plain, prof = copy("=phases-plain", true), copy("=phases-prof", false)
local kinds = { "tiny", "nested", "recursion", "method", "closure", "nocall",
                "builtin", "medium", "coroutine" }
local M = 1000003
local sum = { plain = 0, prof = 0 }
local lines = {}

local function call(which, env, kind, r)
  local fn = env["phase_" .. kind]
  collectgarbage("collect")
  local t0 = now()
  local v = fn()
  local t1 = now()
  lines[#lines + 1] = string.format("%s %s %d %.0f", which, kind, r, t1 - t0)
  sum[which] = (sum[which] + v) % M
end

for r = 1, rounds do
  local n = #kinds
  for j = 1, n do
    local kind = kinds[(j - 1 + r - 1) % n + 1]
    if r % 2 == 1 then
      call("plain", plain, kind, r)
      call("prof", prof, kind, r)
    else
      call("prof", prof, kind, r)
      call("plain", plain, kind, r)
    end
  end
end
for i = 1, #lines do print(lines[i]) end
print(string.format("checksum %.0f %.0f", sum.plain, sum.prof))
