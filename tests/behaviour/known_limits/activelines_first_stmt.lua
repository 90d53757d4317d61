-- differs: offline luaprof
-- A function whose first statement makes no code on its own line (a local
-- function, a label): the entry probe makes that line active and gives the
-- line hook an extra event.
local function active(fn)
  local lines = {}
  for l in pairs(debug.getinfo(fn, "L").activelines) do lines[#lines + 1] = l end
  table.sort(lines)
  return table.concat(lines, " ")
end
local function nested()
  local function inner()
    return 1
  end
  return inner
end
local function labelled(n)
  ::top::
  if n > 0 then n = n - 1 goto top end
  return n
end
print(active(nested), active(labelled))
local seen = {}
debug.sethook(function(_, line)
  if debug.getinfo(2, "f").func == labelled then seen[#seen + 1] = line end
end, "l")
labelled(1)
debug.sethook()
print(table.concat(seen, " "))
