-- os.exit(3) from inside nested calls.
local function finish(code)
  io.write("exiting with ", code, "\n")
  os.exit(code)
end
local function run()
  print("running")
  finish(3)
  print("not reached")
end
run()
