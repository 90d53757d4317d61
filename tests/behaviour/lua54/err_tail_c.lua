-- Tail calls into C functions: `return error(...)`, `return assert(...)`.
local function fail(msg) return error(msg) end
local function fail2(msg) return error(msg, 2) end
local function check(v) return assert(v, "check failed") end
local function noval() return print() end
local function sel(...) return select('#', ...) end
local function typ(x) return type(x) end
local function setmt(t) return setmetatable(t, {__index = function(_, k) return k end}) end
print(pcall(fail, "tail error"))
print(pcall(function()
  fail2("tail error level 2")   -- line 11
end))
print(pcall(check, false))
print(check(1))
print(select('#', noval()))
print(sel(nil, nil), typ(nil), setmt({}).abc)
local function rethrow(e) return error(e, 0) end
print(type(select(2, pcall(rethrow, {}))))
print(pcall(function() return tostring(setmetatable({}, {__tostring = function() return 42 end})) end))
local function bad_arg() return string.rep() end
print(pcall(bad_arg))
local function bad_arg2(s) return s:rep() end
print(pcall(bad_arg2, "x"))
print(pcall(function() return ("x"):bad() end))
fail("uncaught tail error")
