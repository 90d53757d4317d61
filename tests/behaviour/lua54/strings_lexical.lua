-- String escapes, long strings and comments, keywords inside strings.
print("tab\there", "nl\\n", "quote\"s", 'single\'s', "bell\a" == "bell\7")
print("\x41\x42\x43", "\65\066\0677", "\u{48}\u{49}", "\u{20AC}", #"\u{7FFFFFFF}")
print("a\z
       b", "c\z   d", #"\0\00\000", ("\0x"):byte(1, -1))
print([[
first newline skipped]], [==[with ]] inside]==], [=[
]=] .. "|")
print(#[[

two]])
--[==[ a long comment with ]] and --[[ nested-looking ]] text
end return function
]==] print("after long comment")
--[[]] print("after empty long comment")
---[[ not a long comment
print("line comment trick")
--]]
local s = "function end return local goto :: -- not a comment"
print(s)
local t = {["end"] = 1, ["return"] = 2, ["function"] = 3}
print(t["end"], t["return"], t["function"])
local code = [[
local function f() return 1 end
return f()
]]
print(load(code)())
print('--[[', ']]', "[[", "]=]")
print(("x"):rep(3, "\n"))
local esc = "\\\"\'\r\n\t\v\f\b\a"
print(#esc, esc:byte(1, -1))
print(("%q"):format("a\nb\0c\"d\\"))
print(("%s|%10s|%-10s|"):format("s", "right", "left"))
print(("hello world"):find("o w"), ("hello"):match("(h)(e)"), ("abc"):gsub("%w", "%0%0"))
print(("  trim  "):match("^%s*(.-)%s*$") .. "|", ("a,b,,c"):gsub(",", ";"))
print(("key=value; k2=v2"):gsub("(%w+)=(%w+)", function(k, v) return v .. "=" .. k end))
for w in ("one two  three"):gmatch("%a+") do io.write("[", w, "]") end
print()
print(("abc"):byte(-1), string.char(72, 105), ("ABC"):lower(), ("abc"):reverse(), ("abc"):sub(2), ("abc"):sub(-2, -2))
print(utf8.char(72, 228, 8364, 128512), utf8.len("häll€"), utf8.codepoint("€"), utf8.len("\xff"))
for p, c in utf8.codes("aé€") do io.write(p, ":", c, " ") end
print()
print(#"\u{10FFFF}", utf8.charpattern)
print(string.pack and #string.pack("i4", 7), string.unpack("<i2", "\1\2"))
