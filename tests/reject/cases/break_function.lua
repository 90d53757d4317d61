-- reject: 5.1 5.2 5.3 5.4 jit
-- a break in a function inside a loop: the loop is not the function's
while true do
  local f = function()
    break
  end
  f()
end
