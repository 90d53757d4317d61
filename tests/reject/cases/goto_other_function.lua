-- reject: 5.2 5.3 5.4 jit
-- labels do not cross functions: the error is at the inner function's end
::top::
local f = function()
  goto top
end
print(f)
