-- loadcheck.lua DIR FILE... -- the Lua side of run_corpus.sh, for a batch
-- of files in one lua5.4.  For the i-th FILE (i from 1), DIR/i.out is
-- luainstr's output.  Loads FILE and OUT as lua5.4 loads a script
-- (loadfile: a BOM and a `#` first line are skipped), and writes
--   DIR/i.expected.err  what luainstr must print, if FILE does not load
--   DIR/i.out.err       OUT's load error, if OUT does not load
--   DIR/i.orig.ranges,  if both load: the functions of FILE and of OUT,
--   DIR/i.out.ranges    "first,last" line each, in the order `luac5.4 -p
--                       -l` lists them (main first, then depth first as
--                       the functions appear), read from string.dump
-- and prints one line for each FILE, in order: three words, orig ok|fail,
-- out ok|fail, same|differ; or "error MSG" if this script failed on that
-- file (each file is checked on its own, with pcall).  Exits 0.
local dir = arg[1]

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function spill(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

-- The line ranges of fn's function and of all the functions in it, as
-- luac -l lists them: a stripped dump (ldump.c of Lua 5.4) keeps each
-- function's first and last line, and its functions follow its code,
-- constants and upvalues.
local function ranges(fn)
  local s = string.dump(fn, true)
  assert(s:sub(1, 6) == "\27LuaT\0", "not a Lua 5.4 dump")
  local isize, nint, nnum = s:byte(13, 15)
  local pos = 16 + nint + nnum + 1  -- after the header and main's upvalue count
  local function skip(n)
    pos = pos + n
    assert(pos <= #s + 1, "dump ends early")
  end
  local function byte()
    local b = s:byte(pos)
    skip(1)
    return b
  end
  local function size()  -- 7 bits a byte, most significant first, 0x80 ends
    local x, b = 0, nil
    repeat
      b = byte()
      x = x * 128 + b % 128
    until b >= 128
    return x
  end
  local function str() -- size + 1, bytes; 0 for none
    local n = size()
    if n > 0 then skip(n - 1) end
  end
  local out = {}
  local function func()
    str()  -- source (none: stripped)
    local first, last = size(), size()
    out[#out + 1] = first .. "," .. last
    skip(3)  -- numparams, is_vararg, maxstacksize
    skip(size() * isize)  -- code
    for _ = 1, size() do  -- constants: a type tag, a value
      local t = byte()
      if t == 3 then skip(nint)  -- integer
      elseif t == 19 then skip(nnum)  -- float
      elseif t == 4 or t == 20 then str()  -- short, long string
      else assert(t == 0 or t == 1 or t == 17, "constant of type " .. t) end
    end
    skip(size() * 3)  -- upvalues
    for _ = 1, size() do func() end  -- functions
    skip(size())  -- debug info, none when stripped: line info,
    for _ = 1, size() do size() size() end  -- absolute line info,
    for _ = 1, size() do str() size() size() end  -- local names,
    for _ = 1, size() do str() end  -- upvalue names
  end
  func()
  assert(pos == #s + 1, "dump not read to its end")
  return table.concat(out, "\n") .. "\n"
end

local function check(i, orig)
  local pre = dir .. "/" .. i
  local out = pre .. ".out"
  local fo, err = loadfile(orig)
  if not fo then spill(pre .. ".expected.err", "luainstr: " .. err .. "\n") end
  local fi, out_err = loadfile(out)
  if not fi then spill(pre .. ".out.err", out_err .. "\n") end
  if fo and fi then
    spill(pre .. ".orig.ranges", ranges(fo))
    spill(pre .. ".out.ranges", ranges(fi))
  end
  return (fo and "ok" or "fail") .. " " .. (fi and "ok" or "fail") .. " " ..
    (slurp(orig) == slurp(out) and "same" or "differ")
end

for i = 2, #arg do
  local ok, verdict = pcall(check, i - 1, arg[i])
  print(ok and verdict or "error " .. tostring(verdict):gsub("\n", " "))
end
