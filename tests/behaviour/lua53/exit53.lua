-- Lua 5.3: os.exit with a code from a nested function.
local function main(...)
  print("args", select('#', ...))
  local function finish() io.write("bye\n") os.exit(5) end
  finish()
end
return main(...)
