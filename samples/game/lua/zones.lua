-- zones.lua: the profiler's zones when the game runs under luainstr,
-- no-ops otherwise (plain lua5.4, or a host that did not start it), so
-- the systems run the same either way.
--
-- Call Z.begin / Z.finish straight from the function that owns the span:
-- a zone still open when the Lua function that opened it returns is closed
-- there, so a Lua helper that called begin for you would close the zone on
-- its own return.  Z.begin and Z.finish are the module's C functions (or
-- no-ops), never a Lua wrapper.

local function noop() end

local ok, p = pcall(require, "luainstr")
if ok and type(p) == "table" and p.zone_begin and p.zone_end
   and (p.running == nil or p.running()) then
  return { begin = p.zone_begin, finish = p.zone_end, on = true }
end
return { begin = noop, finish = noop, on = false }
