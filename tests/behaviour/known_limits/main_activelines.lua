-- differs: offline luaprof
-- Line 1 carries the prologue: a main chunk whose first line has no code
-- (this comment) gains line 1 in its activelines, and a line hook set
-- before the chunk runs sees a line-1 event.
local lines = {}
for l in pairs(debug.getinfo(1, "L").activelines) do lines[#lines + 1] = l end
table.sort(lines)
print(table.concat(lines, " "))
local chunk = load("-- nothing on line 1\nlocal x = 1\nreturn x", "=chunk")
local seen = {}
debug.sethook(function(_, line) seen[#seen + 1] = line end, "l")
chunk()
debug.sethook()
print(table.concat(seen, " "))
