-- dump_top.lua SRC [strip] -- run by luajit: compile the file SRC, call
-- it, and write to stdout the string.dump of the function it returns
-- (stripped with a second argument "strip").  test_rewrite.c reads LuaJIT's
-- dumps through it.
local f = assert(loadfile(arg[1]))()
io.stdout:write(string.dump(f, arg[2] == "strip"))
