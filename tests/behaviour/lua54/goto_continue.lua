-- `goto continue` with the label as the last statement of a loop body
-- jumping over a local (legal only because the label ends the block).
for i = 1, 6 do
  if i % 2 == 0 then goto continue end
  local sq = i * i
  print("odd", i, sq)
  ::continue::
end

local i = 0
while i < 5 do
  i = i + 1
  if i == 3 then goto continue end
  local msg = "while " .. i
  print(msg)
  ::continue::
end

local j = 0
repeat
  j = j + 1
  if j == 2 then goto skip end
  print("repeat", j)
  ::skip::
until j >= 4

local function process(list)
  local out = {}
  for _, v in ipairs(list) do
    if v < 0 then goto next_item end
    local doubled = v * 2
    out[#out + 1] = doubled
    ::next_item::
  end
  return table.concat(out, " ")
end
print(process({1, -2, 3, -4, 5}))

-- nested loops, continue of the inner and the outer loop
for a = 1, 3 do
  for b = 1, 3 do
    if b == a then goto inner_continue end
    if a + b == 5 then goto outer_continue end
    local s = a .. b
    io.write(s, " ")
    ::inner_continue::
  end
  local tail = "|"
  io.write(tail)
  ::outer_continue::
end
print()

-- a function whose loop body ends in a label and the function ends after it
local function f(n)
  for k = 1, n do
    if k == 2 then goto c end
    local v = k
    print("f", v)
    ::c::
  end
end
f(3)
