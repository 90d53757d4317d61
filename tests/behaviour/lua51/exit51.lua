-- Lua 5.1 / LuaJIT: os.exit with a code from nested functions.
local function finish(code)
  io.write("exiting ", code, "\n")
  os.exit(code)
end
local function run() finish(4) print("not reached") end
run()
