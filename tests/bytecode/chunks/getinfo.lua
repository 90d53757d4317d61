-- What the main function says of itself.
local i = debug.getinfo(1, "Sl")
print(i.what, i.source, i.short_src, i.linedefined, i.lastlinedefined, i.currentline)
print(debug.traceback("tb", 1))
local function f() return debug.getinfo(2, "S").what end
print(f())
if true then return 1, 2 end
print("never")
