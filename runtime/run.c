/*
** run.c -- what the `luaprof` command and the `luainstr.run` module share:
** lua.c's way of running a script (message handler with traceback, the
** script's arguments from `arg`) and the report, written exactly once when
** the program ends: after the script returns or fails, from os.exit
** (before a requested lua_close, which frees the profiler), when the state
** closes some other way, or from an atexit handler when C code calls
** exit().  One report per process, as one program runs per process.
*/
#include <stdio.h>
#include <stdlib.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "runtime.h"

/* Where and how the report goes, and whether it went. */
static struct {
  lua_State *L;         /* the open state, NULL once closed */
  const char *who;      /* prefix of our messages ("luaprof") */
  const char *format;   /* report format */
  const char *path;     /* absolute path, or NULL for stderr */
  int written;          /* the report was written (or tried) */
  int atexit_set;       /* the atexit handler is registered */
} report;


int li_run_report_write(void) {
  lua_State *L = report.L;
  if (report.written || L == NULL) return 1;
  report.written = 1;
  fflush(stdout);  /* the program's output before a report on a terminal */
  if (luainstr_dump(L, report.format, report.path) != LUAINSTR_OK) {
    fprintf(stderr, "%s: %s\n", report.who, luainstr_errmsg(L));
    fflush(stderr);
    return 0;
  }
  return 1;
}


void li_run_report_forget(void) {
  report.L = NULL;
}


/* For exit() from C code: the state is still open.  The exit status is
** already chosen, so a failure can only be reported. */
static void write_at_exit(void) {
  li_run_report_write();
}


void li_run_report_setup(lua_State *L, const char *who, const char *format,
                         const char *path) {
  report.L = L;
  report.who = who;
  report.format = format;
  report.path = path;
  report.written = 0;
  if (!report.atexit_set) report.atexit_set = atexit(write_at_exit) == 0;
}


/* os.exit as loslib's, but writing the report first: a requested
** lua_close frees the profiler, and exit() is too late to change the
** status when the report fails. */
static int run_os_exit(lua_State *L) {
  int status;
  if (lua_isboolean(L, 1))
    status = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
  else
    status = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
  if (!li_run_report_write() && status == EXIT_SUCCESS)
    status = EXIT_FAILURE;
  if (lua_toboolean(L, 2)) {
    report.L = NULL;
    lua_close(L);
  }
  exit(status);
  return 0;
}


/* When the state closes in some other way (a C module's lua_close): the
** last moment the profiler still holds its figures. */
static void write_on_close(lua_State *L, void *ud) {
  (void)L;  (void)ud;
  li_run_report_write();
  report.L = NULL;
}


void li_run_report_hooks(lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, LUA_OSLIBNAME) == LUA_TTABLE) {
    lua_pushcfunction(L, run_os_exit);
    lua_setfield(L, -2, "exit");
  }
  lua_pop(L, 2);
  li_prof_on_close(L, write_on_close, NULL);
}


int li_run_msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)",
                          luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}


int li_run_pushargs(lua_State *L) {
  int i, n;
  if (lua_getglobal(L, "arg") != LUA_TTABLE)
    luaL_error(L, "'arg' is not a table");
  n = (int)luaL_len(L, -1);
  luaL_checkstack(L, n + 3, "too many arguments to script");
  for (i = 1; i <= n; i++)
    lua_rawgeti(L, -i, i);
  lua_remove(L, -i);
  return n;
}
