-- debug.getinfo fields S and l for functions and the main chunk.
local function show(label, info)
  print(label, info.source, info.short_src, info.what, info.linedefined,
        info.lastlinedefined, info.currentline)
end
show("main", debug.getinfo(1, "Sl"))

local function f()
  show("f", debug.getinfo(1, "Sl"))
  show("f caller", debug.getinfo(2, "Sl"))
end
f()

local g = function(a,
                   b)
  local x = a
    + b
  show("g", debug.getinfo(1, "Sl"))
  return x
end
g(1, 2)

local function lines(fn)
  local i = debug.getinfo(fn, "S")
  return i.what .. " " .. i.linedefined .. "-" .. i.lastlinedefined .. " " .. i.short_src
end
print(lines(f), lines(g), lines(show), lines(print))
print(lines(function() end))
print(lines(function()
end))

local t = {}
function t.a() return debug.getinfo(1, "l").currentline end
function t:b()
  return debug.getinfo(1, "l").currentline,
         debug.getinfo(1, "l").currentline
end
print(t.a(), t:b())

local function cur() return debug.getinfo(2, "l").currentline end
print("called from", cur())
print("called from",
      cur())
local x = {
  cur(),
  cur(),
}
print(x[1], x[2])

print(debug.getinfo(print, "S").what, debug.getinfo(print, "S").short_src)
print(debug.getinfo(1, "S").what)
print(debug.getinfo(2, "S") and debug.getinfo(2, "S").what)
print(debug.getinfo(100))

-- function names seen from inside
local function named() local i = debug.getinfo(1, "n") return tostring(i.name) .. " " .. i.namewhat end
t.named = named
GN = named
print(named(), t.named(), GN(), t:named())
print((named()))
