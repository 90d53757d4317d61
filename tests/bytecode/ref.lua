-- ref.lua LIST OUT -- run by luajit for tests/bytecode/reference_jit.sh:
-- for each file named in LIST (one path a line) and a few generated
-- chunks, the dumps a lift must turn one into the other:
--   OUT/N.wrap  the text wrapped as the loader's form is without probes,
--               `local __LI = ...;return function(...) TEXT end` with the
--               `end` right after the last token (rewriter/rewrite.h)
--   OUT/N.ref   the text itself, compiled as the main function
-- under the same chunk name; OUT/N.wraps and N.refs the same stripped.
-- The lift of N.wrap must be N.ref byte for byte: the wrapper's inner
-- function made the main one is what LuaJIT compiles for the text, when
-- nothing refers to the probe (then the inner function has no upvalue).
-- Prints "N NAME" for each file written and "skip NAME WHY" for the others.
local list, out = arg[1], arg[2]

-- The text the loader compiles of a file: a first line starting with '#'
-- blanked up to its line break (runtime/loader.c li_load_filebytes).
local function loader_text(s)
  if s:sub(1, 1) == "#" then return s:gsub("^[^\n]*", "", 1) end
  return s
end

-- Where the last token ends, or nil where a comment may end the text (the
-- `end` would go into it, or after it on a later line).
local function last_token_end(s)
  local stop = #s:match("^(.-)%s*$")
  local line = s:sub(1, stop):match("[^\n]*$")
  if line:find("--", 1, true) or (line:find("^%s*%]=*%]") and s:find("--[", 1, true)) then
    return nil
  end
  return stop
end

local function write(path, data)
  local f = assert(io.open(path, "wb"))
  assert(f:write(data))
  assert(f:close())
end

local n = 0
local function one(name, chunkname, text)
  local stop = last_token_end(text)
  if stop == nil then print("skip " .. name .. " ends in a comment") return end
  local ref, why = loadstring(text, chunkname)
  if ref == nil then print("skip " .. name .. " " .. why) return end
  local wrap
  wrap, why = loadstring("local __LI = ...;return function(...) " .. text:sub(1, stop) ..
                         " end" .. text:sub(stop + 1), chunkname)
  if wrap == nil then print("skip " .. name .. " wrapped: " .. why) return end
  n = n + 1
  write(out .. "/" .. n .. ".wrap", string.dump(wrap))
  write(out .. "/" .. n .. ".ref", string.dump(ref))
  write(out .. "/" .. n .. ".wraps", string.dump(wrap, true))
  write(out .. "/" .. n .. ".refs", string.dump(ref, true))
  print(n .. " " .. name)
end

for path in assert(io.open(list)):lines() do
  local f = io.open(path, "rb")
  if f then
    local s = f:read("*a")
    f:close()
    one(path, "@" .. path, loader_text(s))
  else
    print("skip " .. path .. " unreadable")
  end
end

-- LuaJIT keeps a line in 1, 2 or 4 bytes by the number of lines of the
-- function (lj_parse.c fs_prep_line): the inner function's lines end at
-- its last token, the main function's at the end of the text, so a text
-- whose last lines are blank needs wider entries once lifted.
local function lines(k, code, blank)
  local t = {}
  for i = 1, code do t[i] = "x = " .. i + k end
  return table.concat(t, "\n") .. string.rep("\n", blank)
end
for i, c in ipairs({ {250, 10}, {255, 0}, {255, 1}, {256, 0}, {300, 0},
                     {65000, 600}, {65535, 1}, {66000, 0}, {3, 300}, {3, 70000} }) do
  one("generated " .. c[1] .. "+" .. c[2], "=gen" .. i, lines(i, c[1], c[2]))
  one("generated " .. c[1] .. "+" .. c[2] .. " in a function",
      "=genf" .. i, "local function f()\n" .. lines(i, c[1], 0) .. "\nend\nf()" ..
      string.rep("\n", c[2]))
end
one("generated #! line", "=genbang", loader_text("#!/usr/bin/luajit\nprint(1)\nreturn 2\n"))
one("generated cdata", "=genffi", "local a, b = 1LL, 2ULL\nreturn a + b, 3i\n")
one("generated empty", "=genempty", "")
one("generated varargs", "=genvar", "local a, b = ...\nreturn select('#', ...), a, b")
