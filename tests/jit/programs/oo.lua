-- oo.lua -- a method-heavy loop: shapes with metatables and inheritance,
-- virtual calls (area, scale), a getter and a constructor per object.
-- Usage: oo.lua [ROUNDS]   prints a checksum and its call counts
local ROUNDS = tonumber(arg and arg[1]) or 2000

local Shape = {}
Shape.__index = Shape
function Shape.new(kind, w, h)
  return setmetatable({kind = kind, w = w, h = h}, Shape)
end
function Shape:width() return self.w end
function Shape:scale(k) self.w = self.w * k; self.h = self.h * k; return self end

local Rect = setmetatable({}, {__index = Shape})
Rect.__index = Rect
function Rect.new(w, h) return setmetatable(Shape.new("rect", w, h), Rect) end
function Rect:area() return self:width() * self.h end

local Tri = setmetatable({}, {__index = Shape})
Tri.__index = Tri
function Tri.new(w, h) return setmetatable(Shape.new("tri", w, h), Tri) end
function Tri:area() return 0.5 * self:width() * self.h end

local shapes = {}
for i = 1, 100 do
  shapes[i] = i % 3 == 0 and Tri.new(i, 2) or Rect.new(i, 3)
end
local sum = 0
for _ = 1, ROUNDS do
  for i = 1, #shapes do
    local s = shapes[i]
    sum = sum + s:area()
    s:scale(1.0)
  end
end
-- per round 100 areas (33 Tri, 67 Rect), each one width, and 100 scales;
-- the constructors once a shape (Shape.new under both)
print(string.format("checksum %.1f", sum))
local function calls(f, n) print("calls", debug.getinfo(f, "S").linedefined, n) end
calls(Rect.area, ROUNDS * 67)
calls(Tri.area, ROUNDS * 33)
calls(Shape.width, ROUNDS * 100)
calls(Shape.scale, ROUNDS * 100)
calls(Rect.new, 67)
calls(Tri.new, 33)
calls(Shape.new, 100)
