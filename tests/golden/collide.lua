local __LI = "mine"
local __LI1 = "also mine"
local function f() return __LI .. __LI1 end
print(f())
