/*
** run.c -- what the `luaprof` command and the `luainstr.run` module share:
** lua.c's way of running a script (message handler with traceback, the
** script's arguments from `arg`) and the report, written exactly once when
** the program ends: after the script returns or fails, from os.exit
** (before a requested lua_close, which frees the profiler), when the state
** closes some other way, or from an atexit handler when C code calls
** exit().  One report per process, as one program runs per process.
*/
#define _GNU_SOURCE      /* dladdr, RTLD_NODELETE */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>
#include "luaver.h"
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
  switch (luainstr_dump(L, report.format, report.path)) {
  case LUAINSTR_OK: break;
  case LUAINSTR_EEMPTY:         /* written: a warning, not a failure */
    fprintf(stderr, "%s: warning: %s\n", report.who, luainstr_errmsg(L));
    break;
  default:
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


/* Keep the shared object holding this code loaded until the process
** ends: lua_close unloads C modules, and this code runs then (a no-op when it is linked into the program). */
static void pin_module(void) {
#ifndef __EMSCRIPTEN__
  Dl_info info;
  if (dladdr((void *)pin_module, &info) && info.dli_fname != NULL)
    dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
#endif
  /* A WebAssembly program is one static module: nothing can unload this
  ** code, and emscripten's dlopen aborts without dynamic linking. */
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
    pin_module();
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


/*
** {======================================================
** The luainstr.run module: `lua5.4 -l luainstr.run SCRIPT [ARGS]`
** =======================================================
*/

#define RUN "luainstr.run"

/* Does this argument of lua.c name our module (-l luainstr.run, glued,
** or g=luainstr.run)? */
static int names_us(const char *a) {
  size_t n = strlen(a), k = sizeof RUN - 1;
  return n >= k && strcmp(a + n - k, RUN) == 0 &&
         (n == k || a[n - k - 1] == '=' || a[n - k - 1] == 'l');
}

/* Checks lua.c's arg table (at idx): the script is at 0 and the
** interpreter's options below it.  Returns the lowest index (the
** interpreter's name), or raises an error when there is no script or an
** option follows ours (lua.c would run it after the script). */
static lua_Integer check_args(lua_State *L, int idx) {
  lua_Integer i;
  int ours = 0;
  if (lua_rawgeti(L, idx, -1) == LUA_TNIL)   /* no options: no script */
    luaL_error(L, RUN ": no script to profile (usage: lua5.4 [options] "
               "-l " RUN " SCRIPT [ARGS], or - for stdin)");
  lua_pop(L, 1);
  for (i = -1; lua_rawgeti(L, idx, i) == LUA_TSTRING; i--) {
    const char *a = lua_tostring(L, -1);
    lua_pop(L, 1);
    if (!ours && names_us(a)) ours = 1;
    else if (!ours && strcmp(a, "--") != 0 && strcmp(a, "-l") != 0)
      luaL_error(L, RUN ": option '%s' comes after -l " RUN
                 " (put -l " RUN " last, just before the script)", a);
  }
  lua_pop(L, 1);
  return i + 1;
}

/* lua.c's message handler, without the two levels lua.c's script does not
** have below it: require, and lua.c's main function below it (the script
** runs inside `require "luainstr.run"`). */
static int run_msghandler(lua_State *L) {
  static const char below[] = "\n\t[C]: in function 'require'\n\t[C]: in ?";
  size_t n, k = sizeof below - 1;
  const char *s;
  li_run_msghandler(L);
  s = lua_tolstring(L, -1, &n);
  if (s != NULL && n >= k && memcmp(s + n - k, below, k) == 0)
    lua_pushlstring(L, s, n - k);
  return 1;
}

static int run_docall(lua_State *L, int narg) {
  int status, base = lua_gettop(L) - narg;
  lua_pushcfunction(L, run_msghandler);
  lua_insert(L, base);
  status = lua_pcall(L, narg, 0, base);
  lua_remove(L, base);
  return status;
}

int (luaopen_luainstr_run)(lua_State *L) {
  const char *format = getenv("LUAINSTR_FORMAT"), *out = getenv("LUAINSTR_OUT");
  const char *fname, *progname;
  char *out_abs;
  int status, ok;
  if (!li_lua_matches()) return li_lua_refuse(L);  /* (as luaopen_luainstr) */
  if (lua_getglobal(L, "arg") != LUA_TTABLE)
    return luaL_error(L, RUN ": no 'arg' table (run from lua5.4's command line)");
  lua_rawgeti(L, -1, check_args(L, lua_gettop(L)));
  progname = lua_tostring(L, -1);                    /* stays on the stack */
  lua_rawgeti(L, -2, 0);
  fname = lua_tostring(L, -1);
  lua_rawgeti(L, -3, -1);
  if (fname != NULL && strcmp(fname, "-") == 0 &&
      strcmp(lua_tostring(L, -1), "--") != 0)
    fname = NULL;                                    /* stdin, as lua.c */
  lua_pop(L, 1);
  if (format == NULL || format[0] == '\0') format = "text";
  if (!li_report_known(format))
    return luaL_error(L, RUN ": unknown LUAINSTR_FORMAT '%s' (formats: %s)",
                      format, li_report_formats());
  if (out != NULL && out[0] == '\0') out = NULL;
  if (luainstr_open(L) != LUAINSTR_OK)
    return luaL_error(L, RUN ": %s", luainstr_errmsg(L));
  if (strcmp(format, "chrome") == 0 &&
      luainstr_set_option(L, "trace", "on") != LUAINSTR_OK)
    return luaL_error(L, RUN ": %s", luainstr_errmsg(L));
  /* The script may change directory before the report is written; the
  ** string lives as long as the process (the atexit handler reads it). */
  out_abs = li_report_abspath(out);
  li_run_report_setup(L, RUN, format, out_abs != NULL ? out_abs : out);
  li_run_report_hooks(L);
  status = li_loadfilex(L, fname, NULL);
  if (status == LUA_OK) status = run_docall(L, li_run_pushargs(L));
  if (status != LUA_OK) {                            /* as lua.c's l_message */
    lua_writestringerror("%s: ", progname);
    lua_writestringerror("%s\n", lua_tostring(L, -1));
  }
  ok = li_run_report_write();
  li_run_report_forget();
  /* End as lua.c ends after the script: close the state (finalizers run),
  ** exit with its status, so lua.c never runs the script itself.  Closing
  ** the state unloads the C modules, this one too, while its code runs:
  ** pin it first. */
  pin_module();
  lua_close(L);
  exit(status == LUA_OK && ok ? EXIT_SUCCESS : EXIT_FAILURE);
  return 0;
}

/* }====================================================== */
