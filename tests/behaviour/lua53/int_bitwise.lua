-- Lua 5.3: integers, floor division, bitwise operators.
print(7 // 2, 7.0 // 2, -7 // 2, 7 % -3, 7 / 2, 3 | 0, math.type(1), math.type(1.0))
print(5 & 3, 5 | 3, 5 ~ 3, ~5, 1 << 62, 1 << 63, 1 << 64, -1 >> 1, 2^53)
print(math.maxinteger + 1 == math.mininteger, math.mininteger // -1, 0x7fffffffffffffff, 0xffffffffffffffff)
print(math.tointeger(3.0), math.tointeger(3.5), 1 == 1.0, "10" + 1, "3" * "4", 10 // 3.0)
print(0x1p4, 0xA.8p0, 0x1e+1, 1e2, .5, string.format("%5.2f|%d|%x", 3.14159, 42, 255))
local function bits(n)
  local t = {}
  for i = 7, 0, -1 do t[#t + 1] = (n >> i) & 1 end
  return table.concat(t)
end
local function popcount(n) local c = 0 while n ~= 0 do n = n & (n - 1) c = c + 1 end return c end
print(bits(165), bits(~165 & 0xff), popcount(0xff00ff), popcount(-1))
print(pcall(function() return 1 // 0 end))
print(pcall(function() return 1 % 0 end))
print(pcall(function() return 1.5 | 0 end))
print(pcall(function() return "a" & 1 end))
print()
local function gcd(a, b) if b == 0 then return a end return gcd(b, a % b) end
print(gcd(1071, 462), gcd(2^40 | 0, 6))
error("int error " .. 7 // 2)
