-- The number of returned values must not change.
local function r0() return end
local function r1() return nil end
local function r2() return nil, nil end
local function r3(...) return ... end
local function r4() return 1, nil, nil end
local function id(...) return ... end
local function r5() return (id(1, 2, 3)) end
local function r6() return id(1, 2), id(3, 4) end
local function r7() return id(), id() end
local function r8() return id(nil, nil), id(nil, nil, nil) end
local function r9(...) return select(2, ...) end
local function r10(t) return table.unpack(t, 1, t.n) end
local function r11() return; end
local function r12() return nil; end
local function r13(...) return (...) end
local function r14(...) return ..., "x" end
local function r15() do return 7 end end
local function r16() return {} ~= nil, #"ab", - - 3 end

local function show(name, ...)
  local parts = {}
  for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
  print(name, select('#', ...), table.concat(parts, ","))
end

show("r0", r0())
show("r1", r1())
show("r2", r2())
show("r3 none", r3())
show("r3 nils", r3(nil, nil, nil, nil))
show("r3 mixed", r3(1, nil, 2, nil))
show("r4", r4())
show("r5", r5())
show("r6", r6())
show("r7", r7())
show("r8", r8())
show("r9", r9(1, 2, nil, nil))
show("r10", r10(table.pack(1, nil, 3, nil, nil)))
show("r10 empty", r10({n = 0}))
show("r11", r11())
show("r12", r12())
show("r13", r13(nil, 2))
show("r13 none", r13())
show("r14", r14(1, 2))
show("r15", r15())
show("r16", r16())
print(select('#', r2()), select('#', r0()), select('#', (r2())))
local a, b, c = r4()
print(a, b, c)
local t = {r3(1, nil, nil)}
print(#t, select('#', table.unpack(t)))
local p = table.pack(r3(nil, nil))
print(p.n)
-- many values
local big = {}
for i = 1, 250 do big[i] = i end
local function many() return table.unpack(big) end
print(select('#', many()), (select(250, many())))
