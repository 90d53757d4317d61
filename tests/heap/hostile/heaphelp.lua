-- heaphelp.lua -- what every hostile heap program uses to take a snapshot
-- (tests/heap/hostile/run.sh copies it beside the program).
--
-- Under luaprof (require "luainstr" works) and with LI_HEAP_DIR set,
-- H.snap(path, opts, expect, checks) takes a snapshot and writes what
-- happened to LI_HEAP_DIR/log, one line a snapshot, for run.sh to judge;
-- under the stock interpreter it does nothing.  Nothing it does shows in
-- the program's output, and it returns nothing, so a program never
-- behaves differently because a snapshot was taken or failed.
--   path    a name (written in LI_HEAP_DIR as NAME.heapsnapshot) or a path
--   opts    nil (p.snapshot(path) with one argument) or the options table
--   expect  "ok": must write a valid snapshot; "error": must return nil
--           and a message and leave no file; "any": either, or an error
--           raised (a bad argument), never a crash
--   checks  what run.sh's checker asserts of the file, {nodes_min = N,
--           weak_min = N, threads_min = N, udata_min = N, bigstring = N,
--           ...} (check_snapshot.py lists them)
-- The Lua heap's size (collectgarbage("count")) is read right before and
-- after p.snapshot, with nothing between but the call: run.sh fails a
-- snapshot without {collect = true} that changed it.
local ok, p = pcall(require, "luainstr")
local dir = os.getenv("LI_HEAP_DIR")
local H = { p = (ok and type(p) == "table" and dir ~= nil) and p or nil }
local log
if H.p then    -- (a line even when the program takes no snapshot: heaphelp ran)
  log = assert(io.open(dir .. "/log", "a"))
  log:write("start\t", dir, "\n")
  log:flush()
end

local function clean(s)
  if type(s) ~= "string" then return "(" .. type(s) .. ")" end
  return (string.gsub(s, "[%c]", " "))
end

local function checklist(checks)
  local t = {}
  for k, v in pairs(checks or {}) do
    t[#t + 1] = k .. "=" .. (type(v) == "number" and string.format("%.0f", v) or clean(v))
  end
  table.sort(t)
  return table.concat(t, ",")
end

-- (collectgarbage("count") is nil inside a finalizer on 5.4: "-" then)
local function bytes(kb)
  if type(kb) ~= "number" then return "-" end
  return string.format("%.0f", kb * 1024)
end

function H.path(name)
  if type(name) ~= "string" or string.find(name, "/", 1, true) or name == "" then
    return name
  end
  return dir .. "/" .. name .. ".heapsnapshot"
end

function H.snap(name, opts, expect, checks)
  if not H.p then return end
  local path = H.path(name)
  local snapshot = H.p.snapshot
  local collect = (type(opts) == "table" and opts.collect) and "1" or "0"
  local r, msg, result, g0, g1
  if expect == "any" then
    local pok
    if opts == nil then pok, r, msg = pcall(snapshot, path)
    else pok, r, msg = pcall(snapshot, path, opts) end
    if not pok then result, msg = "raise", r
    else result = r and "ok" or "err" end
    g0, g1 = 0, 0
  else
    local _ = type(path)       -- (a call at this depth: no CallInfo made below)
    if opts == nil then
      g0 = collectgarbage("count"); r, msg = snapshot(path); g1 = collectgarbage("count")
    else
      g0 = collectgarbage("count"); r, msg = snapshot(path, opts); g1 = collectgarbage("count")
    end
    result = r and "ok" or "err"
  end
  H.log(path, result, collect, expect, g0, g1, msg, checks)
end

-- One line of the log: a snapshot H.snap took, or one the program took
-- itself with p.snapshot (g0, g1: collectgarbage("count") right before
-- and after the call).
function H.log(path, result, collect, expect, g0, g1, msg, checks)
  -- (the file a C caller would write: the path up to a NUL byte)
  local file = type(path) == "string" and path or ""
  local nul = string.find(file, "\0", 1, true)
  if nul then file = string.sub(file, 1, nul - 1) end
  -- (fields separated by tabs, "-" for none: the shell's read skips empty ones)
  local checks_s = checklist(checks)
  local m = result == "ok" and "-" or clean(msg)
  if m == "" then m = "-" end
  log:write("snap\t", file == "" and "-" or clean(file), "\t", result, "\t", collect,
            "\t", expect or "ok", "\t", bytes(g0), "\t", bytes(g1), "\t",
            m, "\t", checks_s == "" and "-" or checks_s,
            "\n")
  log:flush()
end

-- Overwrites the 150 stack slots above the caller's locals with nil, so
-- that what a collection keeps does not depend on values left in dead
-- registers, which differ between a chunk and its instrumented copy
-- (Lua 5.1 marks its frames' whole stack, dead registers too).
local scrubber = (loadstring or load)("local " .. string.rep("a, ", 149) .. "a")
function H.scrub() scrubber() end

-- An environment variable run.sh sets, or nil (then the case is skipped).
function H.env(name)
  if not H.p then return nil end
  local v = os.getenv(name)
  if v == "" then return nil end
  return v
end

-- N scaled by LI_HOSTILE_SCALE (run.sh's environment; default 1), the
-- same under the stock interpreter and under luaprof, so that both runs
-- build the same heap: the suite runs the largest heaps (coroutines.lua,
-- deep_chain.lua) at full size on the main Lua only (tests/CMakeLists.txt).
function H.scaled(n)
  local s = tonumber(os.getenv("LI_HOSTILE_SCALE") or "") or 1
  return math.max(1, math.floor(n * s))
end

return H
