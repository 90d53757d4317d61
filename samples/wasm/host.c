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
** and the live view without a server (issue 22, docs/live-protocol.md "In
** the browser without a server"): the page runs a game loop on
** requestAnimationFrame and streams the state's messages to the live
** view in a frame of its own.
**
**   li_wasm_live_start(source, chunkname)  a fresh state in live mode
**                                    "page" that keeps the script's tick
**   li_wasm_live_tick(dt)            tick(dt), then a frame mark
**   li_wasm_live_drain()             the messages since the last drain
**   li_wasm_live_command(json)       a command from the view
**   li_wasm_live_stop()              the session ends (the state stays)
**   li_wasm_live_page()              the live view's page (html)
**   li_wasm_live_download(n)         the file of the ack's download N (its
**                                    path in the module's file system)
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

#include "runtime.h"    /* li_prof_get: the live channel's owner */
#include "live.h"       /* li_live_drain, li_live_command */
#include "writers.h"    /* li_write_html_live */

#include "luainstr_web.h"

/* After lauxlib.h: luaL_loadbufferx below is the swappable loader. */
#define luaL_loadbufferx wrap_luaL_loadbufferx

/* Files of emscripten's in-memory file system that the host uses. */
#define OUTPUT_PATH "/tmp/.li-wasm-output"   /* the script's stdout */
#define REPORT_PATH "/tmp/.li-wasm-report"   /* luainstr_dump's file */
#define PAGE_PATH "/tmp/.li-wasm-live.html"  /* li_write_html_live's */

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
  /* live mode */
  int live;                     /* a session is running: ticks are taken */
  int tick;                     /* the tick function (registry ref) while
                                   the session is not stopped */
  int idle;                     /* an idle span is open (between ticks) */
  char *drained;                /* the last li_wasm_live_drain */
  char *page;                   /* the last li_wasm_live_page */
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
  if (host.L != NULL) lua_close(host.L);  /* (a live channel closes too) */
  host.L = NULL;
  host.live = host.idle = 0;
  host.tick = LUA_NOREF;
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


/* The message of a failed call (on the stack): NULL for os.exit(0). */
static const char *call_error (lua_State *L) {
  if (lua_touserdata(L, -1) == &exit_marker) {
    if (exit_status == 0) return NULL;
    lua_pushfstring(L, "os.exit(%d)", exit_status);
  }
  return lua_tostring(L, -1) != NULL ? lua_tostring(L, -1)
                                     : "(error object is not a string)";
}


/* Loads and runs source, its results (nresults) left on the stack; NULL,
** or the error message on the stack. */
static const char *load_and_run (const char *source, const char *chunkname,
                                 int nresults) {
  lua_State *L = host.L;
  int status, base;
  lua_pushcfunction(L, msghandler);
  base = lua_gettop(L);
  status = luaL_loadbufferx(L, source, strlen(source), chunkname, NULL);
  if (status == LUA_OK) status = luainstr_pcall(L, 0, nresults, base);
  return status == LUA_OK ? NULL : call_error(L);
}


/* "name" becomes "@name" (a file name in messages and reports); names
** that start with '@' or '=' are Lua's own forms and stay. */
static const char *chunk_name (lua_State *L, const char *name) {
  if (name == NULL || name[0] == '\0') name = "main.lua";
  if (name[0] == '@' || name[0] == '=') return name;
  return lua_pushfstring(L, "@%s", name);
}


/* The start of a run (li_wasm_run, li_wasm_live_start): the previous
** state closed, stdout a file, a fresh profiled state.  NULL, or why not. */
static const char *begin_run (const char *source, const char *caller) {
  close_state();
  free(host.output);  host.output = NULL;
  free(host.runerr);  host.runerr = NULL;
  if (source == NULL) return fail("%s: no source", caller);
  /* print and io.write go to stdout, which is a file while the script
  ** runs; stdin is empty (a browser has none). */
  fflush(stdout);
  if (freopen(OUTPUT_PATH, "w", stdout) == NULL)
    return fail("cannot open %s", OUTPUT_PATH);
  freopen("/dev/null", "r", stdin);
  exit_status = 0;
  return open_state();
}


/* err (a message on the Lua stack, or NULL) as the host's own copy. */
static const char *keep_error (const char *err) {
  if (err == NULL) return NULL;
  free(host.runerr);
  host.runerr = strdup(err);
  return host.runerr != NULL ? host.runerr : fail("%s", "not enough memory");
}


/* What the script printed so far, read back. */
static void read_output (void) {
  fflush(stdout);
  free(host.output);
  host.output = slurp(OUTPUT_PATH);
}


EMSCRIPTEN_KEEPALIVE
const char *li_wasm_run (const char *source, const char *chunkname) {
  const char *err = begin_run(source, "li_wasm_run");
  if (err == NULL)
    err = keep_error(load_and_run(source, chunk_name(host.L, chunkname), 0));
  if (source != NULL) read_output();
  return err;
}


EMSCRIPTEN_KEEPALIVE
const char *li_wasm_output (void) {
  if (host.live) read_output();   /* a live session prints as it goes */
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
  free(host.drained);  host.drained = NULL;
  free(host.page);  host.page = NULL;
  host.error[0] = '\0';
}


/* ======================================================================
** Live mode: the page's game loop (docs/live-protocol.md, "In the browser
** without a server").  The page calls li_wasm_live_tick on every
** requestAnimationFrame and posts what li_wasm_live_drain gives to the
** live view in its frame; the view's commands come back through
** li_wasm_live_command and are applied at the next frame mark.  The time
** between two ticks is an idle span (the browser's, not the game's), so
** frames' busy time, which the spike rule reads, is the tick's own.
** ====================================================================== */

/* Options of a live session, after the page's own (trace, include, ...):
** frame marks, memory per function (the view's memory figures), and the
** channel drained by the page instead of a server. */
static const char *const live_options[][2] = {
  {"frames", "on"}, {"memory", "on"}, {"live", "page"}
};


/* The idle span between two ticks: the browser's wait for the next
** animation frame.  (While collection is paused or stopped, begin does
** nothing and end says none is open: harmless either way.) */
static void idle (int begin) {
  if (begin && !host.idle)
    host.idle = luainstr_idle_begin(host.L) == LUAINSTR_OK;
  else if (!begin && host.idle) {
    luainstr_idle_end(host.L);
    host.idle = 0;
  }
}


EMSCRIPTEN_KEEPALIVE
const char *li_wasm_live_start (const char *source, const char *chunkname) {
  const char *err = begin_run(source, "li_wasm_live_start");
  lua_State *L = host.L;
  size_t i;
  for (i = 0; err == NULL && i < sizeof live_options / sizeof live_options[0]; i++)
    if (luainstr_set_option(L, live_options[i][0], live_options[i][1]) != LUAINSTR_OK)
      err = fail("live mode: %s", luainstr_errmsg(L));
  if (err == NULL)
    err = keep_error(load_and_run(source, chunk_name(L, chunkname), 1));
  if (err == NULL) {
    /* the chunk's result if it is a function, else the global tick */
    if (!lua_isfunction(L, -1)) {
      lua_pop(L, 1);
      lua_getglobal(L, "tick");
    }
    if (lua_isfunction(L, -1)) {
      host.tick = luaL_ref(L, LUA_REGISTRYINDEX);
      host.live = 1;
      idle(1);                    /* until the first tick */
    } else
      err = fail("%s", "live mode: the script defines no tick function "
                 "(a global function tick(dt), or the chunk returns one)");
  }
  if (L != NULL) lua_settop(L, 0);
  if (source != NULL) read_output();
  return err;
}


EMSCRIPTEN_KEEPALIVE
const char *li_wasm_live_tick (double dt) {
  lua_State *L = host.L;
  const char *err = NULL;
  int base, status;
  if (!host.live) return fail("%s", "li_wasm_live_tick: no live session");
  idle(0);
  lua_pushcfunction(L, msghandler);
  base = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, host.tick);
  lua_pushnumber(L, dt);
  status = luainstr_pcall(L, 1, 0, base);
  /* The frame's mark, which also applies the view's commands. */
  luainstr_frame(L);
  if (status != LUA_OK) {
    /* an error ends the session, and so does os.exit (0 or true: NULL) */
    err = keep_error(call_error(L));
    host.live = 0;
  } else
    idle(1);
  lua_settop(L, 0);
  return err;
}


/* Is a live session running (started, and its tick has not failed or
** called os.exit)? */
EMSCRIPTEN_KEEPALIVE
int li_wasm_live_running (void) {
  return host.live;
}


EMSCRIPTEN_KEEPALIVE
const char *li_wasm_live_drain (void) {
  li_prof *P = host.L != NULL ? li_prof_get(host.L) : NULL;
  size_t len;
  free(host.drained);
  host.drained = P != NULL ? li_live_drain(P, &len) : NULL;
  return host.drained;
}


/* The path of download n ("/download/S/n" in an ack), in the module's
** memory file system, where the command wrote it; NULL: none (li_wasm_error
** says why). */
EMSCRIPTEN_KEEPALIVE
const char *li_wasm_live_download (unsigned n) {
  li_prof *P = host.L != NULL ? li_prof_get(host.L) : NULL;
  const char *path = P != NULL ? li_live_page_download(P, (uint32_t)n) : NULL;
  if (path == NULL) {
    snprintf(host.error, sizeof host.error,
             "li_wasm_live_download: no download %u in this session", n);
    return NULL;
  }
  return path;
}

EMSCRIPTEN_KEEPALIVE
const char *li_wasm_live_command (const char *json) {
  li_prof *P = host.L != NULL ? li_prof_get(host.L) : NULL;
  if (json == NULL) return fail("%s", "li_wasm_live_command: no command");
  if (P == NULL) return fail("%s", "li_wasm_live_command: no live session");
  if (li_live_command(P, json, strlen(json)) != LUAINSTR_OK)
    return fail("%s", luainstr_errmsg(host.L));
  return NULL;
}


/* The session ends as the view's own "stop" would end collection, applied
** at once (there is no next mark): the view's last messages (the next
** drain) say so.  The channel stays open until the state closes, since a
** channel closed now could not deliver its "end" to a drain. */
EMSCRIPTEN_KEEPALIVE
const char *li_wasm_live_stop (void) {
  static const char stop[] = "{\"cmd\":\"stop\"}";
  li_prof *P = host.L != NULL ? li_prof_get(host.L) : NULL;
  if (P == NULL) return fail("%s", "li_wasm_live_stop: no state");
  idle(0);
  if (host.tick != LUA_NOREF && li_live_command(P, stop, sizeof stop - 1) == LUAINSTR_OK)
    li_live_poll(P, host.L);
  host.tick = LUA_NOREF;        /* (the state keeps the function: it closes) */
  host.live = 0;
  read_output();
  return NULL;
}


EMSCRIPTEN_KEEPALIVE
const char *li_wasm_live_page (void) {
  FILE *f = fopen(PAGE_PATH, "wb");
  int r;
  free(host.page);
  host.page = NULL;
  if (f == NULL) {
    fail("cannot open %s", PAGE_PATH);
    return NULL;
  }
  r = li_write_html_live(f);
  if (fclose(f) != 0 || r != 0) {
    remove(PAGE_PATH);
    fail("cannot write %s", PAGE_PATH);
    return NULL;
  }
  host.page = slurp(PAGE_PATH);
  remove(PAGE_PATH);
  if (host.page == NULL) fail("cannot read %s", PAGE_PATH);
  return host.page;
}
