-- Code that clears every global, then keeps running instrumented code,
-- including a chunk loaded while _G is empty.
local check = ...
local clock, load, pairs, next, assert = check.p.clock, load, pairs, next, assert
-- (5.1's load takes a reader only: its strings are loadstring's)
local loadstring, setfenv = loadstring or load, check.lua < 5.2 and setfenv
local G = _G
local function spin(ms)
  local t = clock() + ms * 1e6
  while clock() < t do end check.over(clock() - t, ms)
end
local function before() spin(5) end
before()

local saved = {}
for k, v in pairs(G) do saved[k] = v end
for k in pairs(G) do G[k] = nil end
assert(next(G) == nil)

local function during() spin(5) end
during()
-- a new chunk, loaded and run with no globals at all
local chunk = loadstring("local spin = ... local function late() spin(5) end late() late()",
                         "=late chunk")
chunk(spin)
-- the same in an empty environment (Lua 5.1: given by setfenv)
local src = "local spin = ... local function empty_env() spin(5) end empty_env()"
local name = "=empty env"
if setfenv then
  setfenv(loadstring(src, name), {})(spin)
else
  load(src, name, "t", {})(spin)
end

for k, v in pairs(saved) do G[k] = v end
