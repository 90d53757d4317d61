-- reject: 5.2 5.3 5.4 jit
-- the label is in a block the goto is not in
do
  ::inner::
end
local function f()
  goto inner
end
return f
