-- module() without package.seeall: the globals are gone after it.
local tostring, type = tostring, type
module("plainmod")
function hello() return "hello from " .. tostring(_NAME) end
function no_globals() return type(print), type(_G) end
