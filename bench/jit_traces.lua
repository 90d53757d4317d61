-- bench/jit_traces.lua -- LuaJIT's trace events in one run of a program:
-- traces started, completed, aborted (by reason) and the places the JIT
-- blacklisted, counted through jit.attach.
--
--   luajit bench/jit_traces.lua [-o FILE] PROGRAM [ARGS...]
--   luaprofjit -o /dev/null --exclude '*jit_traces.lua' \
--     bench/jit_traces.lua [-o FILE] PROGRAM [ARGS...]
--
-- The program is loaded with loadfile and run with ARGS (and `arg` as lua.c
-- makes it), so under luaprofjit it is instrumented as any script is.  The
-- counts go to FILE (default stderr), one "key count" a line:
--   started N      trace recordings begun (root and side traces)
--   completed N    recordings that became a trace
--   aborted N      recordings abandoned
--   abort N REASON ... by reason (LuaJIT's message, its %s filled)
--   blacklisted N  start places (loop, function) the JIT gave up on: their
--                  bytecode became ILOOP, IFORL, IITERL, IFUNCF or IFUNCV
--   flushed N      whole-cache flushes
--   probe_started N, probe_completed N  the part of started/completed
--                  whose recording began in the FFI probe's metamethod
--                  (chunk "=luainstr ffi probe"): under luaprofjit a side
--                  trace may start at a return the probe makes
-- bench/jit_traces.sh compares a plain run with one under luaprofjit.

local jit = require("jit")
local jutil = require("jit.util")
local vmdef = require("jit.vmdef")

local out_path
local argv = {...}
if argv[1] == "-o" then
  out_path = argv[2]
  table.remove(argv, 1)
  table.remove(argv, 1)
end
local prog = argv[1]
if not prog then
  io.stderr:write("usage: jit_traces.lua [-o FILE] PROGRAM [ARGS...]\n")
  os.exit(2)
end

local own = debug.getinfo(1, "S").source
local counts = {started = 0, completed = 0, aborted = 0, flushed = 0,
                probe_started = 0, probe_completed = 0}
local reasons = {}
local starts = {}        -- trace number -> {func, pc, probe} while recording
local places = {}        -- "func pc" of a root trace's start with an abort
local place_fn = {}

local function source_of(func)
  local fi = jutil.funcinfo(func)
  return fi.source or "?"
end

-- An abort's message: LuaJIT's text with its argument filled in (as jit.v
-- writes it: a function argument by its place).
local function reason(code, info)
  local text = vmdef.traceerr[code] or ("error " .. tostring(code))
  if type(info) == "function" then
    local fi = jutil.funcinfo(info)
    info = fi.loc or (fi.ffid and vmdef.ffnames[fi.ffid]) or "?"
  elseif type(info) == "number" and text:find("%%s") then
    -- (a bytecode for "NYI: bytecode %s")
    info = vmdef.bcnames:sub(info * 6 + 1, info * 6 + 6):gsub(" +$", "")
  end
  if text:find("%%") then
    local ok, s = pcall(string.format, text, info)
    if ok then text = s end
  end
  return text
end

local function on_trace(what, tr, func, pc, otr, oex)
  if what == "start" then
    local src = source_of(func)
    if src == own then return end
    local probe = src == "=luainstr ffi probe"
    starts[tr] = {func = func, pc = pc, probe = probe, side = otr ~= nil}
    counts.started = counts.started + 1
    if probe then counts.probe_started = counts.probe_started + 1 end
  elseif what == "stop" then
    local s = starts[tr]
    if s then
      counts.completed = counts.completed + 1
      if s.probe then counts.probe_completed = counts.probe_completed + 1 end
      starts[tr] = nil
    end
  elseif what == "abort" then
    local s = starts[tr]
    if s then
      counts.aborted = counts.aborted + 1
      local r = reason(otr, oex)
      reasons[r] = (reasons[r] or 0) + 1
      if not s.side then
        local key = tostring(s.func) .. " " .. s.pc
        places[key] = s.pc
        place_fn[key] = s.func
      end
      starts[tr] = nil
    end
  elseif what == "flush" then
    counts.flushed = counts.flushed + 1
  end
end

-- A place is blacklisted when its starting bytecode was patched to its
-- I-variant (lj_trace.c penalty_pc: the JIT never tries it again).
local blacklist_ops = {ILOOP = true, IFORL = true, IITERL = true,
                       IFUNCF = true, IFUNCV = true}
local function blacklisted()
  local n = 0
  for key, pc in pairs(places) do
    local ins = jutil.funcbc(place_fn[key], pc)
    if ins then
      local op = ins % 256
      local name = vmdef.bcnames:sub(op * 6 + 1, op * 6 + 6):gsub(" +$", "")
      if blacklist_ops[name] then n = n + 1 end
    end
  end
  return n
end

local function report()
  local f = out_path and assert(io.open(out_path, "w")) or io.stderr
  for _, k in ipairs{"started", "completed", "aborted"} do
    f:write(k, " ", counts[k], "\n")
  end
  local list = {}
  for r, n in pairs(reasons) do list[#list + 1] = {r, n} end
  table.sort(list, function(a, b) return a[2] > b[2] or (a[2] == b[2] and a[1] < b[1]) end)
  for _, e in ipairs(list) do f:write("abort ", e[2], " ", e[1], "\n") end
  f:write("blacklisted ", blacklisted(), "\n")
  f:write("flushed ", counts.flushed, "\n")
  f:write("probe_started ", counts.probe_started, "\n")
  f:write("probe_completed ", counts.probe_completed, "\n")
  if f ~= io.stderr then f:close() end
end

local chunk = assert(loadfile(prog))
local args = {}
for i = 2, #argv do args[i - 1] = argv[i] end
arg = {[0] = prog}
for i, a in ipairs(args) do arg[i] = a end
-- (a program that ends with os.exit still reports)
local exit = os.exit
os.exit = function(...)
  jit.attach(on_trace)
  report()
  return exit(...)
end
jit.attach(on_trace, "trace")
local ok, err = pcall(chunk, unpack(args))
jit.attach(on_trace)
os.exit = exit
report()
if not ok then
  io.stderr:write("jit_traces.lua: ", prog, ": ", tostring(err), "\n")
  os.exit(1)
end
