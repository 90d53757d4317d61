-- differs: luaprof
-- With the runtime present (luaprof, luainstr_open, require "luainstr"),
-- the offline form's prologue finds the probe factory as ("").__luainstr
-- (a field of the __index table of the string library's own metatable): a
-- program that looks that name up sees it; iterating the string table
-- does not (the count below is the stock one).
print(("").__luainstr, string.__luainstr)
local n = 0
for k in pairs(string) do n = n + 1 end
print("string table fields", n)
