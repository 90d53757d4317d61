-- Error messages must carry the same line numbers.
local function e1() error("plain") end
local function e2()
  local a = 1
  error("level one, line five")
end
local function e3() error("level two", 2) end
local function call_e3()
  e3()  -- line 9 is blamed
end
local function e4() error("level zero", 0) end
local function e5() error("level three", 3) end
local function mid5() e5() end
local function top5()
  mid5()  -- line 15 is blamed
end
local function e6() local t = nil; return t.field end
local function e7()
  local x
  return x + 1
end
local function e8(s) return s .. nil end
local function e9() return #nil end
local function e10() return {} < {} end
local function e11() return 1 < "x" end
local function e12() return -{} end
local function e13() local t = setmetatable({}, {__index = function(t, k) error("no key " .. k) end}) return t.abc end
local function e14() return ("x"):bad() end
local function e15() return 1 // 0 end
local function e16() return 1 % 0 end
local function e17() return math.tointeger(2^53) | 1.5 end
local function e18() return "abc" + 1 end
local function e19() for i = 1, 10, 0 do end end
local function e20() for i = "a", 2 do end end

for i, f in ipairs({e1, e2, call_e3, e4, top5, e6, e7, e8, e9, e10, e11, e12,
                    e13, e14, e15, e16, e17, e18, e19, e20}) do
  local ok, msg = pcall(f)
  print(i, ok, msg)
end

-- errors raised directly in the main chunk through pcall
print(pcall(error, "direct"))
print(pcall(error, "direct", 1))
print(pcall(error, "direct", 2))
print(select(2, pcall(function() error("anon") end)))
print(select(2, pcall(function()
  local t = {}
  t.x.y = 1
end)))
