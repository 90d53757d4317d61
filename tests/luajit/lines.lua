-- lines.lua ORIG OUT      -- run by luajit: does OUT (`luainstr --lua jit
-- lines.lua < PAIRS          ORIG`) compile wherever ORIG does, with the
-- same functions on the same lines?
-- Both are compiled by this luajit (as loadfile does: a BOM and a `#` first
-- line skipped) and their prototypes walked with jit.util, depth first in
-- the order the functions appear.  Each function of ORIG must be in OUT at
-- the same place with the same first and last line, and every line where
-- ORIG has code must hold code in OUT (probes add code only on lines of
-- their function).  The offline prologue's no-op factory (two functions on
-- line 1, the first that OUT's main chunk makes) is set aside.
-- With ORIG and OUT, prints one line and exits 1 on FAIL:
--   ok N          N functions compared
--   ok N same     the same, and OUT's bytes are ORIG's
--   rejected MSG  ORIG does not compile (OUT is not looked at)
--   FAIL MSG      anything else (a Lua error here too)
-- With no arguments, reads lines "ORIG<TAB>OUT" from stdin and prints one
-- such verdict a line for each, in order (a newline in a message printed
-- as \n), each pair checked on its own (pcall), so one bad file does not
-- stop the others; ORIG's chunk name is then its base name, as if run from
-- its folder (OUT's is OUT).  Exits 0 unless stdin has a malformed line.
local jutil = require("jit.util")

-- The prototype tree of f: { first, last, lines = set, kids = {...} }.
local function tree(f, depth)
  assert(depth < 250, "nesting")
  local fi = jutil.funcinfo(f)
  local t = { first = fi.linedefined, last = fi.lastlinedefined, lines = {}, kids = {} }
  for pc = 0, fi.bytecodes - 1 do
    local line = jutil.funcinfo(f, pc).currentline
    if line then t.lines[line] = true end
  end
  if fi.children then
    for n = -1, -1e9, -1 do
      local k = jutil.funck(f, n)
      if k == nil then break end
      if type(k) == "proto" then t.kids[#t.kids + 1] = tree(k, depth + 1) end
    end
  end
  return t
end

local count
local function compare(a, b, where)
  count = count + 1
  if a.first ~= b.first or a.last ~= b.last then
    return ("%s: lines %d-%d in, %d-%d out"):format(where, a.first, a.last, b.first, b.last)
  end
  for line in pairs(a.lines) do
    if not b.lines[line] then
      return ("%s (lines %d-%d): line %d has code in, none out"):format(where, a.first, a.last, line)
    end
  end
  if a.first > 0 then
    for line in pairs(b.lines) do
      if line < a.first or line > a.last then
        return ("%s: code on line %d, outside lines %d-%d"):format(where, line, a.first, a.last)
      end
    end
  end
  if #a.kids ~= #b.kids then
    return ("%s (lines %d-%d): %d functions in it, %d out"):format(where, a.first, a.last, #a.kids, #b.kids)
  end
  for i = 1, #a.kids do
    local why = compare(a.kids[i], b.kids[i], where .. "." .. i)
    if why then return why end
  end
end

-- loadfile(path) with the chunk name "@" .. name; also the file's bytes.
-- luajit's lexer skips a BOM and a `#` first line in any chunk, so load
-- compiles a file's bytes as loadfile does.
local function load_as(path, name)
  local f, err = io.open(path, "rb")
  if not f then return nil, "cannot open " .. err end
  local s = f:read("*a")
  f:close()
  if not s then return nil, "cannot read " .. name end
  local fn, err2 = load(s, "@" .. name)
  return fn, err2, s
end

-- The verdict on one pair, without its trailing newline.
local function check(orig, out, orig_name)
  local fo, err, so = load_as(orig, orig_name)
  if not fo then return "rejected " .. err end
  local fi, err2, si = load_as(out, out)
  if not fi then return "FAIL output does not compile: " .. err2 end
  local a, b = tree(fo, 0), tree(fi, 0)
  -- the prologue's factory: `function()return function(_,...)return ... end end`
  local k = b.kids[1]
  if #b.kids == #a.kids + 1 and k.first == 1 and k.last == 1 and #k.kids == 1 then
    table.remove(b.kids, 1)
  end
  count = 0
  local why = compare(a, b, "main")
  if why then return "FAIL " .. why end
  return "ok " .. count .. (so == si and " same" or "")
end

if arg[1] then
  local verdict = check(arg[1], arg[2], arg[1])
  print(verdict)
  if verdict:match("^FAIL") then os.exit(1) end
  return
end

io.stdout:setvbuf("line")  -- a crash leaves the verdicts before it
for line in io.lines() do
  local orig, out = line:match("^(.+)\t([^\t]+)$")  -- OUT has no tab
  if not orig then
    io.stderr:write("lines.lua: not ORIG<TAB>OUT: ", line, "\n")
    os.exit(2)
  end
  local ok, verdict = pcall(check, orig, out, orig:match("[^/]*$"))
  if not ok then verdict = "FAIL lines.lua: " .. tostring(verdict) end
  print((verdict:gsub("\n", "\\n")))
end
