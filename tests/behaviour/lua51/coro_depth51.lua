-- Lua 5.1, 5.2, 5.3: nested resumes count as C calls, up to the C-call
-- limit ("C stack overflow" at the same depth; 5.1's resume gives the
-- coroutine its resumer's count).  LuaJIT has no such limit and overflows
-- its C stack: the program ends there.
if jit then print("LuaJIT: not run") return end
local function nest(n)
  local co = coroutine.create(function() return nest(n + 1) end)
  local ok, e = coroutine.resume(co)
  if ok then return e end
  return n .. ": " .. tostring(e)
end
print(nest(1))
local w
w = function(n)
  if n == 0 then return "bottom" end
  return coroutine.wrap(w)(n - 1)
end
print(pcall(w, 100))
local ok, e = pcall(w, 1000)
local msg, wheres = string.gsub(e, "coro_depth51%.lua:%d+: ", "")
print(ok, msg, wheres)
