-- <const> locals, integer/float arithmetic, bitwise ops, numerals.
local K <const> = 10
local S <const> = "const string"
local F <const> = 2.5
local function usesconst(x) return x * K, S, F end
print(usesconst(3))
print(load("local x <const> = 1; x = 2", "=c"))

print(7 // 2, 7.0 // 2, -7 // 2, 7 // -2, 7 % 3, -7 % 3, 7 % -3, 7.5 % 2)
print(7 / 2, 8 / 2, 2^10, 2^0.5 == math.sqrt(2), 10 // 0.0, -10 // 0.0)
print(math.type(1), math.type(1.0), math.type("1"), math.type(2^53))
print(1 == 1.0, math.tointeger(3.0), math.tointeger(3.5), 3 | 0)
print(math.maxinteger + 1 == math.mininteger, math.mininteger // -1, math.maxinteger * 2)
print(5 & 3, 5 | 3, 5 ~ 3, ~5, 1 << 62, 1 << 63, 1 << 64, -1 >> 1, 3 << -1)
print(0xff, 0x7fffffffffffffff, 0xffffffffffffffff, 0x1p4, 0xA.8p0, 0x.1p4, 0x1e+1, 0x1E)
print(1e2, 1E-2, .5, 5., 3e0, 0x10p-1, 1 // 1, 100000000000000)
print(9007199254740993, 2^63, -2^63 == math.mininteger, 1e308 * 10, -(0/0) ~= -(0/0))
print(string.format("%.3f %5.1f %g %e %x %X %o %5d|%-5d|", 3.14159, 2.25, 1e20, 12345.678, 255, 255, 8, 42, 42))
print(string.format("%q", 1/3), string.format("%q", math.mininteger), string.format("%a", 1.0))
print(tostring(1e15), tostring(1e16), tostring(-0.0), tostring(0/0):gsub("-", ""), 2^53 + 1)
print("10" + 5, "3.5" * 2, "0x10" + 0, 10 .. 20, "1e1" // 1)
print(tonumber("  12  "), tonumber("12a"), tonumber("z", 36), tonumber("ff", 16), tonumber("1e1"), tonumber(""))
print(math.floor(3.7), math.ceil(3.2), math.floor(-3.5), math.fmod(7, 3), math.fmod(-7, 3), math.abs(math.mininteger))
print(math.max(1, 5, 3), math.min(2.5, 1), math.huge, -math.huge, math.pi)
print(8 // 3 * 3 + 8 % 3, 2^-1, -2^2, (-2)^2, not nil == true, 1 < 2 == true)
print(1 .. "", 1.0 .. "", -0.0 .. "", 1e100 .. "")
for i = 3, 1, -1 do io.write(i, " ") end
for i = 1.0, 2.0, 0.5 do io.write(i, " ") end
for i = math.maxinteger - 2, math.maxinteger do io.write(i - math.maxinteger, " ") end
print()
local x <const> = 1 << 4
print(x, ("%d"):format(x))
print(3 == 3.0000000000000001, 0.1 + 0.2 == 0.3, 0.1 + 0.2)
print(pcall(function() return 1 // 0 end))
print(pcall(function() return math.tointeger("8") end))
print(pcall(string.format, "%d", 3.5))
