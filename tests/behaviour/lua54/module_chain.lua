-- Modules requiring modules; errors and tracebacks crossing them.
local a = require("chain_a")
print(a.run(1))
print(pcall(a.fail, "k"))
print(xpcall(a.fail2, debug.traceback, "k2"))
local loaded = {}
for name in pairs(package.loaded) do
  if name:match("^chain") then loaded[#loaded + 1] = name end
end
table.sort(loaded)
print(table.concat(loaded, " "))
a.fail2("uncaught")
