-- Known answers: errors caught by pcall and xpcall close exactly the
-- frames they unwound, each counted as an exit by an error, and what runs
-- after the catch hangs under the catcher, not under the dead frames.
-- (Lines: a function is named by the line it is defined on.)
local function bad(n)                          -- line 5
  if n % 3 == 0 then error("bad " .. n) end
  return n
end
local function mid(n) local r = bad(n) return r + 1 end   -- line 9
local function top(n) local r = mid(n) return r end       -- line 10
local function after() return 1 end                        -- line 11
local function handler(m) return "h" end                   -- line 12
local function obj_err() error({code = 1}) end             -- line 13
local function nested()                                    -- line 14
  local ok = pcall(top, 3)
  local r = after()
  return ok, r
end

for i = 1, 300 do
  pcall(top, i)       -- 100 errors through top, mid and bad
  after()
end
for i = 1, 30 do
  xpcall(mid, handler, i)   -- 10 errors; the handler runs where the
                            -- error is, above bad's open frame
end
for i = 1, 7 do pcall(obj_err) end
for i = 1, 5 do pcall(nested) end
-- a tail call into the failing function: the caller's frame is gone
local function tailer(n) return bad(n) end                 -- line 31
for i = 1, 6 do pcall(tailer, i) end

-- expect: 5 calls=341 errors=117
-- expect: 9 calls=335 errors=115
-- expect: 10 calls=305 errors=105
-- expect: 11 calls=305 errors=0
-- expect: 12 calls=10 errors=0
-- expect: 13 calls=7 errors=7
-- expect: 14 calls=5 errors=0
-- expect: 31 calls=6 errors=0
-- expect-path: main>10>9>5 calls=300 errors=100
-- expect-path: main>11 calls=300 errors=0
-- expect-path: main>14>11 calls=5 errors=0
-- expect-path: main>14>10>9>5 calls=5 errors=5
-- expect-path: main>9>5 calls=30 errors=10
-- expect-path: main>9>5>12 calls=10 errors=0
-- expect-path: main>5 calls=6 errors=2
-- expect-open: 0
