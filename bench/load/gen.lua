-- gen.lua -- the generated chunks of bench/load.sh, written to stdout.
--
--   lua gen.lua dense N     N small functions, each stored in a table as
--                           its own statement (about 70 bytes a function),
--                           none called (what is measured is loading; the
--                           probes' cost is bench/run.sh's): the function-dense chunk
--                           (N = 100000: about 7 MB); with N past the
--                           Lua's limit of functions in one function it is
--                           the chunk Lua rejects (N = 500000: 37 MB)
--   lua gen.lua tiny N      N empty functions in one table constructor
--                           (about 15 bytes each): the smallest chunk past
--                           the limit, for --quick
--   lua gen.lua reject N    the dense chunk with a `break` at its end,
--                           outside any loop: a chunk every Lua rejects
--                           after compiling all of it (5.1 at the break,
--                           5.2-5.4 and LuaJIT when the main function
--                           ends), which the rewriter's scan finds
--                           (LI_EREJECT) without rewriting it
--   lua gen.lua data N      a spreadsheet-style data file: one table
--                           constructor of N records with named fields
--                           (N = 215000: about 18 MB)
--
-- The output depends on nothing but the arguments (no math.random: its
-- sequence differs between Lua versions), and runs on Lua 5.1 to 5.4.
local kind, n = arg[1], tonumber(arg[2])
if not n or (kind ~= "dense" and kind ~= "tiny" and kind ~= "data" and kind ~= "reject") then
  io.stderr:write("usage: lua gen.lua dense|tiny|data|reject N\n")
  os.exit(2)
end
local out, buf = io.stdout, {}
local function put(s)
  buf[#buf + 1] = s
  if #buf == 4096 then out:write(table.concat(buf)); buf = {} end
end

if kind == "dense" or kind == "reject" then
  put("local t = {}\n")
  for i = 1, n do
    put(string.format("t[%d] = function(a) if a < 0 then return -a end return a + %d end\n", i, i))
  end
  put("print(#t)\n")
  if kind == "reject" then put("break\n") end
elseif kind == "tiny" then
  put("local t = {\n")
  for _ = 1, n do put("function() end,\n") end
  put("}\nprint(#t)\n")
else
  -- a linear congruential generator (Numerical Recipes' constants) in
  -- floats below 2^53, so every Lua computes the same values
  local x = 12345
  local function rnd(m) x = (1664525 * x + 1013904223) % 4294967296; return x % m end
  local words = { "bolt", "nut", "gear", "cam", "shaft", "spring", "valve", "pin" }
  put("return {\n")
  for i = 1, n do
    put(string.format('  { id = %d, name = "%s %d", price = %d.%02d, stock = %d, active = %s },\n',
      i, words[rnd(8) + 1], rnd(1000), rnd(500), rnd(100), rnd(10000), rnd(2) == 0 and "true" or "false"))
  end
  put("}\n")
end
out:write(table.concat(buf))
