-- reject: 5.4
-- a <close> variable is read-only too
do
  local h <close> = nil
  h = 1
end
