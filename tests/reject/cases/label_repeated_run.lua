-- reject: 5.2 5.3 5.4 jit
-- the same label twice in one run of labels
do
  ::a:: ; ::b::
  ::a::
  print(1)
end
