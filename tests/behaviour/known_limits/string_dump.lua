-- differs: offline
-- load(string.dump(f)) of instrumented functions.  With the runtime
-- (luaprof, luainstr.so, the C API) the loader gives the loaded copy its
-- probe back and it runs as the original does; offline (a stock lua5.4 and
-- no runtime) the copy's probe upvalue is nil (or the environment), so
-- calling it fails: "attempt to call a nil value (upvalue '__LI')".
local function noup(a, b)
  return a * b + 1
end
local function glob(s) return string.rep(s, 2) end
local k = 10
local function withup(x) return x + k end
local function maker(n)
  local function add(x) return x + n end
  return add
end
for _, strip in ipairs({false, true}) do
  print("strip", strip)
  print(load(string.dump(noup, strip))(6, 7))
  print(load(string.dump(noup, strip), "=dumped", "b")(2, 3))
  -- the environment of a function with no upvalue of its own goes nowhere
  print(load(string.dump(noup, strip), "=dumped", "b", {})(1, 1))
  print(pcall(load, string.dump(noup, strip), "=dumped", "t"))
  -- globals: _ENV is upvalue 1, load puts the environment there
  print(load(string.dump(glob, strip))("ab"))
  print(load(string.dump(glob, strip), nil, "b",
             {string = {rep = function(s) return s .. "!" end}})("x"))
  -- another upvalue: after load it is the environment (upvalue 1), as for
  -- any function that uses upvalues
  local w = load(string.dump(withup, strip))
  print(pcall(w, 1))
  debug.setupvalue(w, 1, 5)
  print(w(1))
  -- a dumped function that makes closures
  local m = load(string.dump(maker, strip))
  print(m(4)(3))
  -- a dumped copy dumped again
  print(load(string.dump(load(string.dump(noup, strip)), strip))(3, 3))
  -- a main chunk, with a nested function, a return and a tail call
  local main = load("local a = ... local function sq(x) return x * x end " ..
                    "if a > 10 then return sq(a) end return tostring(sq(a))", "=chunk")
  local d = string.dump(main, strip)
  print(load(d)(3), load(d)(11))
  print(select("#", load(d, "=again", "b")(2)))
  -- through a reader function
  local pieces, i = {d:sub(1, 10), d:sub(11)}, 0
  print(load(function() i = i + 1 return pieces[i] end)(5))
  -- errors in a dumped function keep their messages
  local e = load(string.dump(function(x) return x.field end, strip))
  print(pcall(e, nil))
end
