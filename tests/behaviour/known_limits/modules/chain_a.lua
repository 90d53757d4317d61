local b = require("chain_b")
local A = {}
function A.run(x) return "a(" .. b.run(x) .. ")" end
function A.fail(x) return b.fail(x) end
function A.fail2(x) local r = b.fail(x) return r end
return A
