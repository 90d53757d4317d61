-- LuaJIT: goto and labels (LuaJIT has them; Lua 5.1 does not): continue,
-- retry loops, jumps out of nested loops, a label at the end of a
-- function and of the main chunk, closures made in a loop with goto, and
-- `goto` jumping over a return.
local function odds(n)
  local t = {}
  for i = 1, n do
    if i % 2 == 0 then goto continue end
    t[#t + 1] = i
    ::continue::
  end
  return table.concat(t, ",")
end
print(odds(15))

local function find(grid, v)
  for i = 1, #grid do
    for j = 1, #grid[i] do
      if grid[i][j] == v then
        local r = i .. ":" .. j
        goto found
        ::found::
        return r
      end
    end
  end
  do return "none" end
  ::done::
end
print(find({{1, 2}, {3, 4}}, 4), find({{1}}, 9))

local tries = 0
local function flaky()
  ::retry::
  tries = tries + 1
  if tries < 5 then goto retry end
  return tries
end
print(flaky())

local fns = {}
do
  local i = 1
  ::top::
  local j = i
  fns[#fns + 1] = function() return j * 10 end
  i = i + 1
  if i <= 4 then goto top end
end
for _, f in ipairs(fns) do io.write(f(), " ") end
print()

-- hot enough for the JIT
local s = 0
for i = 1, 100000 do
  if i % 3 == 0 then goto skip end
  s = s + i
  ::skip::
end
print(s)

local function early(x)
  if x then goto out end
  do return "not jumped" end
  ::out::
  return "jumped"
end
print(early(true), early(false))
goto finish
print("never printed")
::finish::
print("end of main chunk")
