-- loadcheck.lua ORIG OUT WORKDIR -- the Lua side of run_corpus.sh for one
-- file.  Loads ORIG and OUT as lua5.4 loads a script (loadfile: a BOM and a
-- `#` first line are skipped), and writes for luac, which skips neither:
--   WORKDIR/orig.lua, WORKDIR/out.lua  the two files, BOM and `#` line
--                                      blanked (same length, same lines)
--   WORKDIR/expected.err               what luainstr must print if ORIG
--                                      does not load
-- and prints three words: orig ok|fail, out ok|fail, same|differ.
local orig, out, dir = arg[1], arg[2], arg[3]

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- The bytes luaL_loadfilex drops, turned into spaces: the '\n' ending a
-- `#` line stays, so line numbers do not move.
local function blank_prefix(s)
  local n = s:sub(1, 3) == "\239\187\191" and 3 or 0
  if s:sub(n + 1, n + 1) == "#" then
    n = (s:find("\n", n + 1, true) or #s + 1) - 1
  end
  return (" "):rep(n) .. s:sub(n + 1)
end

local function spill(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

local words = {}
local function check(path, copy)
  local ok, err = loadfile(path)
  words[#words + 1] = ok and "ok" or "fail"
  spill(copy, blank_prefix(slurp(path)))
  return err
end

local err = check(orig, dir .. "/orig.lua")
spill(dir .. "/expected.err", err and "luainstr: " .. err .. "\n" or "")
local out_err = check(out, dir .. "/out.lua")
if out_err then spill(dir .. "/out.err", out_err .. "\n") end
words[#words + 1] = slurp(orig) == slurp(out) and "same" or "differ"
print(table.concat(words, " "))
