-- Lua 5.1 and later: an uncaught error after `debug` is gone.  lua5.1's
-- message handler calls the global debug.traceback, so the message comes
-- alone; later ones take the traceback from the C library.
debug = nil
local function f() error("no traceback in 5.1") end
f()
