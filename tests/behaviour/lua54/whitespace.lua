-- Whitespace: tabs, vertical tabs, form feeds between tokens.
local	function	f(a)	returna*	2end
print(f(21))

local function g()
	return"g"
end
print(g(), debug.getinfo(g, "S").linedefined)
local t = {	1,2,3	}
print(#t)
error("after whitespace")
