-- User names that look like probe names: P, __LI, __luainstr, _P, P1...
P = "global P"
print(P)
local function usesP() return P end
print(usesP())
local function setsP(v) P = v end
setsP("changed")
print(P, _G.P, _ENV.P)

local function localP()
  local P = function(x) return "user P " .. tostring(x) end
  return P(1)
end
print(localP())

local function paramP(P, Q)
  return P + Q
end
print(paramP(1, 2))

local function loopP()
  local s = 0
  for P = 1, 3 do s = s + P end
  for _, P in ipairs({10, 20}) do s = s + P end
  return s
end
print(loopP())

local function upvalueP()
  local P = 0
  return function()
    P = P + 1
    return P
  end
end
local up = upvalueP()
up()
print(up())

local function tailP(P)
  if P == 0 then return "tail P" end
  return tailP(P - 1)
end
print(tailP(100000))

local function nilP()
  local P
  return P
end
print(nilP())

local function constP()
  local P <const> = 7
  return P * 6
end
print(constP())

local function retP(...)
  local P = ...
  return P, ...
end
print(retP(1, 2))

__LI = "global __LI"
__luainstr = "global __luainstr"
local _P, P1, P_, __P, LI = 1, 2, 3, 4, 5
print(__LI, __luainstr, _P, P1, P_, __P, LI)
local function all() return __LI, __luainstr, _P + P1 + P_ + __P + LI end
print(all())

-- methods and fields named P
local obj = {P = function(self, x) return "method P " .. x end}
print(obj:P(1), obj.P(obj, 2))
local function callsMethodP(o) return o:P(3) end
print(callsMethodP(obj))

-- a global function named P shadowing nothing
function P(...) return "global fn P", select('#', ...) end
print(P(nil, nil))
local function callsGlobalP() return P(1) end
print(callsGlobalP())
local function g() local x = P() return x end
print(g())

-- strings mentioning probe-like text
local s = "return P(-1, x) __luainstr local P="
print(s, #s)

-- the global P is still a global at the end
local keys = {}
for k in pairs(_G) do
  if type(k) == "string" and (k:find("P") or k:find("LI") or k:find("luainstr")) then keys[#keys + 1] = k end
end
table.sort(keys)
print(table.concat(keys, " "))
P = nil
print(P, rawget(_G, "P"))
