-- The zone of a frame of cases/frames.lua on Lua 5.4: held in a <close>
-- variable, it ends when f returns.
local p = ...
return function(name, f, i)
  local z <close> = p.zone(name)
  f(i)
end
