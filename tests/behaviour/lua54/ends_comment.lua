local function f() return "ends in a comment" end
print(f())
-- the last line is a comment without newline