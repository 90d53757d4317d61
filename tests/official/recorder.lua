-- The recorder of disabled assertions, run before the suite file with
-- `-e` (so it is an ordinary chunk: instrumented under luaprof, plain
-- under the offline mode).  disable.lua rewrites each listed assertion of
-- the suite's copy into a call `__official_expect("ID", f, args...)`: it
-- still runs `f(args...)`, but an error does not stop the file; each
-- outcome is appended to the file named by $LI_OFFICIAL_LOG as
-- `ID<TAB>PASS` or `ID<TAB>FAIL<TAB>message`.  Everything it needs is
-- captured now, because the suite replaces or erases globals later; its
-- globals are its three entry points (no suite file looks for them).
--
-- Some assertions run while the file has a debug hook set.  So that the
-- hook sees nothing of the recorder once the assertion has run, the code
-- after each pcall is all on the pcall's line (a line hook fires on a new
-- line only): it removes the hook, logs, and puts the hook back as its
-- last call (the "self" mode of run.sh checks that this changes nothing).
do
  local pcall, pack, unpack, open, tostring, gsub =
        pcall, table.pack, table.unpack, io.open, tostring, string.gsub
  local gethook, sethook, getupvalue, setupvalue =
        debug.gethook, debug.sethook, debug.getupvalue, debug.setupvalue
  local logname = os.getenv("LI_OFFICIAL_LOG") or "/dev/null"

  -- Called with no hook set, logs the outcome r of a pcall.
  local function finish (id, r)
    local f = open(logname, "a")
    if f then
      local msg = r[1] and "" or gsub(tostring(r[2]), "%c", " ")
      f:write(id, "\t", r[1] and "PASS" or "FAIL", "\t", msg, "\n")
      f:close()
    end
  end

  -- On failure it returns its arguments, as an `assert` that held would.
  function __official_expect (id, f, ...)
    local r = pack(pcall(f, ...)); local h, m, c = gethook(); sethook(); finish(id, r); if h then sethook(h, m, c) end; if r[1] then return unpack(r, 2, r.n) end return ...
  end

  -- For statements that fail inside a debug hook they set and would have
  -- removed after: on failure the hook stays removed.
  function __official_expect_unhook (id, f, ...)
    local r = pack(pcall(f, ...)); local h, m, c = gethook(); sethook(); finish(id, r); if h and r[1] then sethook(h, m, c) end; if r[1] then return unpack(r, 2, r.n) end return ...
  end

  -- For statements that, when their assertion fails, have set upvalue n
  -- of g, which is the probe (shared by every function of the chunk): the
  -- value is put back, so that the rest of the file still has its probe.
  function __official_expect_restore (id, g, n, f, ...)
    local _, v = getupvalue(g, n)
    local r = pack(pcall(f, ...)); setupvalue(g, n, v); local h, m, c = gethook(); sethook(); finish(id, r); if h then sethook(h, m, c) end; if r[1] then return unpack(r, 2, r.n) end return ...
  end
end
