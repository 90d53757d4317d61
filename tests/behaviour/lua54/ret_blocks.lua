-- Returns inside nested blocks, loops, if, repeat, and `return;`.
local function classify(n)
  if n < 0 then
    return "negative";
  elseif n == 0 then return "zero"
  else
    if n % 2 == 0 then return "even" end
    do
      return "odd";
    end
  end
end
for _, v in ipairs({-3, 0, 4, 7}) do print(v, classify(v)) end

local function find(t, x)
  for i = 1, #t do
    if t[i] == x then return i end
  end
  return nil
end
print(find({5, 6, 7}, 6), find({5, 6, 7}, 9))

local function firstpos(t)
  local i = 0
  while true do
    i = i + 1
    if t[i] == nil then return end
    if t[i] > 0 then return i, t[i] end
  end
end
print(firstpos({-1, -2, 3}))
print(select('#', firstpos({-1})))

local function rep(n)
  local i = 0
  repeat
    i = i + 1
    local sq = i * i
    if sq > n then return i, sq end
  until sq == n
  return i, "exact"
end
print(rep(10), rep(16))

local function gen(t)
  for k, v in ipairs(t) do
    for j = 1, 3 do
      if v * j == 6 then return k, j end
    end
  end
  return;
end
print(gen({5, 2, 3}))
print(select('#', gen({7})))

local function early(x)
  if x then return end
  print("not early")
end
early(true) early(false)

local function semis(x)
  ;;; if x then return x; end ;
  return -1 ;
end
print(semis(5), semis(nil))

local function comment_after(x)
  return x -- trailing comment
end
local function comment_before()
  return --[[ value: ]] 9 --[==[ after ]==]
end
print(comment_after(8), comment_before())

-- return on its own line with the value on following lines
local function multiline(a, b)
  return
    a
    +
    b
end
print(multiline(1, 2))
