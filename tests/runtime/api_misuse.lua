-- The Lua API used in the wrong order or with bad arguments: nil and a
-- "luainstr: ..." message (never an error), except an unknown format,
-- which is an argument error naming the formats.
-- variant 5.1 5.2 jit: p.clock() is a whole float there (no integer subtype, no math.type)
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local check = require "check"
local p = check.p

-- nil, "luainstr: ..." from a call that makes no sense now
local function refused(what, ...)
  local n = select("#", ...)
  local a, b = ...
  if n ~= 2 or a ~= nil or type(b) ~= "string" or not b:find("^luainstr: ") then
    check.fail("%s: expected nil, 'luainstr: ...', got %d value(s): %s, %s",
               what, n, tostring(a), tostring(b))
  end
end

local function accepted(what, ...)
  if select(1, ...) ~= true then
    check.fail("%s: expected true, got %s, %s", what, tostring((...)),
               tostring(select(2, ...)))
  end
end

if not check.under_luaprof then
  refused("dump before start", p.dump("csv"))
  refused("dump_to before start", p.dump_to("/dev/null", "csv"))
  refused("stop before start", p.stop())
  check.eq("running before start", p.running(), false)
  accepted("start", p.start())
end
check.eq("running", p.running(), true)
refused("start twice", p.start())
refused("enable when not paused", p.enable())
accepted("disable", p.disable())
check.eq("running when paused", p.running(), false)
refused("disable twice", p.disable())
accepted("enable", p.enable())
accepted("stop", p.stop())
refused("stop twice", p.stop())
refused("enable after stop", p.enable())
check.eq("running after stop", p.running(), false)
accepted("start again", p.start())
accepted("reset", p.reset())

-- an unknown format is a Lua error naming the formats
for _, call in ipairs {
  function() return p.dump("xml") end,
  function() return p.dump_to("/dev/null", "xml") end,
} do
  local ok, err = pcall(call)
  check.truthy("unknown format raises", not ok)
  check.truthy("message names the format and the list: " .. tostring(err),
               type(err) == "string" and err:find("xml", 1, true)
               and err:find("text", 1, true) and err:find("csv", 1, true))
end
-- nanoseconds: an integer (5.3 on), a whole float before (no subtype)
if math.type then
  check.eq("clock is an integer", math.type(p.clock()), "integer")
else
  local ns = p.clock()
  check.truthy("clock is a whole number: " .. ns, ns % 1 == 0 and ns > 0)
end

-- dump_to: unwritable paths give nil + message and leave no file
local dir = os.tmpname()                 -- a regular file: a/b is ENOTDIR
refused("dump_to under a regular file", p.dump_to(dir .. "/x.csv", "csv"))
refused("dump_to a missing directory",
        p.dump_to("/nonexistent-luainstr-dir/x.csv", "csv"))
os.remove(dir)
assert(os.execute("mkdir " .. dir))
refused("dump_to a directory", p.dump_to(dir, "csv"))
local ls = io.popen("ls -A " .. dir):read("*a")
check.eq("nothing left in the directory", ls, "")
accepted("dump_to /dev/null", p.dump_to("/dev/null", "csv"))
accepted("dump_to a new file", p.dump_to(dir .. "/r.csv", "csv"))
local f = io.open(dir .. "/r.csv")
check.truthy("report written", f and f:read("*l") ==
  "name,source,line,lastline,calls,total_ns,self_ns,min_ns,max_ns,errors," ..
  "alloc_bytes,alloc_count,free_bytes,live_bytes,peak_live_bytes,max_alloc_bytes," ..
  "total_err_ns,self_err_ns,min_err_ns,max_err_ns,counted")
if f then f:close() end
accepted("dump_to replaces a file", p.dump_to(dir .. "/r.csv", "text"))
ls = io.popen("ls -A " .. dir):read("*a")
check.eq("one file, no temporary left", ls, "r.csv\n")
os.execute("rm -rf " .. dir)
accepted("dump text", type(p.dump()) == "string" or nil)

-- the profile still works after all that
check.case("misuse_after")
check.snapshot()
check.fn("local f", {calls = 3, errors = 0, total = 15})
check.done()
