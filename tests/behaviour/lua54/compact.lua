-- Minified code: tokens packed without spaces around returns and ends.
local function a()return"s"end local function b()return{1,2}end local function c(x)return(x)end
local function d()return-1 end local function e(...)return...end local function f(t)return#t end
local function g()return;end local function h()end local function i(x)return x end
local function j(x)if x then return"yes"else return"no"end end
local function k(n)if n==0 then return"k done"end return k(n-1)end
local function l(s)return s:upper()end local function m(s)return s:rep(2)end
local function n()return a"ignored"end local function o()return b{}end
local function p(...)return select('#',...)end local function q()return p(nil,nil)end
local function r()return(p)()end local function s2()return({p})[1](1)end
local t={f=function()return"field"end,g=function(self)return self.f()end}
print(a(),#b(),c(3),d(),e(1,2),f({1,2,3}),select('#',g()),select('#',h()),i(9))
print(j(1),j(),k(100000),l"up",m"ab",n(),#o(),q(),r(),s2(),t:g())
local u=function()return--[[c]]"comment"--[==[x]==]
end print(u())
local v=function(...)local x,y=... return--
x,y end print(v(4,5))
local w;w=function(n)if n>0 then return w(n-1)end;return n;end;print(w(10))
;;;local function x2()return(1)+(2),3 ..""end;print(x2())
local y2=function()do return"do"end end print(y2())
local z2=function()while true do return"while"end end print(z2())
local z3=function()repeat return"repeat"until true end print(z3())
local z4=function()for _=1,1 do return"for"end end print(z4())
print((function()return"iife"end)(),(function(...)return...end)(1,nil))
