/*
** lapi.c -- the C API of include/luainstr.h and the Lua module
** (`require "luainstr"`, also built as the C module luainstr.so).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"
#include "heapwalk.h"
#include "rewrite.h"
#include "live.h"

#define MODNAME "luainstr"
#define LI_TRACE_DEFAULT 1000000u    /* events: 24 MB */
#define LI_TRACE_MAX 100000000u
#define LI_FRAMES_DEFAULT 36000u     /* 10 minutes at 60 fps: 1.7 MB */
#define LI_FRAMES_MAX 100000000u


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
  if (!lua_checkstack(L, 2) || !li_pushcfunction_noerr(L, run_step))
    return LUAINSTR_EMEM;
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

static int module_table(lua_State *L);

/* require "luainstr" after luainstr_open: the module, without installing
** anything again (open_step did; the program may have changed a loader
** since). */
static int make_module(lua_State *L) {
  if (li_prof_attach(L) == NULL)
    return luaL_error(L, "luainstr: cannot attach a profiler");
  return module_table(L);
}

/* (made under a protected call: Lua 5.1's and LuaJIT's require leave a
** sentinel in package.loaded while a loader runs, and a loader that fails
** (out of memory) would leave it there for good, every later require
** saying "loop or previous error loading module": the sentinel goes
** before the error does; setting a present key to nil allocates
** nothing) */
static int preload_module(lua_State *L) {
  int pushed = li_pushcfunction_noerr(L, make_module);
  if (pushed && lua_pcall(L, 0, 1, 0) == LUA_OK) return 1;
  if (!pushed) lua_pushliteral(L, "not enough memory");  /* (Lua's, made) */
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_istable(L, -1)) {
    lua_pushnil(L);
    lua_setfield(L, -2, MODNAME);
  }
  lua_pop(L, 1);
  return lua_error(L);
}

/* The module is offered in package.preload, not put in package.loaded: a
** program sees the stock package.loaded (LuaJIT's test suite lists it),
** and require "luainstr" still gives the module, made then.  Without the
** package library (no preload: 5.1 keeps it in the package table only)
** it goes to the registry's loaded table, where luaL_requiref looks. */
static int open_step(lua_State *L) {
  li_prof *P = li_prof_attach(L);
  int loaded;
  if (P == NULL) return LUAINSTR_EMEM;
  install(L);
  li_heap_prepare(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  loaded = lua_gettop(L);
  if (lua_getfield(L, loaded, MODNAME) != LUA_TTABLE) {
    if (lua_getfield(L, loaded, LUA_LOADLIBNAME) == LUA_TTABLE &&
        lua_getfield(L, -1, "preload") == LUA_TTABLE) {
      lua_pushcfunction(L, preload_module);
      lua_setfield(L, -2, MODNAME);
    } else {
      luaopen_luainstr(L);
      lua_setfield(L, loaded, MODNAME);
    }
  }
  lua_settop(L, loaded - 1);
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

/* A whole decimal number in [0, max]: 1, else 0. */
static int parse_count(const char *value, uint64_t max, uint64_t *out) {
  char *end;
  unsigned long long v;
  if (value == NULL || value[0] < '0' || value[0] > '9') return 0;
  v = strtoull(value, &end, 10);
  if (*end != '\0' || v > max) return 0;
  *out = (uint64_t)v;
  return 1;
}

/* "trace": off, or [first | recent] [N]: a buffer of N events (default
** LI_TRACE_DEFAULT) that keeps, once full, its first events, its most
** recent ones, or (neither word, "on") the recent ones in frame mode. */
static int set_trace(li_prof *P, const char *value) {
  uint64_t cap = LI_TRACE_DEFAULT;
  int keep = LI_KEEP_AUTO;
  const char *v = value != NULL ? value : "on";
  if (strcmp(v, "off") == 0) cap = 0;
  else if (strcmp(v, "on") != 0) {
    if (strncmp(v, "first", 5) == 0) keep = LI_KEEP_FIRST, v += 5;
    else if (strncmp(v, "recent", 6) == 0) keep = LI_KEEP_RECENT, v += 6;
    if (keep != LI_KEEP_AUTO && (*v == ' ' || *v == ':')) v++;
    else if (keep != LI_KEEP_AUTO && *v != '\0') v = "?";
    if ((keep == LI_KEEP_AUTO || *v != '\0') &&
        (!parse_count(v, LI_TRACE_MAX, &cap) || (cap == 0 && keep)))
      return fail(P, LUAINSTR_EARG, "option 'trace' takes on, off, first, "
                  "recent, a number of events (at most 100000000; 0: off), "
                  "or first N or recent N, not '%s'", value);
  }
  if (!li_prof_set_trace(P, cap, keep))
    return fail(P, LUAINSTR_EMEM, "not enough memory for the trace%s", "");
  return LUAINSTR_OK;
}

/* "frames": on (LI_FRAMES_DEFAULT), off, or a ring size in frames. */
static int set_frames(lua_State *L, li_prof *P, const char *value) {
  uint64_t cap = LI_FRAMES_DEFAULT;
  (void)L;
  if (value != NULL && strcmp(value, "off") == 0) cap = 0;
  else if (value == NULL || strcmp(value, "on") != 0) {
    if (!parse_count(value, LI_FRAMES_MAX, &cap) || cap == 0)
      return fail(P, LUAINSTR_EARG, "option 'frames' takes on, off or a "
                  "number of frames (1 to 100000000), not '%s'",
                  value ? value : "(null)");
  }
  if (!li_frames_set(P, cap))
    return fail(P, LUAINSTR_EMEM, "not enough memory for the frames%s", "");
  li_live_update(P);            /* (marks poll the live view, or probes do) */
  return LUAINSTR_OK;
}

/* "memory": on, off. */
static int set_memory(lua_State *L, li_prof *P, const char *value) {
  int on;
  if (value != NULL && strcmp(value, "on") == 0) on = 1;
  else if (value != NULL && strcmp(value, "off") == 0) on = 0;
  else return fail(P, LUAINSTR_EARG, "option 'memory' takes on or off, not "
                   "'%s'", value ? value : "(null)");
  if (!li_mem_set(P, L, on))
    return fail(P, LUAINSTR_EMEM, "not enough memory for the block map%s", "");
  return LUAINSTR_OK;
}

/* "count_small": on (LI_COUNT_SMALL_DEFAULT tokens), off (0), or the most
** tokens a counted function's body has; for the chunks loaded from now
** on.  The count probe's cost is measured with the pair's at the first
** start, or now when that has passed. */
static int set_count_small(lua_State *L, li_prof *P, const char *value) {
  uint64_t n;
  if (value != NULL && strcmp(value, "on") == 0) n = LI_COUNT_SMALL_DEFAULT;
  else if (value != NULL && strcmp(value, "off") == 0) n = 0;
  else if (!parse_count(value, 100000, &n))
    return fail(P, LUAINSTR_EARG, "option 'count_small' takes on, off or a "
                "number of tokens from 0 to 100000, not '%s'",
                value ? value : "(null)");
  P->count_small = (uint32_t)n;
  if (n > 0 && P->calibrated) li_prof_calibrate_count(P, L);
  return LUAINSTR_OK;
}

/* "spike_factor" (a number > 1), "spike_ms" (>= 0), "spikes" (a count). */
static int set_spikes(li_prof *P, const char *name, const char *value) {
  char *end = NULL;
  double d = value != NULL ? strtod(value, &end) : 0;
  int ok = value != NULL && end != value && *end == '\0' && d == d;
  uint64_t n;
  if (strcmp(name, "spike_factor") == 0) {
    if (!ok || d < 1 || d > 1e6)
      return fail(P, LUAINSTR_EARG, "option 'spike_factor' takes a number "
                  "from 1 to 1000000, not '%s'", value ? value : "(null)");
    P->spike_factor = d;
  } else if (strcmp(name, "spike_ms") == 0) {
    if (!ok || d < 0 || d > 1e9)
      return fail(P, LUAINSTR_EARG, "option 'spike_ms' takes a number of "
                  "milliseconds from 0 to 1e9, not '%s'", value ? value : "(null)");
    P->spike_min_ns = (uint64_t)(d * 1e6 + 0.5);
  } else if (strcmp(name, "spikes") == 0) {
    if (!parse_count(value, LI_SPIKES_MAX, &n))
      return fail(P, LUAINSTR_EARG, "option 'spikes' takes a number of "
                  "frames from 0 to 1024, not '%s'", value ? value : "(null)");
    P->spike_keep = (uint32_t)n;
  } else {
    return fail(P, LUAINSTR_EARG, "unknown option '%s'", name);
  }
  li_frames_rule(P);
  return LUAINSTR_OK;
}

int (luainstr_set_option)(lua_State *L, const char *name, const char *value) {
  li_prof *P;
  /* Any option may come before luainstr_open: it attaches the profiler
  ** (not started, as luainstr_set_clock does), which keeps the value, and
  ** luainstr_open starts it as it is.  ("probe", "extraspace" and the
  ** clock can only be set there, before any chunk is loaded.) */
  if (L == NULL) return LUAINSTR_EARG;
  if (name != NULL) {
    int r = protected_step(L, attach_step);
    if (r != LUAINSTR_OK) return r;
  }
  if ((P = li_prof_get(L)) == NULL) return LUAINSTR_EORDER;
  if (name == NULL) return fail(P, LUAINSTR_EARG, "option name is NULL%s", "");
  if (strcmp(name, "include") == 0 || strcmp(name, "exclude") == 0) {
    if (value == NULL)
      return fail(P, LUAINSTR_EARG, "option '%s' needs a pattern", name);
    if (!li_prof_add_pattern(P, name[0] == 'i', value))
      return fail(P, LUAINSTR_EMEM, "not enough memory%s", "");
    return LUAINSTR_OK;
  }
  if (strcmp(name, "trace") == 0) return set_trace(P, value);
  if (strcmp(name, "clear_patterns") == 0) {
    li_prof_clear_patterns(P);
    return LUAINSTR_OK;
  }
  if (strcmp(name, "probe") == 0) {
    int k = li_probe_kind(value);
    if (k < 0)
      return fail(P, LUAINSTR_EARG, "option 'probe' takes fast, direct or "
                  "api (or ffi on LuaJIT), not '%s'", value ? value : "(null)");
    return li_prof_set_probe(P, k);
  }
  if (strcmp(name, "extraspace") == 0) {
    if (value != NULL && (strcmp(value, "on") == 0 || strcmp(value, "off") == 0))
      return li_prof_set_extraspace(P, value[1] == 'n');
    return fail(P, LUAINSTR_EARG, "option 'extraspace' takes on or off, not "
                "'%s'", value ? value : "(null)");
  }
  if (strcmp(name, "preempt") == 0) {
    if (value != NULL && (strcmp(value, "on") == 0 || strcmp(value, "off") == 0)) {
      P->gap_off = value[1] != 'n';
      if (P->gap_off) li_gap_free(P);
      else if (P->on && P->gap_fd < 0) li_gap_start(P, li_clock_ticks(&P->clock));
      return LUAINSTR_OK;
    }
    return fail(P, LUAINSTR_EARG, "option 'preempt' takes on or off, not "
                "'%s'", value ? value : "(null)");
  }
  if (strcmp(name, "frames") == 0) return set_frames(L, P, value);
  if (strcmp(name, "live") == 0) return li_live_set(P, L, value);
  if (strcmp(name, "live_token") == 0) return li_live_set_token(P, value);
  if (strcmp(name, "live_name") == 0) return li_live_set_name(P, value);
  if (strcmp(name, "memory") == 0) return set_memory(L, P, value);
  if (strcmp(name, "count_small") == 0) return set_count_small(L, P, value);
  if (strncmp(name, "spike", 5) == 0) return set_spikes(P, name, value);
  return fail(P, LUAINSTR_EARG, "unknown option '%s'", name);
}

/* A report that holds nothing (written all the same: a valid, empty
** document) is said so, with what to turn on.  Only a chrome trace can
** be: every other format has at least the run's summary. */
static int empty_report(li_prof *P, const li_profile *prof, const char *format) {
  if (strcmp(format, "chrome") != 0 || prof->nevents > 0 || prof->nframes > 0)
    return LUAINSTR_OK;
  if (prof->tracing)
    return fail(P, LUAINSTR_EEMPTY, "the chrome trace holds nothing: trace "
                "mode recorded no event (no instrumented function ran since "
                "it was turned on, or its chunks were excluded)%s", "");
  return fail(P, LUAINSTR_EEMPTY, "the chrome trace holds nothing: trace "
              "mode was off (turn it on before the run: option 'trace', "
              "p.trace(), luaprof --trace) and no frames were marked "
              "(option 'frames' with luainstr_frame or p.frame())%s", "");
}

/* Snapshot P (of state L) and hand it to the writer: path (NULL: stderr)
** or string.  Before the snapshot, the chunks compiled outside the loader
** are counted and the inferred resumes that ended are closed (the
** report's notes and figures), and the stacks of collected coroutines
** are freed (their calls closed). */
static int dump(lua_State *L, li_prof *P, const char *format,
                const char *path, char **str, size_t *len) {
  li_profile prof;
  int r = 0;
  char err[300];
  if (format == NULL) format = "text";
  if (li_report_format_error(format, err, sizeof err) != NULL)
    return fail(P, LUAINSTR_EARG, "%s", err);
  if (!P->ever_started)
    return fail(P, LUAINSTR_EORDER,
                "dump: nothing to dump, the profiler was never started%s", "");
  li_loader_scan(L, P);
  li_infer_settle(P);
  li_stacks_sweep(P, L);
  if (li_snapshot(P, &prof) != 0)
    return fail(P, LUAINSTR_EMEM, "not enough memory%s", "");
  if (str != NULL) {
    if (li_report_to_string(&prof, format, str, len) != 0)
      r = fail(P, LUAINSTR_EMEM, "not enough memory%s", "");
  } else if (path == NULL && li_report_binary_tty(format, stderr)) {
    r = fail(P, LUAINSTR_EARG, LI_REPORT_BINARY_TTY, format);
  } else if (path == NULL) {
    if (li_report_write(&prof, format, stderr) != 0 || fflush(stderr) != 0)
      r = fail(P, LUAINSTR_EIO, "cannot write the report to stderr%s", "");
  } else if (li_report_to_path(&prof, format, path, err, sizeof err) != 0) {
    r = fail(P, LUAINSTR_EIO, "%s", err);
  }
  if (r == LUAINSTR_OK) r = empty_report(P, &prof, format);
  li_snapshot_free(&prof);
  return r;
}

int (luainstr_dump)(lua_State *L, const char *format, const char *path) {
  li_prof *P = li_prof_get(L);
  if (P == NULL) return LUAINSTR_EORDER;
  return dump(L, P, format, path, NULL, NULL);
}

/* The stack of the running thread L for the C API, which must not raise:
** the main thread's and the current one are at hand; another coroutine's
** may have to be made, under lua_pcall. */
static int stack_step(lua_State *L) {
  li_prof *P = lua_touserdata(L, 1);
  lua_pushlightuserdata(L, li_stack_of(P, L));
  return 1;
}

static li_stack *api_stack(li_prof *P, lua_State *L) {
  li_stack *S = NULL;
  li_infer_settle(P);
  if (L == P->mainL) return &P->main;
  if (L == P->curL && P->cur != NULL) return P->cur;
  if (!lua_checkstack(L, 2) || !li_pushcfunction_noerr(L, stack_step)) return NULL;
  lua_pushlightuserdata(L, P);
  if (lua_pcall(L, 1, 1, 0) == LUA_OK) S = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return S;
}

static int frame_mark(li_prof *P, lua_State *L) {
  if (P->frames == NULL)
    return fail(P, LUAINSTR_EORDER, "frame: frame marking is off (set the "
                "option 'frames' to on)%s", "");
  if (!P->on) {
    /* (the live view's commands still come: "start", "resume") */
    if (P->live != NULL) li_live_poll(P, L);
    return fail(P, LUAINSTR_EORDER, "frame: the profiler is not collecting%s", "");
  }
  li_infer_settle(P);
  li_frames_mark(P, L, L == P->curL && P->cur ? P->cur : &P->main,
                 li_clock_ticks(&P->clock));
  return LUAINSTR_OK;
}

int (luainstr_frame)(lua_State *L) {
  li_prof *P = L != NULL ? li_prof_get(L) : NULL;
  if (P == NULL) return LUAINSTR_EORDER;
  return frame_mark(P, L);
}

int (luainstr_zone_begin)(lua_State *L, const char *name) {
  li_prof *P = L != NULL ? li_prof_get(L) : NULL;
  li_stack *S;
  if (P == NULL) return LUAINSTR_EORDER;
  if (name == NULL) return fail(P, LUAINSTR_EARG, "zone_begin: name is NULL%s", "");
  if (!P->on) return LUAINSTR_OK;               /* not collecting: nothing */
  if ((S = api_stack(P, L)) == NULL || li_zone_begin(P, L, S, name, strlen(name)) == 0)
    return fail(P, LUAINSTR_EMEM, "zone_begin: not enough memory%s", "");
  return LUAINSTR_OK;
}

int (luainstr_zone_end)(lua_State *L) {
  li_prof *P = L != NULL ? li_prof_get(L) : NULL;
  li_stack *S;
  if (P == NULL) return LUAINSTR_EORDER;
  if (!P->on) return LUAINSTR_OK;
  if ((S = api_stack(P, L)) == NULL)
    return fail(P, LUAINSTR_EMEM, "zone_end: not enough memory%s", "");
  if (!li_zone_end(P, S))
    return fail(P, LUAINSTR_EORDER, "zone_end: no zone is open on top of "
                "this thread's stack (a zone ends where it began)%s", "");
  return LUAINSTR_OK;
}

/* Idle spans, for the C API and the Lua module alike (the stack of a
** coroutine may have to be made: api_stack). */
static int idle_api(lua_State *L, int begin) {
  li_prof *P = L != NULL ? li_prof_get(L) : NULL;
  li_stack *S;
  int r;
  if (P == NULL) return LUAINSTR_EORDER;
  /* not collecting: nothing, but a span begun before a stop still ends */
  if (!begin) {
    r = li_idle_end(P);
    if (r == LUAINSTR_EORDER && !P->on) r = LUAINSTR_OK;
  }
  else if (!P->on) r = LUAINSTR_OK;
  else if ((S = api_stack(P, L)) == NULL) r = LUAINSTR_EMEM;
  else r = li_idle_begin(P, L, S);
  if (r == LUAINSTR_EORDER)
    return fail(P, r, begin ? "idle_begin: an idle span is open already%s"
                            : "idle_end: no idle span is open%s", "");
  if (r == LUAINSTR_EMEM)
    return fail(P, r, "idle_begin: not enough memory%s", "");
  return r;
}

int (luainstr_idle_begin)(lua_State *L) {
  return idle_api(L, 1);
}

int (luainstr_idle_end)(lua_State *L) {
  return idle_api(L, 0);
}

/* A snapshot works without a profiler; its failure's message needs one
** (luainstr_errmsg), attached then. */
int (luainstr_snapshot)(lua_State *L, const char *path, int flags) {
  char err[sizeof ((li_prof *)0)->errmsg];
  li_prof *P;
  int r;
  if (L == NULL) return LUAINSTR_EARG;
  P = li_prof_get(L);
  r = li_heap_snapshot(L, P, path, flags, NULL, err, sizeof err);
  if (r != LUAINSTR_OK) {
    /* (a suspended thread runs no call: no profiler made from it) */
    if (P == NULL && lua_status(L) == LUA_OK &&
        protected_step(L, attach_step) == LUAINSTR_OK)
      P = li_prof_get(L);
    if (P != NULL) fail(P, r, "%s", err);
  }
  return r;
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
  li_mem_set(P, L, 0);          /* the allocator back too; figures stay */
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
  char err[300];
  if (li_report_format_error(format, err, sizeof err) != NULL)
    luaL_argerror(L, arg, lua_pushstring(L, err));
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

/* The second value of p.dump and p.dump_to for a report that holds
** nothing: the message. */
static int empty_note(lua_State *L, li_prof *P) {
  lua_pushfstring(L, "luainstr: %s", P->errmsg);
  return 2;
}

/* p.dump([format]) -> the report as a string (and a message when it holds
** nothing, LUAINSTR_EEMPTY) */
static int l_dump(lua_State *L) {
  li_prof *P = lprof(L);
  const char *format = check_format(L, 1);
  char **box;
  size_t n = 0;
  int r;
  if (P == NULL) return closing(L);
  box = push_box(L);
  r = dump(L, P, format, NULL, box, &n);
  if (r != LUAINSTR_OK && r != LUAINSTR_EEMPTY) return result(L, P, r);
  lua_pushlstring(L, *box, n);
  free(*box);
  *box = NULL;
  return r == LUAINSTR_EEMPTY ? empty_note(L, P) : 1;
}

/* p.dump_to(path [, format]) -> true, or nil and a message; true and a
** message when the report holds nothing (written all the same) */
static int l_dump_to(lua_State *L) {
  li_prof *P = lprof(L);
  const char *path = luaL_checkstring(L, 1);
  const char *format = check_format(L, 2);
  int r;
  if (P == NULL) return closing(L);
  r = dump(L, P, format, path, NULL, NULL);
  if (r != LUAINSTR_EEMPTY) return result(L, P, r);
  lua_pushboolean(L, 1);
  empty_note(L, P);
  return 2;
}

/* p.trace([events | false | "first N" | "recent N"]) -> true: trace mode
** on with a buffer of that many events (default 1,000,000), or off; a
** string is the option's value */
static int l_trace(lua_State *L) {
  li_prof *P = lprof(L);
  char buf[32];
  const char *v = "on";
  if (P == NULL) return closing(L);
  if (lua_isboolean(L, 1)) v = lua_toboolean(L, 1) ? "on" : "off";
  else if (lua_type(L, 1) == LUA_TSTRING) v = lua_tostring(L, 1);
  else if (!lua_isnoneornil(L, 1)) {
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n >= 0 && n <= (lua_Integer)LI_TRACE_MAX, 1,
                  "number of events out of range");
    snprintf(buf, sizeof buf, "%lld", (long long)n);
    v = buf;
  }
  return result(L, P, luainstr_set_option(L, "trace", v));
}

/* p.option(name [, value]) -> true, or nil and a message: any option of
** luainstr_set_option */
static int l_option(lua_State *L) {
  li_prof *P = lprof(L);
  const char *name = luaL_checkstring(L, 1);
  const char *value = luaL_optstring(L, 2, NULL);
  if (P == NULL) return closing(L);
  return result(L, P, luainstr_set_option(L, name, value));
}

/* A boolean or a count (1) as an option value: "on", "off" or digits. */
static const char *switch_value(lua_State *L, int arg, char *buf, size_t len) {
  if (lua_isnoneornil(L, arg)) return "on";
  if (lua_isboolean(L, arg)) return lua_toboolean(L, arg) ? "on" : "off";
  snprintf(buf, len, "%lld", (long long)luaL_checkinteger(L, arg));
  return buf;
}

/* p.frames([true | false | size]) -> true: frame marking on or off */
static int l_frames(lua_State *L) {
  li_prof *P = lprof(L);
  char buf[32];
  const char *v = switch_value(L, 1, buf, sizeof buf);
  if (P == NULL) return closing(L);
  return result(L, P, luainstr_set_option(L, "frames", v));
}

/* p.memory([true | false]) -> true: memory mode on or off */
static int l_memory(lua_State *L) {
  li_prof *P = lprof(L);
  const char *v = lua_isnoneornil(L, 1) || lua_toboolean(L, 1) ? "on" : "off";
  if (P == NULL) return closing(L);
  return result(L, P, luainstr_set_option(L, "memory", v));
}

/* p.frame() -> true if it ended a frame (false: frame marking is off or
** the profiler is not collecting, so a program can always call it) */
static int l_frame(lua_State *L) {
  li_prof *P = lprof(L);
  int marked = P != NULL && P->frames != NULL && P->on &&
               frame_mark(P, L) == LUAINSTR_OK;
  /* not collecting: the live view's commands still come ("resume") */
  if (!marked && P != NULL && P->live != NULL && P->frames != NULL && !P->on)
    li_live_poll(P, L);
  lua_pushboolean(L, marked);
  return 1;
}

/* The stack of the running thread for a zone, or NULL when the profiler
** does not collect (zones then do nothing). */
static li_stack *zone_stack(lua_State *L, li_prof **pp) {
  li_prof *P = li_prof_get(L);
  li_stack *S;
  *pp = P;
  if (P == NULL || !P->on) return NULL;
  if ((S = li_stack_of(P, L)) == NULL) luaL_error(L, "luainstr: not enough memory");
  return S;
}

/* (a name is cut at a NUL byte, as a C caller's would be) */
static uint64_t zone_open(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  size_t len = strlen(name);
  li_prof *P;
  li_stack *S = zone_stack(L, &P);
  uint64_t serial;
  if (S == NULL) return 0;
  if ((serial = li_zone_begin(P, L, S, name, len)) == 0)
    luaL_error(L, "luainstr: not enough memory");
  return serial;
}

/* p.zone_begin(name): open a zone in the running coroutine */
static int l_zone_begin(lua_State *L) {
  zone_open(L);
  return 0;
}

/* p.zone_end(): close the innermost zone; an error if none is open on top
** of this coroutine's stack (it was opened in another function, or not) */
static int l_zone_end(lua_State *L) {
  li_prof *P;
  li_stack *S = zone_stack(L, &P);
  if (S != NULL && !li_zone_end(P, S))
    return luaL_error(L, "luainstr: zone_end: no zone is open here (a zone "
                      "ends in the function that began it)");
  return 0;
}

#define MT_ZONE "luainstr.zone"  /* metatable of p.zone's values */

/* __close of a zone value: its zone ends (by an error if one is passing),
** unless it ended already (the function's exit closes it first). */
static int zone_close(lua_State *L) {
  uint64_t *serial = luaL_checkudata(L, 1, MT_ZONE);
  li_prof *P;
  li_stack *S;
  if (*serial == 0) return 0;
  S = zone_stack(L, &P);
  if (S != NULL) li_zone_close(P, S, *serial, !lua_isnil(L, 2));
  *serial = 0;
  return 0;
}

/* p.zone(name) -> a value to hold in a `<close>` variable: the zone ends
** when the variable goes out of scope, errors included */
static int l_zone(lua_State *L) {
  li_prof *P = li_prof_get(L);
  uint64_t *serial;
  luaL_checkstring(L, 1);
  lua_settop(L, 1);
  /* the value is the profiler's allocation, not the caller's (the skip is
  ** taken by the next allocation: this one) */
  if (P != NULL) P->mem_skip = 1;
  serial = lua_newuserdatauv(L, sizeof *serial, 0);
  *serial = 0;
  luaL_setmetatable(L, MT_ZONE);
  *serial = zone_open(L);
  return 1;
}

/* p.idle_begin(), p.idle_end() -> true, or nil and a message (one is
** open already / none is): an idle span, the host's wait */
static int l_idle(lua_State *L, int begin) {
  li_prof *P = li_prof_get(L);
  if (P == NULL) {
    lua_pushboolean(L, 1);
    return 1;
  }
  return result(L, P, idle_api(L, begin));
}

static int l_idle_begin(lua_State *L) {
  return l_idle(L, 1);
}

static int l_idle_end(lua_State *L) {
  return l_idle(L, 0);
}

/* p.snapshot(path [, {collect = true}]) -> true, or nil and a message:
** a heap snapshot (luainstr_snapshot) */
static int l_snapshot(lua_State *L) {
  li_prof *P = lprof(L);
  const char *path = luaL_checkstring(L, 1);
  char err[sizeof P->errmsg];
  int flags = 0;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "collect");
    if (lua_toboolean(L, -1)) flags |= LUAINSTR_HEAP_COLLECT;
    lua_pop(L, 1);
  }
  if (P == NULL) return closing(L);
  if (li_heap_snapshot(L, P, path, flags, NULL, err, sizeof err) == LUAINSTR_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  luaL_pushfail(L);
  lua_pushfstring(L, "luainstr: %s", err);
  return 2;
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
  {"option", l_option},
  {"frames", l_frames},
  {"frame", l_frame},
  {"memory", l_memory},
  {"zone_begin", l_zone_begin},
  {"zone_end", l_zone_end},
  {"zone", l_zone},
  {"idle_begin", l_idle_begin},
  {"idle_end", l_idle_end},
  {"snapshot", l_snapshot},
  {NULL, NULL}
};

int (luaopen_luainstr)(lua_State *L) {
  /* a stock lua5.M that loads the module built for 5.N: no call whose ABI
  ** differs before this (luaver.c) */
  if (!li_lua_matches()) return li_lua_refuse(L);
  li_keep_module_loaded();          /* (Lua 5.1: luaver.h says why) */
  if (lprof(L) == NULL) return luaL_error(L, "luainstr: cannot attach a profiler");
  install(L);
  li_heap_prepare(L);
  return module_table(L);
}

/* The module's table (and its zones' metatable), pushed. */
static int module_table(lua_State *L) {
  if (luaL_newmetatable(L, MT_ZONE)) {
    lua_pushcfunction(L, zone_close);
    lua_setfield(L, -2, "__close");
    lua_pushliteral(L, "luainstr.zone");
    lua_setfield(L, -2, "__name");
  }
  lua_pop(L, 1);
  luaL_newlib(L, module_funcs);
  lua_pushliteral(L, LUAINSTR_VERSION);
  lua_setfield(L, -2, "version");
  return 1;
}
