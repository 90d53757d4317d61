-- only comments
--[[ and a long
 comment ]]
-- end
