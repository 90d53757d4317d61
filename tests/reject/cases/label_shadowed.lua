-- reject: 5.4
-- 5.4 forbids a label that repeats a visible one of an enclosing block;
-- 5.2, 5.3 and LuaJIT allow it (the goto takes the innermost)
::l::
do
  goto l
  ::l::
end
