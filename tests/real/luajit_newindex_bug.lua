-- A bug of LuaJIT 2.1's trace recorder (Debian's luajit 2.1.0~beta3+git
-- 20220320, OpenResty's 2.1-20230119, upstream v2.1 of 2026-08): a trace
-- that stores to a struct through a string key that is not one of its
-- fields calls the type's __newindex with no guard on the key; when the
-- trace later runs with a key that is a field and a guard fails inside the
-- metamethod, the interpreter goes on in __newindex with that key: the
-- store never happens.  With the JIT off (-joff) the field is stored.
-- Instrumented code forms other traces, so it meets this elsewhere than
-- plain luajit does (ljsyscall's suite: "invalid index l_len").
--
-- usage: luajit [-joff] luajit_newindex_bug.lua
-- prints the number of __newindex calls for the field b and b's value:
-- "0 101" is right; "1 0" is the bug.
local ffi = require("ffi")
ffi.cdef [[ struct li_bug_S { int a; int b; }; ]]
local called_for_b = 0
local S = ffi.metatype("struct li_bug_S", {
  __newindex = function(_, k) if k == "b" then called_for_b = called_for_b + 1 end end })
local keys = {}
for i = 1, 100 do keys[i] = "custom" end
keys[101] = "b"
local o = S()
for i = 1, #keys do o[keys[i]] = i end
print(called_for_b, o.b)
