-- The script of tests/install/host/host.c (Lua 5.1 to 5.4): step runs 5
-- times here and 3 times in task, which the host resumes from C 4 times.
local function step(n)
  local s = 0
  for k = 1, 20000 * n do s = s + k % 7 end
  return s
end

function task(n)
  for i = 1, 3 do
    step(i)
    n = coroutine.yield(i + n)
  end
end

for i = 1, 5 do step(i) end
