-- Coroutines made where collected ones were (their addresses reused before
-- the dead ones' stacks are finalized): every call counted once, in the
-- context it ran in.  The profiler's "thread of the last probe" is trusted
-- by address; a new coroutine at a dead one's address once ran on the dead
-- one's stack (tests/test_runtime.c: thread_at_a_collected_threads_*).
-- Under the C module a resume captured before the profiler is loaded (the
-- stock one, as a host's lua_resume) resumes some of them too.
-- variant 5.1 jit: finalizers on newproxy userdata (5.1 finalizes no table)
-- variant jit: under the FFI probe (the JIT on) a coroutine the profiler
--   was not told of is measured only from the first boundary it passes
--   (docs/luajit.md): the stock resume's coroutines count nothing, and
--   nothing of theirs may land in another context
local stock_resume = coroutine.resume
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"
local p = check.p
if check.under_luaprof then stock_resume = nil end

local ROUNDS = 200
local case = check.case("coroutine_reuse", ROUNDS, stock_resume)

-- Under the C module, from this file (not instrumented: no probe runs on
-- the main thread between the coroutines' probes), resumed by the stock
-- resume: a coroutine is the thread of the last probe when it is dropped;
-- its finalizer, made after its stack, runs before its stack's and starts
-- a new coroutine, often at its address.
local HOST = 300
if stock_resume then
  local function fin()
    assert(stock_resume(coroutine.create(case.body), 2))
  end
  for i = 1, HOST do
    assert(stock_resume(coroutine.create(case.gbody), fin))
    if i % 2 == 0 then collectgarbage() else collectgarbage("step", 0) end
  end
  collectgarbage(); collectgarbage()
end
assert(p.stop())

-- the call tree from the json report: path of names -> calls
local text = assert(p.dump("json"))
local names, parent, func, calls = {}, {}, {}, {}
for id, name in text:gmatch('{"id": (%d+), "name": "([^"]*)"') do
  names[tonumber(id)] = name
end
for id, par, fn, n in text:gmatch('{"id": (%d+), "parent": (%d+), "function": (%d+), "calls": (%d+)') do
  id = tonumber(id)
  parent[id], func[id], calls[id] = tonumber(par), tonumber(fn), tonumber(n)
end
-- calls by edge "caller>callee" (caller "" at the root) into the case's
-- coroutine bodies and leaf, and of the spawners whatever their caller
-- (finalizers run wherever the collector steps)
local got = {}
local function add(k, n) got[k] = (got[k] or 0) + n end
for id in pairs(func) do
  local name = names[func[id]]
  local up = func[parent[id]] and names[func[parent[id]]] or ""
  if name:find("^local spawn_") then add(name, calls[id]) end
  if name == "local leaf" or name == "local body" or name == "local ybody" or
     name == "local gbody" then
    add(up .. ">" .. name, calls[id])
  end
end

-- every spawn_done: body once, leaf twice; every abandoned one: ybody and
-- leaf once; spawn_done runs from the loop and from a finalizer each round
local R = ROUNDS
local want = {
  ["local spawn_done"] = 2 * R,
  ["local spawn_done>local body"] = 2 * R,
  ["local body>local leaf"] = 4 * R,
  ["local spawn_abandoned"] = R,
  ["local spawn_abandoned>local ybody"] = R,
  ["local ybody>local leaf"] = R,
}
-- Coroutines the stock resume runs, which the profiler is not told of: it
-- infers their resumer (the thread it saw run last, if that still runs),
-- so they nest under spawn_stock, which called the stock resume, and at
-- the root when this file (not instrumented) or a finalizer resumed them.
local ffi_probe = text:find('"probe": "ffi"', 1, true) ~= nil
if stock_resume and ffi_probe then
  -- (none passes a boundary before it is dropped: ybody's and gbody's
  -- yields are their last events)
  want["local spawn_stock"] = 4 * R
elseif stock_resume then
  want["local spawn_stock"] = 4 * R
  want["local spawn_stock>local body"] = 2 * R
  want[">local body"] = HOST
  want[">local gbody"] = HOST
  want["local gbody>local leaf"] = HOST
  want["local spawn_stock>local ybody"] = 2 * R
  want["local body>local leaf"] = want["local body>local leaf"] + 4 * R + 2 * HOST
  want["local ybody>local leaf"] = want["local ybody>local leaf"] + 2 * R
end
for k, n in pairs(want) do check.eq("calls of " .. k, got[k], n) end
for k, n in pairs(got) do
  if want[k] == nil then check.fail("calls in an unexpected context: %s (%d)", k, n) end
end
check.done()
