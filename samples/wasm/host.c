/*
** host.c -- luainstr in a web page: a small C host compiled to
** WebAssembly (build-wasm/web/luainstr-web.js) whose API JavaScript calls.
**
**   li_wasm_set_option(name, value)  profiler option for the next run
**   li_wasm_run(source, chunkname)   run a script in a fresh profiled state
**   li_wasm_output()                 what it printed (print, io.write)
**   li_wasm_report(format)           the profile of that run, as a string
**   li_wasm_error()                  why the last call failed
**   li_wasm_free()                   close the state, free everything
**
** It is an engine host like samples/host/: the script is loaded with
** luaL_loadbufferx routed through wrap_luaL_loadbufferx, whose loader is
** luainstr's instrumenting one.  Strings returned belong to this module and
** stay valid until the next call of the same function or li_wasm_free.
** See README.md here for the JavaScript side.
*/
#define _POSIX_C_SOURCE 200809L  /* strdup */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emscripten.h>

#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#include <luainstr.h>

#include "luainstr_web.h"

/* After lauxlib.h: luaL_loadbufferx below is the swappable loader. */
#define luaL_loadbufferx wrap_luaL_loadbufferx

/* Files of emscripten's in-memory file system that the host uses. */
#define OUTPUT_PATH "/tmp/.li-wasm-output"   /* the script's stdout */
#define REPORT_PATH "/tmp/.li-wasm-report"   /* luainstr_dump's file */

#define MAX_OPTIONS 64          /* set_option calls kept for the next run */
#define ERRBUF 512

/* One option, as luainstr_set_option takes it. */
typedef struct Option {
  char *name;                   /* "trace", "include", "exclude", ... */
  char *value;                  /* its value */
} Option;

/* Everything the host keeps between calls: one profiled state at a time. */
static struct {
  lua_State *L;                 /* the last run's state (for reports) */
  Option options[MAX_OPTIONS];  /* applied to every later run, in order */
  int noptions;                 /* how many */
  char *output;                 /* what the last run printed */
  char *report;                 /* the last report */
  char *runerr;                 /* the last run's error message */
  char error[ERRBUF];           /* why the last call failed */
} host;

/* Marks the error os.exit raises (its address is the error value). */
static int exit_marker;
static int exit_status;         /* os.exit's status, when it was called */


static const char *fail (const char *fmt, const char *what) {
  snprintf(host.error, sizeof host.error, fmt, what);
  return host.error;
}


/* The whole of a file as a malloc'd string; NULL when it cannot be read. */
static char *slurp (const char *path) {
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  if (f == NULL) return NULL;
  if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET) != 0 || (buf = malloc((size_t)n + 1)) == NULL) {
    fclose(f);
    return NULL;
  }
  buf[fread(buf, 1, (size_t)n, f)] = '\0';
  fclose(f);
  return buf;
}


static void close_state (void) {
  if (host.L != NULL) lua_close(host.L);
  host.L = NULL;
}


/* os.exit cannot end a page: it ends the script, as an error that
** li_wasm_run tells from others by its value. */
static int host_exit (lua_State *L) {
  if (lua_isboolean(L, 1))
    exit_status = lua_toboolean(L, 1) ? 0 : 1;
  else
    exit_status = (int)luaL_optinteger(L, 1, 0);
  lua_pushlightuserdata(L, &exit_marker);
  return lua_error(L);
}


/* lua.c's message handler: the message with a traceback. */
static int msghandler (lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (lua_touserdata(L, 1) == &exit_marker) return 1;
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)",
                          luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}


/* A fresh state with the standard libraries, profiled from the start. */
static const char *open_state (void) {
  int i;
  host.L = luaL_newstate();
  if (host.L == NULL) return fail("%s", "cannot create state: not enough memory");
  /* Lua leaves the main thread's extra space (lua_getextraspace)
  ** uninitialised; nothing here uses it, so it is NULL, and the profiler
  ** keeps its stacks there (coroutine switches find them at once). */
  memset(lua_getextraspace(host.L), 0, LUA_EXTRASPACE);
  luaL_openlibs(host.L);
  lua_getglobal(host.L, "os");
  lua_pushcfunction(host.L, host_exit);
  lua_setfield(host.L, -2, "exit");
  lua_pop(host.L, 1);
  if (luainstr_open(host.L) != LUAINSTR_OK)
    return fail("luainstr_open: %s", luainstr_errmsg(host.L));
  luainstr_install_loadbufferx_hook(luainstr_loadbufferx);
  for (i = 0; i < host.noptions; i++)
    if (luainstr_set_option(host.L, host.options[i].name,
                            host.options[i].value) != LUAINSTR_OK)
      return fail("%s", luainstr_errmsg(host.L));
  return NULL;
}


/* Loads and runs source; NULL, or the error message on the stack. */
static const char *load_and_run (const char *source, const char *chunkname) {
  lua_State *L = host.L;
  int status, base;
  lua_pushcfunction(L, msghandler);
  base = lua_gettop(L);
  status = luaL_loadbufferx(L, source, strlen(source), chunkname, NULL);
  if (status == LUA_OK) status = luainstr_pcall(L, 0, 0, base);
  if (status == LUA_OK) return NULL;
  if (lua_touserdata(L, -1) == &exit_marker) {
    if (exit_status == 0) return NULL;
    lua_pushfstring(L, "os.exit(%d)", exit_status);
  }
  return lua_tostring(L, -1) != NULL ? lua_tostring(L, -1)
                                     : "(error object is not a string)";
}


/* "name" becomes "@name" (a file name in messages and reports); names
** that start with '@' or '=' are Lua's own forms and stay. */
static const char *chunk_name (lua_State *L, const char *name) {
  if (name == NULL || name[0] == '\0') name = "main.lua";
  if (name[0] == '@' || name[0] == '=') return name;
  return lua_pushfstring(L, "@%s", name);
}


EMSCRIPTEN_KEEPALIVE
const char *li_wasm_run (const char *source, const char *chunkname) {
  const char *err;
  close_state();
  free(host.output);  host.output = NULL;
  free(host.runerr);  host.runerr = NULL;
  if (source == NULL) return fail("%s", "li_wasm_run: no source");
  /* print and io.write go to stdout, which is a file while the script
  ** runs; stdin is empty (a browser has none). */
  fflush(stdout);
  if (freopen(OUTPUT_PATH, "w", stdout) == NULL)
    return fail("cannot open %s", OUTPUT_PATH);
  freopen("/dev/null", "r", stdin);
  exit_status = 0;
  err = open_state();
  if (err == NULL) {
    chunkname = chunk_name(host.L, chunkname);
    err = load_and_run(source, chunkname);
    if (err != NULL) {
      host.runerr = strdup(err);
      err = host.runerr != NULL ? host.runerr : fail("%s", "not enough memory");
    }
  }
  fflush(stdout);
  host.output = slurp(OUTPUT_PATH);
  return err;
}


EMSCRIPTEN_KEEPALIVE
const char *li_wasm_output (void) {
  return host.output != NULL ? host.output : "";
}


EMSCRIPTEN_KEEPALIVE
const char *li_wasm_report (const char *format) {
  free(host.report);
  host.report = NULL;
  if (host.L == NULL) {
    fail("%s", "li_wasm_report: no run to report on");
    return NULL;
  }
  int r = luainstr_dump(host.L, format != NULL ? format : "text", REPORT_PATH);
  if (r != LUAINSTR_OK && r != LUAINSTR_EEMPTY) {   /* (empty: still written) */
    fail("%s", luainstr_errmsg(host.L));
    return NULL;
  }
  host.report = slurp(REPORT_PATH);
  remove(REPORT_PATH);
  if (host.report == NULL) fail("cannot read %s", REPORT_PATH);
  return host.report;
}


/* Options apply from the next li_wasm_run on, in the order given; "clear"
** forgets them all (back to luainstr's defaults). */
EMSCRIPTEN_KEEPALIVE
const char *li_wasm_set_option (const char *name, const char *value) {
  Option *o;
  if (name == NULL) return fail("%s", "li_wasm_set_option: no name");
  if (strcmp(name, "clear") == 0) {
    while (host.noptions > 0) {
      o = &host.options[--host.noptions];
      free(o->name);
      free(o->value);
    }
    return NULL;
  }
  if (strcmp(name, "trace") != 0 && strcmp(name, "include") != 0 &&
      strcmp(name, "exclude") != 0 && strcmp(name, "clear_patterns") != 0)
    return fail("unknown option '%s' (trace, include, exclude, "
                "clear_patterns, clear)", name);
  if (host.noptions == MAX_OPTIONS) return fail("%s", "too many options");
  o = &host.options[host.noptions];
  o->name = strdup(name);
  o->value = strdup(value != NULL ? value : "");
  if (o->name == NULL || o->value == NULL) {
    free(o->name);
    free(o->value);
    return fail("%s", "not enough memory");
  }
  host.noptions++;
  return NULL;
}


EMSCRIPTEN_KEEPALIVE
const char *li_wasm_error (void) {
  return host.error;
}


EMSCRIPTEN_KEEPALIVE
void li_wasm_free (void) {
  close_state();
  li_wasm_set_option("clear", NULL);
  free(host.output);  host.output = NULL;
  free(host.report);  host.report = NULL;
  free(host.runerr);  host.runerr = NULL;
  host.error[0] = '\0';
}
