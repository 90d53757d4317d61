-- LuaJIT's lexical extras: 64-bit and imaginary numerals (FFI cdata),
-- hex floats, \x \z \u{} escapes, names holding bytes from 0x80 up.
local big, ubig = 123456789012345LL, 0x10ULL
print(big, ubig, big + 1, -9223372036854775807LL - 1, 0xffffffffffffffffULL)
print(tostring(12i), tostring(1.5i), 3LL * 2LL, 2ll, 7uLL)
print(0x1p4, 0x.8p1, 0xA.8p0, 1e+3, 1E-2, .5, 3., 0x10)
local function f(x) return x + 0x1P-2 end
print(f(1), type(1LL), type(1))
print("\x41\x62\u{48}\u{e9}\u{20AC}|\z
       joined", '\065\10x' == "A\nx")
local café, naïve = "café", {}
function naïve.größe(self) return #café end
local function ünïcode(...) return select('#', ...), naïve:größe() end
print(café, naïve.größe(naïve), ünïcode(1, nil, 3))
local 名前 = { 値 = 42 }
print(名前.値)
local s = [==[
long ]] ]=] string]==]
print(s, #s)
local ok, err = pcall(function() local ü = nil; return ü.x end)
print(ok, err)
-- numbers next to dots and names, as LuaJIT scans them
local t = {1, 2, 3}
print(#t..1, 1 ..2, 0x1 ..2, 2 .."e")
