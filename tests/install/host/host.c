/*
** host.c -- a host written against the C API of the Lua it is built with
** (any of 5.1 to 5.4: its lua.h says which), that profiles its script with
** luainstr as an outside program would, through luainstr_wrap.h: the
** script is run with luaL_dofile, then its global function `task` is
** resumed from C on a thread of its own until it returns, each time with
** the version's lua_resume.
**
**     host SCRIPT REPORT      writes the text report to REPORT and the
**                             csv report to REPORT.csv
**
** Built with -DLI_NO_WRAP it leaves luainstr_wrap.h out, as a host that
** forgot it: its loads and resumes then bypass the profiler; with
** -DLI_NO_WRAP_RESUME its resumes only (the test's controls: the report
** says so).
*/
#include <stdio.h>

#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#include <luainstr.h>
#if !defined(LI_NO_WRAP)
#include <luainstr_wrap.h>
#endif
#if defined(LI_NO_WRAP_RESUME)
#undef lua_resume
#endif

/* Resumes co (its function, or its yield, and one argument on its stack)
** and drops what it yielded; its status. */
static int resume_once(lua_State *L, lua_State *co) {
  int status;
#if LUA_VERSION_NUM >= 504
  int nres;
  status = lua_resume(co, L, 1, &nres);
#elif LUA_VERSION_NUM >= 502
  status = lua_resume(co, L, 1);
#else
  (void)L;
  status = lua_resume(co, 1);
#endif
  if (status == LUA_YIELD) lua_settop(co, 0);
  return status;
}

int main(int argc, char **argv) {
  lua_State *L, *co;
  int status, n = 0;
  char csv[4096];
  if (argc != 3) {
    fprintf(stderr, "usage: host SCRIPT REPORT\n");
    return 2;
  }
  L = luaL_newstate();
  luaL_openlibs(L);
  if (luainstr_open(L) != LUAINSTR_OK) {
    fprintf(stderr, "host: %s\n", luainstr_errmsg(L));
    return 1;
  }
  luainstr_install_hooks();
  if (luaL_dofile(L, argv[1]) != 0) {
    fprintf(stderr, "host: %s\n", lua_tostring(L, -1));
    return 1;
  }
  co = lua_newthread(L);
  lua_getglobal(L, "task");
  lua_xmove(L, co, 1);
  do {
    lua_pushinteger(co, n++);
    status = resume_once(L, co);
  } while (status == LUA_YIELD);
  if (status != 0) {
    fprintf(stderr, "host: task: %s\n", lua_tostring(co, -1));
    return 1;
  }
  snprintf(csv, sizeof csv, "%s.csv", argv[2]);
  if (luainstr_dump(L, "text", argv[2]) != LUAINSTR_OK ||
      luainstr_dump(L, "csv", csv) != LUAINSTR_OK) {
    fprintf(stderr, "host: %s\n", luainstr_errmsg(L));
    return 1;
  }
  lua_close(L);
  printf("host: %s, task resumed %d times\n", LUA_VERSION, n);
  return 0;
}
