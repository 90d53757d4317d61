-- Lua 5.1 / LuaJIT: strings, long brackets, comments, string-call syntax.
print("tab\there", "q\"uote", 'sq\'', "\65\066\067", "a\
b")
print([[
long]], [==[with ]] inside]==], #[[

x]])
--[==[ long comment
with ]] inside ]==] print("after comment")
--[[ x ]] print("after short long comment")
local s = "function end return local -- not a comment"
print(s)
print(("x"):rep(3), ("%d|%s"):format(5, "s"), ("abc"):upper())
local function f(x) return "<" .. x .. ">" end
print(f"str", f[[long]], f[==[lvl]==])
local function g(t) return #t end
print(g{1, 2, 3}, g{})
print(("key=val"):gsub("(%w+)=(%w+)", function(k, v) return v .. "=" .. k end))
for w in ("a bb ccc"):gmatch("%a+") do io.write("[", w, "]") end
print()
print(string.byte("A"), string.char(72, 105), ("hello"):find("ll"), ("hello"):sub(2, -2))
print(tostring(1e15), tostring(0.1), 10 / 4, 7 % 3, -7 % 3, 2 ^ 10, math.floor(-3.5))
print(tonumber("0x10"), tonumber("10", 2), tonumber("  5  "), tonumber("z"))
