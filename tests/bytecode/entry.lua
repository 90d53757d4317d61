-- entry.lua LIFTED CHUNKNAME PROBE: load the lifted chunk of
-- chunks/nested.lua, give it a probe as the loader would, run it, and dump
-- each function it returns to NAME.bin (and, where string.dump can strip,
-- 5.3 on and LuaJIT, to NAME.s.bin); write "NAME UPVALUE" lines to the file manifest,
-- UPVALUE the one named like the rewriter's probe (tests/bytecode/run.sh).
local file = assert(io.open(arg[1], "rb"))
local bin = file:read("*a")
file:close()
local up = tonumber(arg[3])
local f = assert((loadstring or load)(bin, arg[2]))
if up == 2 and select(2, debug.getupvalue(f, 1)) == nil then
  debug.setupvalue(f, 1, _G)
end
debug.setupvalue(f, up, function(_, ...) return ... end)
local t = f()
local strips = jit ~= nil or (_VERSION ~= "Lua 5.1" and _VERSION ~= "Lua 5.2")
local manifest = assert(io.open("manifest", "w"))
local names = {}
for name in pairs(t) do names[#names + 1] = name end
table.sort(names)
for _, name in ipairs(names) do
  local fn, probe = t[name], 0
  for k = 1, 255 do
    local n = debug.getupvalue(fn, k)
    if n == nil then break end
    if string.find(n, "^__LI%d*$") then probe = k end
  end
  local out = assert(io.open(name .. ".bin", "wb"))
  out:write(string.dump(fn))
  out:close()
  if strips then
    out = assert(io.open(name .. ".s.bin", "wb"))
    out:write(string.dump(fn, true))
    out:close()
  end
  manifest:write(name, " ", probe, "\n")
end
manifest:close()
