local function
 f
 (
 ) end
function
 g
 () end
x = function

 () end
