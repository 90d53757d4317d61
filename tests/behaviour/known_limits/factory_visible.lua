-- differs: luaprof
-- With the runtime present (luaprof, luainstr_open, require "luainstr"),
-- the probe factory is a field of the string library table, where every
-- instrumented chunk's prologue finds it as ("").__luainstr: a program that
-- looks that name up, or iterates the string table, sees it.
print(("").__luainstr, string.__luainstr)
local n = 0
for k in pairs(string) do n = n + 1 end
print("string table fields", n)
