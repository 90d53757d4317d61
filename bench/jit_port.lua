-- jit_port.lua -- the LuaJIT form of a bench program written for Lua 5.4:
-- bench/run.sh --lua jit runs bench/programs/*.lua on LuaJIT through it,
-- so each program has one text and the LuaJIT runs do the same work.
--
--   luajit bench/jit_port.lua < PROGRAM.lua > PORT.lua
--
-- The programs use few of 5.3's additions, each in a simple form, and
-- each gets LuaJIT's own equivalent: `a // b` on plain operands becomes
-- math.floor(a / b) (what 5.4 computes for floats, and for the programs'
-- non-negative integers), the generator s * 1103515245 + 12345 mod 2^31
-- computed exactly in doubles, `(x) ~ 0xN` bit.bxor, `n << (e)` bit.lshift,
-- math.type, math.tointeger and utf8.char small local functions (LuaJIT
-- has one number type: an integral number counts as an integer).  The
-- shims go on the first line, in front of what it held, so the port keeps
-- the program's line numbers.  What the port misses shows at once: LuaJIT
-- cannot compile the result, and run.sh leaves the program out and says
-- so.  (Checked against lua5.4 by run.sh --quick: same checksums.)
local src = io.read("*a")

local shims = {
  ["li_mtype"] = "local function li_mtype(x) if type(x) ~= 'number' then return nil end "
    .. "return x == math.floor(x) and 'integer' or 'float' end ",
  ["li_mtoint"] = "local function li_mtoint(x) if type(x) == 'number' and x == math.floor(x) "
    .. "then return x end return nil end ",
  ["li_u8char"] = "local function li_u8char(c) local f, s = math.floor, string.char "
    .. "if c < 0x80 then return s(c) elseif c < 0x800 then return s(0xC0 + f(c / 64), 0x80 + c % 64) "
    .. "elseif c < 0x10000 then return s(0xE0 + f(c / 4096), 0x80 + f(c / 64) % 64, 0x80 + c % 64) end "
    .. "return s(0xF0 + f(c / 262144), 0x80 + f(c / 4096) % 64, 0x80 + f(c / 64) % 64, 0x80 + c % 64) end ",
}

-- (the programs' generator, ANSI C's rand: s * 1103515245 reaches 2^61,
-- past a double's 53 bits; split the multiplier, 0x41C6 * 65536 + 0x4E6D,
-- and every product stays exact below 2^47)
src = src:gsub("%(([%w_%.]+) %* 1103515245 %+ 12345%) %% 2147483648",
  "(%1 * 20077 + (%1 * 16838) %% 32768 * 65536 + 12345) %% 2147483648")
src = src:gsub("(%b()) ~ (0x%x+)", "bit.bxor(%1, %2)")
src = src:gsub("([%w_%.]+) << (%b())", "bit.lshift(%1, %2)")
src = src:gsub("([%w_%.]+) // ([%w_%.]+)", "math.floor(%1 / %2)")
src = src:gsub("math%.type%(", "li_mtype(")
src = src:gsub("math%.tointeger%(", "li_mtoint(")
src = src:gsub("utf8%.char%(", "li_u8char(")

local head = {}
for _, name in ipairs({ "li_mtype", "li_mtoint", "li_u8char" }) do
  if src:find(name .. "(", 1, true) then head[#head + 1] = shims[name] end
end
io.write(table.concat(head), src)
