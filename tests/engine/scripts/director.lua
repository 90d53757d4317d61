-- director.lua: run by the engine with luaL_dofile.  The director is a
-- Lua system that resumes its task coroutine through the engine's C
-- function engine.resume_task (lua_resume from C, called from Lua).

-- The engine calls it once a tick, with the task's thread.
function director(task)
  spin(0.2)
  local status = engine.resume_task(task)
  spin(0.2)
  return status
end
