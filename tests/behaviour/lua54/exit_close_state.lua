-- os.exit(code, true) closes the state: __close and __gc handlers run.
local function closer(name) return setmetatable({}, {__close = function() print("closed " .. name) end}) end
local keep = setmetatable({}, {__gc = function() print("finalized") end})
local function main()
  local inner <close> = closer("inner")
  print("exiting")
  os.exit(2, true)
end
local outer <close> = closer("outer")
main()
