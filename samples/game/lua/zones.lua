-- zones.lua: the profiler's zones when luainstr is there, no-ops otherwise
-- (plain lua5.4), so the systems run the same either way.  The module's
-- zones themselves do nothing while the profiler is not collecting.
--
--     Z.begin(name) ... Z.finish()          a span, ended explicitly
--     do local z <close> = Z.zone(name) ... end   ended with the block
--
-- Use them straight from the function that owns the span: a zone still
-- open when the Lua function that opened it returns is closed there, so a
-- Lua helper that called begin for you would close the zone on its own
-- return.  That is why these are the module's C functions (or no-ops),
-- never Lua wrappers.

local function noop() end

local ok, p = pcall(require, "luainstr")
if ok and type(p) == "table" and p.zone_begin and p.zone_end and p.zone then
  return { begin = p.zone_begin, finish = p.zone_end, zone = p.zone, on = true }
end
-- Z.zone returns nil, which a <close> variable accepts and ignores.
return { begin = noop, finish = noop, zone = noop, on = false }
