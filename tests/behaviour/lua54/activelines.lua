-- debug.getinfo(f, "L").activelines must be the same (sorted).
local function active(fn)
  local lines = {}
  for l in pairs(debug.getinfo(fn, "L").activelines) do lines[#lines + 1] = l end
  table.sort(lines)
  return table.concat(lines, " ")
end

local function simple(a)
  local b = a * 2
  if b > 10 then
    b = b - 10
  end
  return b
end

local function noret(x)
  print(x)
end

local function empty()
end

local function oneline(x) return x + 1 end

local function loops(n)
  local s = 0
  for i = 1, n do
    s = s + i
  end
  while s > 10 do
    s = s - 10
  end
  repeat
    s = s + 1
  until s > 5
  return s
end

local function varargs(...)
  local n = select('#', ...)
  return n
end

local function tailer(n)
  if n == 0 then
    return "z"
  end
  return tailer(n - 1)
end

local function nested()
  local k = 1
  local function inner()
    return k
  end
  return inner
end

for _, fn in ipairs({simple, noret, empty, oneline, loops, varargs, tailer, nested, nested()}) do
  print(debug.getinfo(fn, "S").linedefined, active(fn))
end
print(active(function() end))
print(active(function() return 1 end))
print(simple(7), oneline(1), loops(4), varargs(1, 2), tailer(3))
