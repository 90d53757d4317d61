-- differs: offline luaprof
-- A stripped dump of an instrumented function is larger (the probe calls
-- are code), and offline, where the prologue carries the descriptor of
-- every function as a string constant of the main chunk, a stripped dump of
-- a main chunk keeps its chunk name and its functions' names.  (With the
-- runtime the loader keeps the names: a dump holds no descriptor.)
local function secret_name(x) return x + 1 end
local stripped = string.dump(debug.getinfo(1, "f").func, true)
print(#stripped)
print(stripped:find("secret" .. "_name", 1, true) ~= nil,
      stripped:find("string_dump" .. "_stripped", 1, true) ~= nil)
print(secret_name(41))
