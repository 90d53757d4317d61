-- hook.lua -- what tests/bytecode/run.sh runs before each program
-- (`lua -e "dofile'hook.lua'" P.lua`, the original and the lifted alike):
-- when the program's main function is called, log what debug.getinfo says
-- of it and, for a lifted chunk, do what the loader does (runtime/loader.c
-- give_probe): set the probe's upvalue and, on 5.2, upvalue 1 to the
-- globals.  The probe logs entries ("E id") and exits ("X").
-- Environment: LI_BC_LOG (the log file), LI_BC_CHUNK (the chunk name,
-- "@P.lua"), LI_BC_PROBE (the probe's upvalue; 0: leave it alone).
local log = assert(io.open(os.getenv("LI_BC_LOG"), "w"))
local chunk = os.getenv("LI_BC_CHUNK")
local up = tonumber(os.getenv("LI_BC_PROBE"))
local getinfo, getupvalue, setupvalue, sethook =
  debug.getinfo, debug.getupvalue, debug.setupvalue, debug.sethook
local getfenv, tostring, G = getfenv, tostring, _G

local function probe(id, ...)
  if id ~= nil and id > 0 then log:write("E ", id, "\n") else log:write("X\n") end
  return ...
end

local function describe(v)
  return v == nil and "nil" or v == G and "globals" or "other"
end

sethook(function()
  local i = getinfo(2, "Sf")
  if i == nil or i.source ~= chunk then return end
  sethook()
  log:write("I ", i.what, " ", i.linedefined, " ", i.lastlinedefined, " ",
            i.short_src, "\n")
  if up == 0 then return end
  log:write("U ", tostring((getupvalue(i.func, up))), "\n")
  log:write("N ", tostring((getupvalue(i.func, up + 1))), "\n")
  if up == 2 then
    local name, env = getupvalue(i.func, 1)
    log:write("ENV ", tostring(name), " ", describe(env), "\n")
    if env == nil then setupvalue(i.func, 1, G) end
  elseif getfenv then
    log:write("FENV ", describe(getfenv(i.func)), "\n")
  end
  setupvalue(i.func, up, probe)
end, "c")
