-- Include and exclude globs (option "include", "exclude"): a chunk loaded
-- is instrumented when its name (without its '@' or '=') matches an
-- include glob, or none is set, and no exclude glob; option
-- "clear_patterns" drops them.  Chunks are loaded by every loader: load,
-- loadstring (5.1), loadfile, require.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"
local p = check.p
check.start()

local loadstring = check.lua >= 5.2 and load or loadstring
local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -p " .. tmp .. "/game/vendor"))

-- a chunk named NAME that defines `local function fn` and calls it twice
local function source(fn) return ("local function %s() end %s() %s()"):format(fn, fn, fn) end
local function by_string(name, fn) assert(loadstring(source(fn), "=" .. name))() end
local function by_file(path, fn)
  local f = assert(io.open(tmp .. "/" .. path, "w"))
  f:write(source(fn))
  f:close()
  assert(loadfile(tmp .. "/" .. path))()
end

-- the rows of the profile by function name
local function rows()
  local byname = {}
  for _, r in ipairs(check.snapshot()) do byname[r.name] = r end
  return byname
end
local function expect(byname, fn, calls)
  local r = byname["local " .. fn]
  check.eq(fn .. ": calls", r and r.calls or 0, calls)
end

assert(p.option("include", "game/*"))
assert(p.option("include", "*/tools/*.lua"))
assert(p.option("exclude", "game/vendor/*"))
by_string("game/a.lua", "game_a")                  -- included
by_string("game/vendor/b.lua", "vendor_b")         -- excluded
by_string("other/c.lua", "other_c")                -- not included
by_file("game/x.lua", "file_x")                    -- "@TMP/game/x.lua": not
by_string("x/tools/t.lua", "tools_t")              -- included by the second
package.path = tmp .. "/?.lua;" .. package.path
by_file("game/vendor/m.lua", "unused")             -- (written for require)
require "game.vendor.m"                            -- "@TMP/game/vendor/m.lua"
local byname = rows()
expect(byname, "game_a", 2)
expect(byname, "vendor_b", 0)
expect(byname, "other_c", 0)
expect(byname, "file_x", 0)
expect(byname, "tools_t", 2)
expect(byname, "unused", 0)                        -- (loadfile and require)

-- a glob on the full file name: "@" is not part of it
assert(p.option("clear_patterns"))
assert(p.option("include", tmp .. "/game/*"))
by_file("game/y.lua", "file_y")
by_string("game/z.lua", "string_z")
byname = rows()
expect(byname, "file_y", 2)
expect(byname, "string_z", 0)

-- none set: everything
assert(p.option("clear_patterns"))
by_string("other/d.lua", "other_d")
by_string("game/vendor/e.lua", "vendor_e")
byname = rows()
expect(byname, "other_d", 2)
expect(byname, "vendor_e", 2)

os.execute("rm -rf " .. tmp)
check.done()
