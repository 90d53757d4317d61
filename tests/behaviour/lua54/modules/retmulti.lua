local function f(...) return select('#', ...), ... end
return f, "second", "third"
