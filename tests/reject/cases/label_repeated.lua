-- reject: 5.2 5.3 5.4 jit
-- the same label twice in one block
::again::
print(1)
::again::
print(2)
