-- The recorder of disabled assertions, run before the suite file with
-- `-e` (so it is an ordinary chunk: instrumented under luaprof, plain
-- under the offline mode).  disable.lua rewrites each listed assertion of
-- the suite's copy into a call `__official_expect("ID", f, args...)`: it
-- still runs `f(args...)`, but an error does not stop the file; each
-- outcome is appended to the file named by $LI_OFFICIAL_LOG as
-- `ID<TAB>PASS` or `ID<TAB>FAIL<TAB>message`.  Everything it needs is
-- captured now, because the suite replaces or erases globals later; its one
-- global is the entry point (no suite file looks for it).
do
  local pcall, pack, unpack, open, tostring, gsub =
        pcall, table.pack, table.unpack, io.open, tostring, string.gsub
  local sethook, getupvalue, setupvalue =
        debug.sethook, debug.getupvalue, debug.setupvalue
  local logname = os.getenv("LI_OFFICIAL_LOG") or "/dev/null"
  local function log (id, verdict, msg)
    local f = open(logname, "a")
    if f then
      f:write(id, "\t", verdict, "\t", (gsub(tostring(msg), "%c", " ")), "\n")
      f:close()
    end
  end
  -- On failure it returns its arguments, as an `assert` that held would.
  function __official_expect (id, f, ...)
    local r = pack(pcall(f, ...))
    if r[1] then
      log(id, "PASS", "")
      return unpack(r, 2, r.n)
    end
    log(id, "FAIL", r[2])
    return ...
  end
  -- For statements that, when their assertion fails, have set upvalue n
  -- of g, which is the probe (shared by every function of the chunk): the
  -- value is put back, so that the rest of the file still has its probe.
  function __official_expect_restore (id, g, n, f, ...)
    local _, v = getupvalue(g, n)
    local r = pack(__official_expect(id, f, ...))
    setupvalue(g, n, v)
    return unpack(r, 1, r.n)
  end
  -- For statements that fail inside a debug hook they set and would have
  -- removed after: on failure the hook is removed, as the file expects.
  -- (The removal is on the line of the call: a line hook would see the
  -- next line.)
  function __official_expect_unhook (id, f, ...)
    local r = pack(pcall(f, ...)); if not r[1] then sethook() end
    if r[1] then
      log(id, "PASS", "")
      return unpack(r, 2, r.n)
    end
    log(id, "FAIL", r[2])
    return ...
  end
end
