-- inproc.lua -- in-process loading: Lua's load() against the runtime's
-- loader, file by file, in one state (bench/load.sh).
--
--   LUA_CPATH=BUILD/lib/lua/5.N/?.so lua5.N inproc.lua LIST [ROUND]
--
-- Reads every file of LIST (one path a line) into memory, keeps Lua's own
-- load, then requires the luainstr module of the build, which replaces
-- load with the instrumenting loader (the one a host gets from
-- luainstr_open, luaprof, or the module: rewrite, compile, lift), and
-- starts the profiler as luaprof does.  For each file it times load of
-- the text with each, one right after the other; whichever goes second
-- finds the text in cache, so the order flips from file to file, and
-- with ROUND from round to round.  Files are loaded as lua5.N loads a
-- script: a BOM and a first line starting with `#` are skipped (the line
-- break stays); binary chunks and files Lua does not compile are left
-- out and counted.  os.clock() (CPU time of the process) times each load,
-- so time the machine gives to other jobs is not counted.  Prints
--
--   files=N bytes=B plain_s=S instr_s=S skipped=K
--
-- and exits 1 if a file that Lua compiles does not load instrumented.
local list, round = arg[1], tonumber(arg[2] or "0")
if not list then
  io.stderr:write("usage: lua inproc.lua LIST [ROUND]\n")
  os.exit(2)
end
local v51 = _VERSION == "Lua 5.1"
local plain = v51 and loadstring or load

local files = {}
for path in io.lines(list) do
  if path ~= "" then
    local f = assert(io.open(path, "rb"))
    local s = f:read("*a")   -- (5.3 and 5.4 take the "*" too)
    f:close()
    -- what luaL_loadfilex skips
    if s:sub(1, 3) == "\239\187\191" then s = s:sub(4) end
    if s:sub(1, 1) == "#" then s = s:gsub("^[^\n]*", "", 1) end
    files[#files + 1] = { name = "@" .. path, src = s }
  end
end

local li = require "luainstr"
local instr = v51 and loadstring or load
assert(instr ~= plain, "the luainstr module did not replace load")
li.start()

local function ld(f, s, name)
  if v51 then return f(s, name) end
  return f(s, name, "t")
end

local clock = os.clock
local n, bytes, tp, ti, skipped = 0, 0, 0, 0, 0
collectgarbage()
for i, f in ipairs(files) do
  if f.src:sub(1, 1) == "\27" or not plain(f.src, f.name) then
    skipped = skipped + 1
  else
    local a, b, c, okp, oki
    if (i + round) % 2 == 0 then
      a = clock(); okp = ld(plain, f.src, f.name)
      b = clock(); oki = ld(instr, f.src, f.name)
      c = clock(); tp = tp + (b - a); ti = ti + (c - b)
    else
      a = clock(); oki = ld(instr, f.src, f.name)
      b = clock(); okp = ld(plain, f.src, f.name)
      c = clock(); ti = ti + (b - a); tp = tp + (c - b)
    end
    if not oki then
      io.stderr:write("inproc.lua: ", f.name, " does not load instrumented\n")
      os.exit(1)
    end
    n, bytes = n + 1, bytes + #f.src
  end
end
print(string.format("files=%d bytes=%d plain_s=%.6f instr_s=%.6f skipped=%d",
                    n, bytes, tp, ti, skipped))
