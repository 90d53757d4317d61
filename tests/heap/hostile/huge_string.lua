-- A string of 100 MiB (NUL bytes and invalid UTF-8 in it) as a value, a
-- key, an upvalue and a local: its node is one, of its full size, and its
-- name is cut (docs/heap.md: the first 80 bytes).  Names of anything must
-- stay short: the file is not made of the string.
local H = require("heaphelp")
local MB = 1024 * 1024
local s = string.rep("a\0\255b", 25 * MB)
local t = { big = s }
t[s] = true
local function keep() return s end
H.snap("huge", nil, "ok", { bigstring = 100 * MB, string_name_max = 330,
                           file_max = 32 * MB })
print(#s, #keep(), t[s], #t.big)
