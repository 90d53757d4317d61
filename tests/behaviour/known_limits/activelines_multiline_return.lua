-- differs: offline luaprof
-- A `return` whose values start on a later line: the exit probe's call is
-- on the `return` line, which was not active before.
local function f(a, b)
  return
    a + b
end
local lines = {}
for l in pairs(debug.getinfo(f, "L").activelines) do lines[#lines + 1] = l end
table.sort(lines)
print(table.concat(lines, " "))
