-- load() with a reader function: the reader is called exactly as lua5.4
-- calls it (not after the end of a binary chunk, not after a syntax
-- error), and the chunk it gives runs the same.
local function reader(pieces, limit)
  local i = 0
  return function()
    i = i + 1
    if i > limit then error("called past the end (call " .. i .. ")") end
    return pieces[i]
  end, function() return i end
end

-- a text chunk in pieces, ended by nil
local r, calls = reader({"local a, b = ...\n", "local function add(x, y) return x + y end\n",
                         "return add(a, b)"}, 10)
print(load(r, "=pieces")(2, 3), calls())

-- ended by an empty string: what follows is never read
r, calls = reader({"return 'first'", "", "error('not read')"}, 10)
print(load(r)(), calls())

-- a syntax error: Lua stops reading where it finds it
r, calls = reader({"local x = = 1\n", "more text\n", "and more\n"}, 10)
print(load(r, "=bad"))
print("calls", calls())

-- a binary chunk: Lua reads what the chunk needs and no more, so a reader
-- that never ends, or fails when called past the end, is fine
local f = load("local x = ... return x * 3")  -- (offline, not instrumented)
local d = string.dump(f)
local n = 0
local forever = function() n = n + 1 if n == 1 then return d end return "junk" end
print(load(forever, "=forever", "b")(5), n)
r, calls = reader({d:sub(1, 7), d:sub(8)}, 2)
print(load(r, "=exact")(7), calls())

-- errors from the reader and bad pieces
print(load(function() error("reader broke") end))
print(load(function() return {} end))
local k = 0
print(pcall(load, function() k = k + 1 if k == 1 then return "return 1" end return true end))

-- a binary chunk where text is wanted, and the reverse
r = reader({d}, 10)
print(load(r, "=b", "t"))
r = reader({"return 1"}, 10)
print(load(r, "=t", "b"))
