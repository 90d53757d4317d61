-- `return o:m(x)` must stay a tail call.
local Obj = {}
Obj.__index = Obj

function Obj.new(name) return setmetatable({name = name, hits = 0}, Obj) end

function Obj:count(n)
  self.hits = self.hits + 1
  if n == 0 then return self.name, self.hits end
  return self:count(n - 1)
end

function Obj:other(n)
  if n == 0 then return "other done" end
  return Obj.other(self, n - 1)
end

local o = Obj.new("obj")
print(o:count(1000000))
print(o:other(1000000))

-- method tail call on a different object each time
local ring = {}
for i = 1, 3 do ring[i] = Obj.new("r" .. i) end
for i = 1, 3 do ring[i].next = ring[i % 3 + 1] end
function Obj:hop(n)
  if n == 0 then return self.name end
  return self.next:hop(n - 1)
end
print(ring[1]:hop(1000000), ring[1]:hop(1000001))

-- string method tail call
local function up(s) return s:upper() end
local function rep(s) return s:rep(3, "-") end
print(up("abc"), rep("x"))
