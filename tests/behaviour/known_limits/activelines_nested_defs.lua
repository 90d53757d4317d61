-- differs: offline luaprof
-- More first statements that make no code on their own line, so that the
-- entry probe makes that line active: `return function ... end` spread
-- over lines, a function assignment whose value starts on a later line, and
-- a statement that opens with a long string spanning lines.
local function active(fn)
  local lines = {}
  for l in pairs(debug.getinfo(fn, "L").activelines) do lines[#lines + 1] = l end
  table.sort(lines)
  return table.concat(lines, " ")
end
local function returns_function()
  return function()
    return 1
  end
end
local t = {}
local function assigns()
  t.handler =
    function() return 2 end
end
local function long_string()
  local s = [[
first
second]]
  return s
end
print(active(returns_function))
print(active(assigns))
print(active(long_string))
