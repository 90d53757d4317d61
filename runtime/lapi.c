/*
** lapi.c -- the C API of include/luainstr.h and the Lua module
** (`require "luainstr"`, also built as the C module luainstr.so).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "luainstr.h"
#include "profiler.h"

#define MODNAME "luainstr"
#define LI_TRACE_DEFAULT 1000000u    /* events: 24 MB */
#define LI_TRACE_MAX 100000000u


/* ======================================================================
** The swappable loader (the one process-wide variable)
** ====================================================================== */

static luainstr_loader current_loader = luaL_loadbufferx;

int (wrap_luaL_loadbufferx)(lua_State *L, const char *buff, size_t sz,
                            const char *name, const char *mode) {
  return current_loader(L, buff, sz, name, mode);
}

void (luainstr_install_loadbufferx_hook)(luainstr_loader fn) {
  current_loader = fn != NULL ? fn : luaL_loadbufferx;
}

void (luainstr_uninstall_loadbufferx_hook)(void) {
  current_loader = luaL_loadbufferx;
}

int (luainstr_loadbufferx)(lua_State *L, const char *buff, size_t sz,
                           const char *name, const char *mode) {
  return li_load(L, buff, sz, name, mode);
}


/* ======================================================================
** The C API
** ====================================================================== */

static const char no_profiler[] = "no profiler is attached to this state "
                                  "(call luainstr_open first)";

static int fail(li_prof *P, int code, const char *fmt, const char *arg) {
  snprintf(P->errmsg, sizeof P->errmsg, fmt, arg);
  return code;
}

/* Replace what luainstr_open replaces (once). */
static void install(lua_State *L) {
  li_install_boundaries(L);
  li_install_loaders(L);
}

/* A host calls the API outside any protected call, and the Lua API raises
** an error when memory runs out: the calls that use it run their work
** under lua_pcall, where an error becomes LUAINSTR_EMEM (with Lua's
** message).  Each step can be run again after a failure. */
typedef struct api_step {
  int (*fn)(lua_State *L);  /* the work; returns a status code */
} api_step;

static int run_step(lua_State *L) {
  const api_step *step = lua_touserdata(L, 1);
  lua_pushinteger(L, step->fn(L));
  return 1;
}

static int protected_step(lua_State *L, int (*fn)(lua_State *L)) {
  api_step step = { fn };
  int top = lua_gettop(L), code;
  li_prof *P;
  if (!lua_checkstack(L, 2)) return LUAINSTR_EMEM;
  lua_pushcfunction(L, run_step);
  lua_pushlightuserdata(L, &step);
  if (lua_pcall(L, 1, 1, 0) == LUA_OK) {
    code = (int)lua_tointeger(L, -1);
  } else {
    const char *msg = lua_tostring(L, -1);
    code = LUAINSTR_EMEM;
    if ((P = li_prof_get(L)) != NULL)
      fail(P, code, "%s", msg != NULL ? msg : "not enough memory");
  }
  lua_settop(L, top);
  return code;
}

static int open_step(lua_State *L) {
  li_prof *P = li_prof_attach(L);
  if (P == NULL) return LUAINSTR_EMEM;
  install(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, MODNAME) != LUA_TTABLE) {
    lua_pop(L, 1);
    luaopen_luainstr(L);
    lua_setfield(L, -2, MODNAME);
  } else {
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (!P->started) return li_prof_start(P, L);
  return LUAINSTR_OK;
}

int (luainstr_open)(lua_State *L) {
  return protected_step(L, open_step);
}

static int attach_step(lua_State *L) {
  return li_prof_attach(L) != NULL ? LUAINSTR_OK : LUAINSTR_EMEM;
}

int (luainstr_set_clock)(lua_State *L, const char *name, luainstr_clock ticks,
                         void *ud, double ns_per_tick) {
  li_prof *P;
  int r;
  if (L == NULL) return LUAINSTR_EARG;
  if ((r = protected_step(L, attach_step)) != LUAINSTR_OK) return r;
  if ((P = li_prof_get(L)) == NULL) return LUAINSTR_EORDER;
  if (P->ever_started)
    return fail(P, LUAINSTR_EORDER, "set_clock: the profiler has started; "
                "set the clock before luainstr_open or the first start%s", "");
  if (ticks == NULL) li_clock_init(&P->clock);
  else li_clock_init_host(&P->clock, name, ticks, ud, ns_per_tick);
  return LUAINSTR_OK;
}

/* (the first start calibrates the probe's cost, with the Lua API) */
static int start_step(lua_State *L) {
  li_prof *P = li_prof_get(L);
  return P ? li_prof_start(P, L) : LUAINSTR_EORDER;
}

int (luainstr_start)(lua_State *L) {
  return li_prof_get(L) ? protected_step(L, start_step) : LUAINSTR_EORDER;
}

int (luainstr_stop)(lua_State *L) {
  li_prof *P = li_prof_get(L);
  return P ? li_prof_stop(P) : LUAINSTR_EORDER;
}

int (luainstr_enable)(lua_State *L) {
  li_prof *P = li_prof_get(L);
  return P ? li_prof_enable(P) : LUAINSTR_EORDER;
}

int (luainstr_disable)(lua_State *L) {
  li_prof *P = li_prof_get(L);
  return P ? li_prof_disable(P) : LUAINSTR_EORDER;
}

int (luainstr_reset)(lua_State *L) {
  li_prof *P = li_prof_get(L);
  return P ? li_prof_reset(P) : LUAINSTR_EORDER;
}

int (luainstr_set_option)(lua_State *L, const char *name, const char *value) {
  li_prof *P = li_prof_get(L);
  if (P == NULL) return LUAINSTR_EORDER;
  if (name == NULL) return fail(P, LUAINSTR_EARG, "option name is NULL%s", "");
  if (strcmp(name, "include") == 0 || strcmp(name, "exclude") == 0) {
    if (value == NULL)
      return fail(P, LUAINSTR_EARG, "option '%s' needs a pattern", name);
    if (!li_prof_add_pattern(P, name[0] == 'i', value))
      return fail(P, LUAINSTR_EMEM, "not enough memory%s", "");
    return LUAINSTR_OK;
  }
  if (strcmp(name, "trace") == 0) {
    /* "on" (a buffer of LI_TRACE_DEFAULT events), "off", or a size */
    uint64_t cap = LI_TRACE_DEFAULT;
    if (value != NULL && strcmp(value, "off") == 0) cap = 0;
    else if (value != NULL && strcmp(value, "on") != 0) {
      char *end;
      unsigned long long v = strtoull(value, &end, 10);
      if (end == value || *end != '\0' || value[0] == '-' || v > LI_TRACE_MAX)
        return fail(P, LUAINSTR_EARG, "option 'trace' takes on, off or a "
                    "number of events (at most 100000000), not '%s'", value);
      cap = (uint64_t)v;
    }
    if (!li_prof_set_trace(P, cap))
      return fail(P, LUAINSTR_EMEM, "not enough memory for the trace%s", "");
    return LUAINSTR_OK;
  }
  if (strcmp(name, "clear_patterns") == 0) {
    li_prof_clear_patterns(P);
    return LUAINSTR_OK;
  }
  return fail(P, LUAINSTR_EARG, "unknown option '%s'", name);
}

/* Snapshot P and hand it to the writer: path (NULL: stderr) or string. */
static int dump(li_prof *P, const char *format, const char *path,
                char **str, size_t *len) {
  li_profile prof;
  int r = 0;
  char err[300];
  if (format == NULL) format = "text";
  if (!li_report_known(format)) {
    snprintf(err, sizeof err, "unknown format '%.64s' (formats: %s)", format,
             li_report_formats());
    return fail(P, LUAINSTR_EARG, "%s", err);
  }
  if (!P->ever_started)
    return fail(P, LUAINSTR_EORDER,
                "dump: nothing to dump, the profiler was never started%s", "");
  if (li_snapshot(P, &prof) != 0)
    return fail(P, LUAINSTR_EMEM, "not enough memory%s", "");
  if (str != NULL) {
    if (li_report_to_string(&prof, format, str, len) != 0)
      r = fail(P, LUAINSTR_EMEM, "not enough memory%s", "");
  } else if (path == NULL) {
    if (li_report_write(&prof, format, stderr) != 0 || fflush(stderr) != 0)
      r = fail(P, LUAINSTR_EIO, "cannot write the report to stderr%s", "");
  } else if (li_report_to_path(&prof, format, path, err, sizeof err) != 0) {
    r = fail(P, LUAINSTR_EIO, "%s", err);
  }
  li_snapshot_free(&prof);
  return r;
}

int (luainstr_dump)(lua_State *L, const char *format, const char *path) {
  li_prof *P = li_prof_get(L);
  if (P == NULL) return LUAINSTR_EORDER;
  return dump(P, format, path, NULL, NULL);
}

int (luainstr_pcall)(lua_State *L, int nargs, int nresults, int msgh) {
  li_prof *P = li_prof_get(L);
  li_stack *S = P != NULL && P->on ? li_stack_of(P, L) : NULL;
  uint32_t depth = S != NULL ? S->n : 0;
  int status = lua_pcall(L, nargs, nresults, msgh);
  if (status != LUA_OK && P != NULL && P->on) {
    S = li_stack_of(P, L);
    if (S != NULL && S->n > depth)
      li_stack_close(P, S, depth, li_clock_ticks(&P->clock), 1);
  }
  return status;
}

const char *(luainstr_errmsg)(lua_State *L) {
  li_prof *P;
  /* the header promises NULL for no state; li_prof_get(NULL) would crash */
  if (L == NULL) return NULL;
  P = li_prof_get(L);
  return P != NULL ? P->errmsg : no_profiler;
}

static int close_step(lua_State *L) {
  li_prof *P = li_prof_get(L);
  if (P == NULL) return LUAINSTR_EORDER;
  if (P->started) li_prof_stop(P);
  li_restore_boundaries(L);
  li_restore_loaders(L);
  return LUAINSTR_OK;
}

int (luainstr_close)(lua_State *L) {
  return li_prof_get(L) ? protected_step(L, close_step) : LUAINSTR_EORDER;
}


/* ======================================================================
** The Lua module
** ====================================================================== */

/* The profiler of L for a Lua call (made on first use); NULL once the
** state is closing (a finalizer calling the module then gets a message). */
static li_prof *lprof(lua_State *L) {
  return li_prof_attach(L);
}

static int closing(lua_State *L) {
  luaL_pushfail(L);
  lua_pushliteral(L, "luainstr: the profiler is gone (the state is closing)");
  return 2;
}

/* Lua's way to report a call that makes no sense now: nil, message. */
static int result(lua_State *L, li_prof *P, int code) {
  if (code == LUAINSTR_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  if (code == LUAINSTR_EMEM) return luaL_error(L, "luainstr: %s", P->errmsg);
  luaL_pushfail(L);
  lua_pushfstring(L, "luainstr: %s", P->errmsg);
  return 2;
}

static int l_start(lua_State *L) {
  li_prof *P = lprof(L);
  return P ? result(L, P, li_prof_start(P, L)) : closing(L);
}

static int l_stop(lua_State *L) {
  li_prof *P = lprof(L);
  return P ? result(L, P, li_prof_stop(P)) : closing(L);
}

static int l_enable(lua_State *L) {
  li_prof *P = lprof(L);
  return P ? result(L, P, li_prof_enable(P)) : closing(L);
}

static int l_disable(lua_State *L) {
  li_prof *P = lprof(L);
  return P ? result(L, P, li_prof_disable(P)) : closing(L);
}

static int l_reset(lua_State *L) {
  li_prof *P = lprof(L);
  return P ? result(L, P, li_prof_reset(P)) : closing(L);
}

static const char *check_format(lua_State *L, int arg) {
  const char *format = luaL_optstring(L, arg, "text");
  if (!li_report_known(format))
    luaL_argerror(L, arg, lua_pushfstring(L, "unknown format '%s' (formats: %s)",
                                          format, li_report_formats()));
  return format;
}

#define MT_BOX "luainstr.box"    /* metatable of malloc'd blocks' boxes */

static int box_gc(lua_State *L) {
  char **box = lua_touserdata(L, 1);
  free(*box);
  *box = NULL;
  return 0;
}

/* Push a box for a malloc'd block: it frees the block when collected, so
** an error raised while the block is held (pushing it as a string) leaks
** nothing.  Made before the block, as making it may raise too. */
static char **push_box(lua_State *L) {
  char **box = lua_newuserdatauv(L, sizeof *box, 0);
  *box = NULL;
  if (luaL_newmetatable(L, MT_BOX)) {
    lua_pushcfunction(L, box_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return box;
}

/* p.dump([format]) -> the report as a string */
static int l_dump(lua_State *L) {
  li_prof *P = lprof(L);
  const char *format = check_format(L, 1);
  char **box;
  size_t n = 0;
  int r;
  if (P == NULL) return closing(L);
  box = push_box(L);
  r = dump(P, format, NULL, box, &n);
  if (r != LUAINSTR_OK) return result(L, P, r);
  lua_pushlstring(L, *box, n);
  free(*box);
  *box = NULL;
  return 1;
}

/* p.dump_to(path [, format]) -> true, or nil and a message */
static int l_dump_to(lua_State *L) {
  li_prof *P = lprof(L);
  const char *path = luaL_checkstring(L, 1);
  const char *format = check_format(L, 2);
  if (P == NULL) return closing(L);
  return result(L, P, dump(P, format, path, NULL, NULL));
}

/* p.trace([events | false]) -> true: trace mode on with a buffer of that
** many events (default 1,000,000), or off */
static int l_trace(lua_State *L) {
  li_prof *P = lprof(L);
  char buf[32];
  const char *v = "on";
  if (P == NULL) return closing(L);
  if (lua_isboolean(L, 1)) v = lua_toboolean(L, 1) ? "on" : "off";
  else if (!lua_isnoneornil(L, 1)) {
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n >= 0 && n <= (lua_Integer)LI_TRACE_MAX, 1,
                  "number of events out of range");
    snprintf(buf, sizeof buf, "%lld", (long long)n);
    v = buf;
  }
  return result(L, P, luainstr_set_option(L, "trace", v));
}

/* p.running() -> is it collecting? */
static int l_running(lua_State *L) {
  li_prof *P = lprof(L);
  lua_pushboolean(L, P != NULL && P->on);
  return 1;
}

/* p.clock() -> nanoseconds of the profiler's clock (for tests and
** programs that time themselves against the profile) */
static int l_clock(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)li_clock_mono_ns());
  return 1;
}

static const luaL_Reg module_funcs[] = {
  {"start", l_start},
  {"stop", l_stop},
  {"enable", l_enable},
  {"disable", l_disable},
  {"reset", l_reset},
  {"dump", l_dump},
  {"dump_to", l_dump_to},
  {"running", l_running},
  {"trace", l_trace},
  {"clock", l_clock},
  {NULL, NULL}
};

int (luaopen_luainstr)(lua_State *L) {
  if (lprof(L) == NULL) return luaL_error(L, "luainstr: cannot attach a profiler");
  install(L);
  luaL_newlib(L, module_funcs);
  lua_pushliteral(L, LUAINSTR_VERSION);
  lua_setfield(L, -2, "version");
  return 1;
}
