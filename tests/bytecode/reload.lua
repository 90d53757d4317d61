-- reload.lua DUMP UPVALUE: load a dumped instrumented function and give it
-- a recording probe at UPVALUE as runtime/loader.c li_loaded_binary does
-- (on 5.2, with two upvalues and the probe second, upvalue 1 becomes the
-- globals, as lua_load would have set it without the probe); call it with
-- 1, 2, 3; print the probe's first event and what the call gave.
local file = assert(io.open(arg[1], "rb"))
local bin = file:read("*a")
file:close()
local up = tonumber(arg[2])
local f = assert((loadstring or load)(bin, "=reload"))
if _VERSION == "Lua 5.2" and up == 2 and debug.getupvalue(f, 3) == nil then
  debug.setupvalue(f, 1, _G)
end
local first
debug.setupvalue(f, up, function(id, ...)
  if first == nil then first = id and id > 0 and "entry " .. id or "exit" end
  return ...
end)
local ok, a = pcall(f, 1, 2, 3)
io.write(tostring(first), " ", ok and "returned" or "raised", " ", tostring(a), "\n")
