-- Where a snapshot cannot go: a missing directory, a read-only directory
-- (LI_HEAP_RO; run.sh drops root's override of permissions), a full disk
-- (LI_HEAP_FULL, a character device like /dev/full: it must stay one), the
-- directory itself, an empty path, a path through a regular file, a path
-- longer than PATH_MAX: each a clear error and no file.  Then what must
-- work: replacing an existing file, the same path twice, a dangling link
-- to a file (LI_HEAP_LINK).  Then what docs/heap.md leaves open, where
-- anything but a crash will do (a file written must be valid): a dangling
-- link into a missing directory (LI_HEAP_DANGLING; reports replace such a
-- link), an embedded NUL, bad options, no path, a table as the path.
local H = require("heaphelp")
local data = { "a", "b", { "c" } }

local missing = H.env("LI_HEAP_MISSING")
if missing then H.snap(missing .. "/x.heapsnapshot", nil, "error") end
local ro = H.env("LI_HEAP_RO")
if ro then H.snap(ro .. "/x.heapsnapshot", nil, "error") end
local full = H.env("LI_HEAP_FULL")
if full then
  H.snap(full, nil, "error")
  H.snap(full, { collect = true }, "error")
end
local dir = H.env("LI_HEAP_DIR")
if dir then
  H.snap(dir, nil, "error")
  H.snap("", nil, "error")
  local f = assert(io.open(dir .. "/plain.txt", "w"))
  f:write("old contents\n")
  f:close()
  H.snap(dir .. "/plain.txt/x.heapsnapshot", nil, "error")
  H.snap(dir .. "/" .. string.rep("n", 5000) .. ".heapsnapshot", nil, "error")
  H.snap(dir .. "/plain.txt", nil, "ok")
  H.snap("twice", nil, "ok")
  H.snap("twice", { collect = true }, "ok")
end
local dangling = H.env("LI_HEAP_DANGLING")
if dangling then H.snap(dangling, nil, "any") end
local link = H.env("LI_HEAP_LINK")
if link then H.snap(link, nil, "ok") end

if H.p then
  H.snap("nulcut\0inside", nil, "any")
  H.snap("nul_opts", { collect = "yes" }, "any")
  H.snap("unknown_opts", { unknown = true, collect = false }, "any")
  H.snap("number_opts", 42, "any")
  H.snap({}, nil, "any")
end
if H.p then
  local ok1 = pcall(H.p.snapshot)
  local ok2 = pcall(H.p.snapshot, nil)
  local _ = ok1 or ok2
end
print(#data, data[3][1])
