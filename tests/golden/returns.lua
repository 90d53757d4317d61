local function none() return end
local function semi() return; end
local function one(x) return x end
local function many(a, b) return a, b, nil end
local function paren(f) return (f()) end
local function vararg(...) return ... end
local function tail(f, x) return f(x) end
local function tailm(o) return o:m(1, 2) end
local function tails(f) return f"str" end
local function tailt(f) return f{1, 2} end
local function tailchain(f) return f(1)(2) end
local function tailempty(f) return f() end
local function notail(f) local x <close> = nil return f() end
local function branches(n)
  if n > 0 then return "pos" elseif n < 0 then return "neg" end
  while true do return "loop" end
end
return none, semi, one, many, paren, vararg, tail
