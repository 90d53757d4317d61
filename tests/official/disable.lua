-- Disabling listed assertions in a copy of the official suite, and checking
-- afterwards that each of them still fails (run with a stock lua5.4).
--
--   lua5.4 disable.lua apply MODE DIR LIST...   > applied.tsv
--   lua5.4 disable.lua check APPLIED LOG FILE...
--   lua5.4 disable.lua check-pass APPLIED LOG FILE...
--
-- apply: every entry of the LIST files whose modes include MODE is
-- applied to DIR/FILE (see disabled.txt for the entry format and the
-- kinds); each output line is `ID<TAB>FILE<TAB>CLASS<TAB>LIST`.  An entry
-- whose text is not on its line exactly once stops everything (exit 1):
-- the suite or the list moved, and the list must be looked at.
--
-- check: for each applied entry of one of the FILEs (the files a run went
-- through), the LOG of that run must hold at least one FAIL of its ID.
-- Prints one line per entry: `failed ID ...` (as listed), `PASSES ID ...`
-- or `UNREACHED ID ...`; exits 1 if any entry passes or is unreached.
-- check-pass (mode self, a stock interpreter on the uninstrumented copy):
-- every entry that was evaluated must have passed every time.

local function die (fmt, ...)
  io.stderr:write("disable.lua: ", string.format(fmt, ...), "\n")
  os.exit(1)
end

local function trim (s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- FILE:LINE[-LAST] | MODES | CLASS | KIND | REASON | TEXT
local function parse_list (listname)
  local entries = {}
  local n = 0
  for raw in assert(io.lines(listname)) do
    n = n + 1
    if raw:find("%S") and not raw:find("^%s*#") then
      local f = {}
      local rest = raw
      for _ = 1, 5 do
        local a, b = rest:find(" | ", 1, true)
        if not a then die("%s:%d: expected 6 fields separated by ' | '", listname, n) end
        f[#f + 1] = trim(rest:sub(1, a - 1))
        rest = rest:sub(b + 1)
      end
      local text = rest:gsub("^ ", "")   -- exactly one space after the bar
      local file, first, last = f[1]:match("^([%w_%.]+):(%d+)%-?(%d*)$")
      if not file then die("%s:%d: bad location %q", listname, n, f[1]) end
      local modes = {}
      for m in f[2]:gmatch("[^,%s]+") do
        if m ~= "luaprof" and m ~= "offline" then
          die("%s:%d: unknown mode %q", listname, n, m)
        end
        modes[m] = true
      end
      local kind, rg, rn = f[4], f[4]:match("^restore%(([%w_]+),%s*(%d+)%)$")
      if rg then kind = "restore" end
      if kind ~= "call" and kind ~= "stmt" and kind ~= "hookstmt" and kind ~= "restore" then
        die("%s:%d: unknown kind %q (call, stmt, hookstmt, restore(F,N))", listname, n, f[4])
      end
      if f[5] == "" or text == "" then die("%s:%d: empty reason or text", listname, n) end
      entries[#entries + 1] = {
        file = file, line = tonumber(first),
        last = last ~= "" and tonumber(last) or tonumber(first),
        modes = modes, class = f[3], kind = kind, text = text,
        restore = rg and (rg .. ", " .. rn .. ", "),
        where = listname .. ":" .. n, list = listname:match("[^/]*$"),
      }
    end
  end
  return entries
end

local function read_lines (path)
  local fh = io.open(path, "rb") or die("cannot read %s", path)
  local s = fh:read("a")
  fh:close()
  local lines = {}
  for l in s:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  local tail = s:match("[^\n]*$")
  return lines, tail
end

local function write_lines (path, lines, tail)
  local fh = io.open(path, "wb") or die("cannot write %s", path)
  fh:write(table.concat(lines, "\n"), "\n", tail)
  fh:close()
end

-- The one place where an assertion is rewritten.
local function rewrite (e, id, lines)
  local line = lines[e.line]
  if not line then die("%s: %s has no line %d", e.where, e.file, e.line) end
  local a, b = line:find(e.text, 1, true)
  if not a or line:find(e.text, b + 1, true) then
    die("%s: the text is not exactly once on %s:%d (the suite or the list moved)\n  text: %s\n  line: %s",
        e.where, e.file, e.line, e.text, line)
  end
  local before, after = line:sub(1, a - 1), line:sub(b + 1)
  local call = string.format("__official_expect(%q, ", id)
  if e.kind == "hookstmt" then
    call = string.format("__official_expect_unhook(%q, ", id)
  elseif e.kind == "restore" then
    call = string.format("__official_expect_restore(%q, %s", id, e.restore)
  end
  if e.kind == "call" then
    -- NAME(ARGS): NAME is passed as the function, ARGS stay where they are.
    local name, args = e.text:match("^([%w_%.]+)%s*%((.*)%)$")
    if not name or not args:find("%S") then
      die("%s: a call entry's text must be NAME(ARGS)", e.where)
    end
    lines[e.line] = before .. call .. name .. ", " .. args .. ")" .. after
  else
    -- Whole statements (from the text to the end of line LAST) become the
    -- body of a function: still run, and an error in them is recorded.
    if e.last == e.line then
      lines[e.line] = before .. call .. "function () " .. e.text .. " end)" .. after
    else
      lines[e.line] = before .. call .. "function () " .. e.text .. after
      if not lines[e.last] then die("%s: %s has no line %d", e.where, e.file, e.last) end
      lines[e.last] = lines[e.last] .. " end)"
    end
  end
end

local function apply (mode, dir, lists)
  local byfile, order = {}, {}
  local dup = {}
  for _, listname in ipairs(lists) do
    for _, e in ipairs(parse_list(listname)) do
      -- mode "self": every entry once (the same text may be listed for
      -- both modes), to check that the rewriting itself changes nothing.
      local key = e.file .. ":" .. e.line .. ":" .. e.text
      if e.modes[mode] or (mode == "self" and not dup[key]) then
        dup[key] = true
        if not byfile[e.file] then byfile[e.file] = {}; order[#order + 1] = e.file end
        table.insert(byfile[e.file], e)
      end
    end
  end
  for _, file in ipairs(order) do
    local path = dir .. "/" .. file
    local lines, tail = read_lines(path)
    local seen = {}
    for _, e in ipairs(byfile[file]) do
      local id = file .. ":" .. e.line
      seen[id] = (seen[id] or 0) + 1
      if seen[id] > 1 then id = id .. "#" .. seen[id] end
      rewrite(e, id, lines)
      print(table.concat({id, file, e.class, e.list}, "\t"))
    end
    write_lines(path, lines, tail)
  end
end

local function check (applied, logname, files, want_pass)
  local wanted = {}
  for _, f in ipairs(files) do wanted[f] = true end
  local verdicts = {}
  local lf = io.open(logname, "r")
  if lf then
    for l in lf:lines() do
      local id, v, msg = l:match("^([^\t]*)\t([^\t]*)\t(.*)$")
      if id then
        local r = verdicts[id] or {pass = 0, fail = 0}
        verdicts[id] = r
        if v == "FAIL" then r.fail = r.fail + 1; r.msg = r.msg or msg
        else r.pass = r.pass + 1 end
      end
    end
    lf:close()
  end
  local bad = false
  for l in io.lines(applied) do
    local id, file, class, list = l:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)$")
    if id and wanted[file] then
      local r = verdicts[id]
      if want_pass then
        -- self mode: uninstrumented, every reached assertion must hold.
        if r and r.fail > 0 then
          bad = true
          print(string.format("FAILS     %-22s %-20s %s: fails uninstrumented (%s)", id, class, list, r.msg))
        elseif r then
          print(string.format("passed    %-22s %-20s %s", id, class, list))
        else
          bad = true
          print(string.format("UNREACHED %-22s %-20s %s: never evaluated", id, class, list))
        end
      elseif r and r.fail > 0 then
        print(string.format("failed    %-22s %-20s %s (%s)", id, class, list, r.msg))
      elseif r then
        bad = true
        print(string.format("PASSES    %-22s %-20s %s: remove it from the list", id, class, list))
      else
        bad = true
        print(string.format("UNREACHED %-22s %-20s %s: never evaluated", id, class, list))
      end
    end
  end
  os.exit(bad and 1 or 0)
end

local cmd = arg[1]
if cmd == "apply" and #arg >= 4 then
  apply(arg[2], arg[3], table.move(arg, 4, #arg, 1, {}))
elseif cmd == "check" and #arg >= 4 then
  check(arg[2], arg[3], table.move(arg, 4, #arg, 1, {}))
elseif cmd == "check-pass" and #arg >= 4 then
  check(arg[2], arg[3], table.move(arg, 4, #arg, 1, {}), true)
else
  die("usage: disable.lua apply MODE DIR LIST... | check APPLIED LOG FILE...")
end
