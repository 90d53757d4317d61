-- os.exit(true) after unflushed output.
io.write("no newline before exit")
local function f() return os.exit(true) end
f()
