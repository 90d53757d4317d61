-- Lua 5.3: the utf8 library and string.pack.
print(utf8.char(72, 228, 8364, 128512), utf8.len("häll€"), utf8.codepoint("€"))
print(utf8.len("\xff"), utf8.offset("a€b", 3), utf8.charpattern == "[\0-\x7F\xC2-\xF4][\x80-\xBF]*")
for p, c in utf8.codes("aé€") do io.write(p, ":", c, " ") end
print()
local function reverse_utf8(s)
  local cps = {}
  for _, c in utf8.codes(s) do table.insert(cps, 1, c) end
  return utf8.char(table.unpack(cps))
end
print(reverse_utf8("añb€"))
print(pcall(utf8.codepoint, "\xff"))
print("\u{48}\u{49}", #"\u{7FF}", #"\u{FFFF}")
local packed = string.pack("<i4 i8 z", 1, -2, "str")
print(#packed, string.unpack("<i4 i8 z", packed))
print(string.pack(">I2", 258):byte(1, -1))
print(pcall(string.pack, "i17", 1))
