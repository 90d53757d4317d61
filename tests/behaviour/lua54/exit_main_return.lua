-- The main chunk ends with `return main(...)`: a tail call from the main chunk.
local function main(...)
  print("main got", select('#', ...))
  if select('#', ...) == 0 then
    error("no arguments given")
  end
  return 0
end
return main(...)
