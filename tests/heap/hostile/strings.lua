-- Bytes: keys and values with NUL bytes, every byte value, invalid UTF-8
-- (lone continuation bytes, overlong forms, surrogates, truncated
-- sequences), JSON's own specials, strings of 79, 80 and 81 bytes and a
-- multi-byte character cut at byte 80, numbers of every kind as keys
-- (negative, huge, float, -0.0, infinities), and functions loaded with
-- chunk names that hold NUL and invalid UTF-8.
local H = require("heaphelp")
local load = loadstring or load

local t = {}
local bad = {
  "nul\0inside", "\0", "\0\0\0", "\255\254", "\128", "\192\175", "\224\128\175",
  "\237\160\128", "\237\191\191", "\244\144\128\128", "\226\130", "\240\159\152",
  "\"quoted\"", "back\\slash", "\\u0000", "tab\tnew\nline\rcr", "\127del",
  "</script>", "\226\128\168 line sep", "\239\187\191bom",
}
local all = {}
for i = 0, 255 do all[#all + 1] = string.char(i) end
bad[#bad + 1] = table.concat(all)
bad[#bad + 1] = string.rep("x", 79)
bad[#bad + 1] = string.rep("y", 80)
bad[#bad + 1] = string.rep("z", 81)
bad[#bad + 1] = string.rep("\226\130\172", 40)        -- euro signs: byte 80 cuts one
bad[#bad + 1] = string.rep("\0", 200)
bad[#bad + 1] = string.rep("\255", 200)
for i, s in ipairs(bad) do
  t[s] = s .. "#value"
  t[i] = s
end
t[-1] = "minus one"
t[0] = "zero"
t[2 ^ 53] = "two^53"
t[2 ^ 63] = "two^63"
t[-2 ^ 63] = "minus two^63"
t[1.5] = "one and a half"
t[0.1] = "a tenth"
t[-0.0] = "minus zero (the key 0)"
t[1 / 0] = "infinity"
t[-1 / 0] = "minus infinity"
t[1e308] = "big"
t[5e-324] = "tiny"
t[true] = "true"
t[false] = "false"
if math.maxinteger then
  t[math.maxinteger] = "maxinteger"
  t[math.mininteger] = "mininteger"
end

local names = { "=\0nul", "@\255\254.lua", "=" .. string.rep("\226\130\172", 100),
                "@" .. string.rep("/", 300) .. "x.lua", "=\"</script>\\" }
local fns = {}
for i, name in ipairs(names) do
  fns[i] = assert(load("local up = ... return function(a) return a, up end", name))(name)
end

H.snap("strings", nil, "ok", { nodes_min = 50 })

local count, sum = 0, 0
for k, v in pairs(t) do
  count = count + 1
  if type(k) == "string" then sum = sum + #k end
  if type(v) == "string" then sum = sum + #v end
end
print("entries", count, "bytes", sum)
local a, up = fns[2](7)
print(a, #up, #fns)
