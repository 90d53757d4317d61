-- lines.lua ORIG OUT -- run by luajit: does OUT (`luainstr --lua jit ORIG`)
-- compile wherever ORIG does, with the same functions on the same lines?
-- Both are compiled by this luajit (loadfile: a `#` first line skipped)
-- and their prototypes walked with jit.util, depth first in the order the
-- functions appear.  Each function of ORIG must be in OUT at the same place
-- with the same first and last line, and every line where ORIG has code
-- must hold code in OUT (probes add code only on lines of their function).
-- The offline prologue's no-op factory (two functions on line 1, the
-- first that OUT's main chunk makes) is set aside.  Prints one line:
--   ok N          N functions compared
--   rejected MSG  ORIG does not compile (OUT is not looked at)
--   FAIL MSG      anything else; exit status 1
local jutil = require("jit.util")
local orig, out = arg[1], arg[2]

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

local count = 0
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

local fo, err = loadfile(orig)
if not fo then
  print("rejected " .. err)
  return
end
local fi, err2 = loadfile(out)
if not fi then
  print("FAIL output does not compile: " .. err2)
  os.exit(1)
end
local a, b = tree(fo, 0), tree(fi, 0)
-- the prologue's factory: `function()return function(_,...)return ... end end`
local k = b.kids[1]
if #b.kids == #a.kids + 1 and k.first == 1 and k.last == 1 and #k.kids == 1 then
  table.remove(b.kids, 1)
end
local why = compare(a, b, "main")
if why then
  print("FAIL " .. why)
  os.exit(1)
end
print("ok " .. count)
