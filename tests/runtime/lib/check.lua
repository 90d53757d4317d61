-- check.lua -- helpers of the runtime tests: load the profiler, run a case
-- file (a second chunk, so it is instrumented under the C module too),
-- read the csv report back, and compare its figures with known answers.
--
-- Times are compared within TOL_REL of the expected value or TOL_ABS_MS,
-- whichever is larger: the tests spin on the profiler-independent wall
-- clock (p.clock), so a busy machine lengthens both sides alike.
local p = require "luainstr"

local M = {p = p, failures = 0, TOL_REL = 0.05, TOL_ABS_MS = 0.5}

-- The Lua this runs on, as a number (5.1 .. 5.4): what the programs and
-- cases do differently on each is chosen by it.
M.lua = tonumber(_VERSION:match("%d+%.%d+"))
-- LuaJIT (its _VERSION is 5.1's), and what it has of 5.2: yields across
-- pcall, metamethods and iterators; xpcall's extra arguments
M.jit = rawget(_G, "jit") ~= nil
M.yields_across_c = M.lua >= 5.2 or M.jit
M.xpcall_args = M.lua >= 5.2 or M.jit

-- An object whose finalizer is fn: a table with __gc from Lua 5.2 on; on
-- 5.1, which finalizes only userdata, a newproxy userdata.
function M.finalized(fn)
  if M.lua < 5.2 then
    local u = newproxy(true)
    getmetatable(u).__gc = fn
    return u
  end
  return setmetatable({}, {__gc = fn})
end

M.dir = (arg and arg[0] and arg[0]:match("^(.*)/[^/]*$")) or "."
M.test = (arg and arg[0] and arg[0]:match("([^/]*)%.lua$")) or "?"
-- under luaprof the profiler is running before the script starts
M.under_luaprof = p.running()

function M.fail(fmt, ...)
  M.failures = M.failures + 1
  io.stderr:write(("FAIL %s: %s\n"):format(M.test, fmt:format(...)))
end

-- Start collecting unless luaprof already did.
function M.start()
  if not p.running() then
    local ok, err = p.start()
    if not ok then M.fail("p.start(): %s", tostring(err)); os.exit(1) end
  end
end

-- Run tests/runtime/cases/NAME.lua with the given arguments; returns what
-- it returns.  Rows of its functions are then found by M.row(name).
function M.case(name, ...)
  M.start()
  M.source = "cases/" .. name .. ".lua"
  local f, err = loadfile(M.dir .. "/" .. M.source)
  if not f then M.fail("cannot load case %s: %s", name, err); os.exit(1) end
  local t0 = p.clock()
  local function done(...)
    M.case_ns = p.clock() - t0
    return ...
  end
  return done(f(M, ...))
end

-- ---- csv (RFC 4180: quoted fields may hold ',', '""' and line breaks) ----

local function parse_csv(s)
  local rows, row, i, n = {}, {}, 1, #s
  while i <= n do
    local c = s:sub(i, i)
    if c == '"' then
      local buf = {}
      i = i + 1
      while true do
        local q = s:find('"', i, true)
        if not q then error("csv: unterminated quoted field") end
        buf[#buf + 1] = s:sub(i, q - 1)
        if s:sub(q + 1, q + 1) == '"' then buf[#buf + 1] = '"'; i = q + 2
        else i = q + 1; break end
      end
      row[#row + 1] = table.concat(buf)
    else
      local e = s:find("[,\n]", i) or n + 1
      row[#row + 1] = s:sub(i, e - 1)
      i = e
    end
    c = s:sub(i, i)
    if c == "," then i = i + 1
    elseif c == "\n" or c == "" then
      rows[#rows + 1] = row; row = {}; i = i + 1
    else error("csv: junk after a field at byte " .. i) end
  end
  return rows
end
M.parse_csv = parse_csv

local NUM = {line = 1, lastline = 1, calls = 1, total_ns = 1, self_ns = 1,
             min_ns = 1, max_ns = 1, errors = 1}

-- The profile now, as a list of rows keyed by column name.
function M.snapshot()
  local text, err = p.dump("csv")
  if not text then M.fail("p.dump('csv'): %s", tostring(err)); os.exit(1) end
  local rows = parse_csv(text)
  local head, out = table.remove(rows, 1), {}
  for _, r in ipairs(rows) do
    local t = {}
    for k, col in ipairs(head) do t[col] = NUM[col] and tonumber(r[k]) or r[k] end
    out[#out + 1] = t
  end
  M.rows = out
  return out, text
end

local function ends_with(s, tail) return s:sub(-#tail) == tail end

-- The row of the function called `name` in the current case (or in the
-- chunk whose source ends with `source`); a missing row fails the test.
function M.row(name, source)
  source = source or M.source
  local found
  for _, r in ipairs(M.rows or M.snapshot()) do
    if r.name == name and ends_with(r.source, source) then
      if found then M.fail("two rows for %q in %s", name, source) end
      found = r
    end
  end
  if not found then
    M.fail("no row for %q in %s", name, source)
    return {calls = -1, errors = -1, total_ns = -1, self_ns = -1,
            min_ns = -1, max_ns = -1}
  end
  return found
end

-- ---- assertions ---------------------------------------------------------

-- Every spin reports how far past its deadline it ended (the machine may
-- have run something else when the deadline passed), and how long it was
-- to spin (ms).  That overshoot is real time the profile must show; the
-- expected durations do not include it, so a time may exceed its
-- expectation by the overshoot seen so far.  So may it by the case's time
-- outside its spins (its wall time, measured by M.case, less what the
-- spins took): the few calls between the spins, which a busy machine can
-- stretch to tens of milliseconds (a preemption of the process between
-- two spins is wall time of every call open then).
M.slack_ns = 0
M.spun_ns = 0
function M.over(ns, ms)
  M.slack_ns = M.slack_ns + ns
  M.spun_ns = M.spun_ns + ns + (ms or 0) * 1e6
end

-- The case's time outside its spins (0 before it returned).
function M.between_ns()
  if not M.case_ns then return 0 end
  return math.max(0, M.case_ns - M.spun_ns)
end

-- `extra_ns` (optional) is more real time the case measured that the
-- figure may include.
function M.near_ms(what, got_ns, want_ms, extra_ns)
  local want = want_ms * 1e6
  local tol = math.max(want * M.TOL_REL, M.TOL_ABS_MS * 1e6)
  local slack = M.slack_ns + M.between_ns() + (extra_ns or 0)
  if got_ns - want > tol + slack or want - got_ns > tol then
    M.fail("%s: expected %.2f ms (-%.2f, +%.2f + %.3f overshoot and between spins), got %.3f ms",
           what, want_ms, tol / 1e6, tol / 1e6, slack / 1e6, got_ns / 1e6)
  end
end

function M.eq(what, got, want)
  if got ~= want then
    M.fail("%s: expected %s, got %s", what, tostring(want), tostring(got))
  end
end

function M.truthy(what, v)
  if not v then M.fail("%s", what) end
end

-- Check a function's row: any of calls, errors (exact), total, self,
-- min, max (ms, within the tolerance) given in `want`.
function M.fn(name, want, source)
  local r = M.row(name, source)
  if r.calls == -1 then return r end
  for _, k in ipairs {"calls", "errors"} do
    if want[k] then M.eq(name .. " " .. k, r[k], want[k]) end
  end
  for _, k in ipairs {"total", "self", "min", "max"} do
    if want[k] then M.near_ms(name .. " " .. k, r[k .. "_ns"], want[k]) end
  end
  return r
end

-- Report and exit: status 1 when anything failed.
function M.done()
  if M.failures > 0 then
    io.stderr:write(("%s: %d check(s) failed\n"):format(M.test, M.failures))
    os.exit(1)
  end
  print(M.test .. ": ok")
end

return M
