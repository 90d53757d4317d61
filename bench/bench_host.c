/*
** bench_host.c -- what profiling costs at run time: one Lua program run by
** one host in one of four modes, so that every mode has the same
** interpreter, the same libraries and the same clock.
**
**   bench_host MODE SCRIPT [ARGS...]
**
**   plain  luaL_loadfilex + lua_pcall: the baseline
**   floor  instrumented (li_loadfilex) but every probe is a C function that
**          does nothing: what the probe calls cost before any bookkeeping,
**          the lowest an instrumenting profiler can go
**   full   luainstr_open, li_loadfilex, luainstr_pcall: the real profiler;
**          then luainstr_dump(L, "text", "/dev/null"), timed on its own
**   fullhost  full, but the probes read a clock the host gives
**          (luainstr_set_clock): in WebAssembly performance.now() called
**          straight from C (EM_JS), natively clock_gettime(CLOCK_MONOTONIC)
**          through the host API; what the clock read costs the profiler
**   fullcount  full, but the "clock" only counts its reads (no time is
**          read; the profile's times are meaningless): full minus
**          fullcount is what reading the clock costs inside the probes
**   frames full with the option "frames" on, and a frame mark
**          (luainstr_frame) from the host's bench_tick(): a C function the
**          programs call at the top of their main loop's iterations
**          (`local tick = bench_tick ... if tick then tick() end`; nil in
**          the other modes, so they pay one test), which marks a frame when
**          at least BENCH_FRAME_US microseconds (default 1000) have passed
**          since the last mark: a frame every millisecond or so, sixteen
**          times a 60 fps game's rate, where the loop is fine enough
**   memory full with the option "memory" on (the allocator wrapped)
**   hook   plain load, run under the leanest hook profiler we can write
**          (lua_sethook on call and return, a table of functions keyed by
**          pointer, one stack of entry times): a floor for any real
**          hook-based profiler
**
** ARGS reach the script as `arg` (arg[0] = SCRIPT) and as `...`.  The
** script's `print` is replaced by one that keeps a line starting with
** "checksum " (so modes can be compared) and writes any other line to
** stdout.  Prints one line:
**   mode=M prog=P wall_ns=load+run load_ns=L run_ns=R dump_ns=D
**   maxrss_kb=K checksum=C [hook_fns=F hook_calls=N]
** (frames adds frames=N, the marks made.)  hook then adds a line
**   hook_fn name=NAME calls=C total_ns=T
** for every global Lua function it saw called, its inclusive time as the
** hook measured it (no cost taken out; a recursive function's nested
** calls counted again): bench/phases.sh compares it with the truth.
** (In WebAssembly maxrss_kb is the size of the linear memory at the end,
** which only grows: the peak of the heap, rounded up to 64 KiB pages.)
** With BENCH_STDOUT=program in the environment, stdout is the program's
** alone, as the stock interpreter would write it (Lua's own print, the
** result line on stderr): bench/run_jit.sh times the host from outside,
** beside luajit, and compares the outputs byte for byte.
** BENCH_JIT=off turns LuaJIT's JIT off before the script loads (as
** `luajit -joff`: the loader gives the chunk the probe it gives with the
** JIT off); BENCH_JIT=offrun turns it off after the load, before the run
** (the chunk keeps the probe chosen with the JIT on, and the interpreter
** runs it): bench/callgrind.sh's MODE/off and MODE/offrun.  (No effect
** on a Lua without the jit library.)
** Built for each Lua the runtime is built for: bench_host for 5.4,
** bench_host5.N for Lua 5.N (bench/callgrind.sh --lua).
** Exit status 1 on any error (load, run, dump), with the message on stderr.
*/
#define _XOPEN_SOURCE 700  /* POSIX 2008: clock_gettime, getrusage */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "rewrite.h"
#include "runtime.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

/* What one run measured. */
typedef struct run_result {
  uint64_t load_ns;     /* loading (and, instrumented, rewriting) */
  uint64_t run_ns;      /* the pcall of the main chunk */
  uint64_t dump_ns;     /* full: luainstr_dump to /dev/null */
  char checksum[256];   /* what the script printed after "checksum " */
} run_result;


/* ======================================================================
** Helpers
** ====================================================================== */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long maxrss_kb(void) {
#ifdef __EMSCRIPTEN__
  return (long)(__builtin_wasm_memory_size(0) * 64u);
#else
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
  return ru.ru_maxrss;
#endif
}

/* The program's name: SCRIPT without directory and ".lua". */
static void prog_name(const char *script, char *out, size_t cap) {
  const char *base = strrchr(script, '/');
  size_t n;
  base = base != NULL ? base + 1 : script;
  n = strlen(base);
  if (n > 4 && strcmp(base + n - 4, ".lua") == 0) n -= 4;
  if (n >= cap) n = cap - 1;
  memcpy(out, base, n);
  out[n] = '\0';
}


/* ======================================================================
** The script's environment: arg, ..., print
** ====================================================================== */

static run_result *result_of(lua_State *L) {
  return lua_touserdata(L, lua_upvalueindex(1));
}

#if LUA_VERSION_NUM < 502
/* (Lua 5.1 has no luaL_tolstring: its print calls tostring) */
static const char *bench_tolstring(lua_State *L, int idx, size_t *len) {
  lua_getglobal(L, "tostring");
  lua_pushvalue(L, idx);
  lua_call(L, 1, 1);
  return lua_tolstring(L, -1, len);
}
#define luaL_tolstring bench_tolstring
#endif

/* print, as Lua's, but a line "checksum X" is kept (spaces of X turned
** into commas, so it stays one field of our output line). */
static int bench_print(lua_State *L) {
  int n = lua_gettop(L), i;
  luaL_Buffer b;
  const char *line;
  size_t len;
  luaL_buffinit(L, &b);
  for (i = 1; i <= n; i++) {
    if (i > 1) luaL_addchar(&b, '\t');
    luaL_tolstring(L, i, NULL);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  line = lua_tolstring(L, -1, &len);
  if (len > 9 && memcmp(line, "checksum ", 9) == 0) {
    run_result *r = result_of(L);
    size_t k, m = len - 9 < sizeof r->checksum - 1 ? len - 9
                                                    : sizeof r->checksum - 1;
    for (k = 0; k < m; k++)
      r->checksum[k] = line[9 + k] == ' ' || line[9 + k] == '\t' ? ','
                                                                  : line[9 + k];
    r->checksum[m] = '\0';
  } else {
    fwrite(line, 1, len, stdout);
    fputc('\n', stdout);
  }
  lua_pop(L, 1);
  return 0;
}

/* BENCH_STDOUT=program: leave stdout to the program. */
static int program_stdout(void) {
  const char *v = getenv("BENCH_STDOUT");
  return v != NULL && strcmp(v, "program") == 0;
}

/* arg = { [0] = script, args... }, as lua.c makes it; print replaced
** (unless BENCH_STDOUT=program). */
static void set_args(lua_State *L, const char *script, int nargs, char **args,
                     run_result *r) {
  int i;
  lua_createtable(L, nargs, 1);
  lua_pushstring(L, script);
  lua_rawseti(L, -2, 0);
  for (i = 0; i < nargs; i++) {
    lua_pushstring(L, args[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setglobal(L, "arg");
  if (program_stdout()) return;
  lua_pushlightuserdata(L, r);
  lua_pushcclosure(L, bench_print, 1);
  lua_setglobal(L, "print");
}


/* ======================================================================
** floor: probes that do nothing
** ====================================================================== */

/* A state with no profiler gets, from the loader, the runtime's probe that
** does nothing (runtime/profiler.c probe_nothing: P(id) and P() return
** nothing, P(0, values...) returns the values), the probe a loaded chunk
** has before luainstr_open.  A chunk the loader could not give the probe
** as an upvalue (its loader's form rejected by that Lua: the chunk is then
** in the form that asks ("").__luainstr for its probe) would get the
** rewriter's no-op factory's Lua function instead; the floor gives it the
** same do-nothing C function through that factory. */
static int floor_nothing(lua_State *L) {
  int n = lua_gettop(L);
  return n > 0 ? n - 1 : 0;
}

static int floor_factory(lua_State *L) {
  lua_pushcfunction(L, floor_nothing);
  return 1;
}

static void floor_start(lua_State *L) {
  lua_pushcfunction(L, floor_factory);
  li_set_factory(L);
}


/* ======================================================================
** fullhost: the host's clock
** ====================================================================== */

#ifdef __EMSCRIPTEN__
/* performance.now(), ms as a double: one call from WebAssembly into
** JavaScript.  (emscripten_get_now() is process.hrtime() under node in
** emscripten 3.1.6, which makes an array per read; clock_gettime calls
** that and splits the result into a timespec.) */
EM_JS(double, js_performance_now, (void), { return performance.now(); });
#define HOST_CLOCK_NAME "performance.now"
static unsigned long long host_ticks(void *ud) {
  (void)ud;
  return (unsigned long long)(js_performance_now() * 1e6);
}
#else
#define HOST_CLOCK_NAME "clock_gettime(CLOCK_MONOTONIC), host"
static unsigned long long host_ticks(void *ud) {
  (void)ud;
  return now_ns();
}
#endif

static unsigned long long count_ticks(void *ud) {
  return ++*(unsigned long long *)ud;
}
static unsigned long long count_state;


/* ======================================================================
** frames: marks from the host, at most one a BENCH_FRAME_US
** ====================================================================== */

/* The marks' state (one, the host runs one state). */
static struct {
  uint64_t every_ns;    /* least time between two marks */
  uint64_t last;        /* now_ns() at the last mark (or the start) */
  uint64_t marks;       /* marks made */
} FR;

/* bench_tick(): called by the programs' main loops; a mark from C, as an
** engine's tick would make it (no Lua code runs, no hook is set). */
static int bench_tick(lua_State *L) {
  uint64_t t = now_ns();
  if (t - FR.last < FR.every_ns) return 0;
  if (luainstr_frame(L) != LUAINSTR_OK)
    return luaL_error(L, "bench_host: luainstr_frame: %s", luainstr_errmsg(L));
  FR.last = t;
  FR.marks++;
  return 0;
}

static int frames_start(lua_State *L) {
  const char *us = getenv("BENCH_FRAME_US");
  FR.every_ns = (us != NULL && *us != '\0' ? strtoull(us, NULL, 10) : 1000) * 1000u;
  FR.last = now_ns();
  if (luainstr_set_option(L, "frames", "on") != LUAINSTR_OK) return 0;
  lua_pushcfunction(L, bench_tick);
  lua_setglobal(L, "bench_tick");
  return 1;
}


/* ======================================================================
** hook: the leanest hook profiler
** ====================================================================== */

/* One function seen by the hook. */
typedef struct hook_fn {
  const void *key;      /* lua_topointer of the function; NULL: empty slot */
  uint64_t calls;       /* call events */
  uint64_t total;       /* ticks between call and return */
} hook_fn;

/* An open call. */
typedef struct hook_frame {
  uint64_t start;       /* ticks at the call event */
  uint32_t fn;          /* index in the table */
  uint32_t tail;        /* 1: entered by a tail call (no return of its own) */
} hook_frame;

/* All the hook's state (one, the host runs one state). */
static struct {
  li_clock clock;       /* the runtime's clock */
  hook_fn *tab;         /* open addressing, linear probing */
  uint32_t cap;         /* slots, power of two */
  uint32_t n;           /* used slots */
  hook_frame *stk;      /* one stack for every thread: kept simple */
  uint32_t depth, stkcap;
} H;

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (q == NULL) { fputs("bench_host: out of memory\n", stderr); exit(1); }
  return q;
}

static uint32_t slot_of(const void *key, uint32_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15u;
  return (uint32_t)(h >> 32) & (cap - 1);
}

static void hook_grow(void) {
  hook_fn *old = H.tab;
  uint32_t oldcap = H.cap, i;
  H.cap = oldcap != 0 ? oldcap * 2 : 1024;
  H.tab = calloc(H.cap, sizeof *H.tab);
  if (H.tab == NULL) { fputs("bench_host: out of memory\n", stderr); exit(1); }
  for (i = 0; i < oldcap; i++) {
    uint32_t s;
    if (old[i].key == NULL) continue;
    for (s = slot_of(old[i].key, H.cap); H.tab[s].key != NULL;
         s = (s + 1) & (H.cap - 1)) {}
    H.tab[s] = old[i];
  }
  free(old);
}

static uint32_t hook_find(const void *key) {
  uint32_t s;
  if (2 * (H.n + 1) > H.cap) hook_grow();
  for (s = slot_of(key, H.cap); H.tab[s].key != NULL; s = (s + 1) & (H.cap - 1))
    if (H.tab[s].key == key) return s;
  H.tab[s].key = key;
  H.n++;
  return s;
}

/* (Lua 5.1 has no tail-call event: a tail call is a call event, and each
** call it replaced gets a return event of its own, LUA_HOOKTAILRET) */
#if LUA_VERSION_NUM < 502
#define IS_RETURN(e) ((e) == LUA_HOOKRET || (e) == LUA_HOOKTAILRET)
#define LUA_HOOKTAILCALL (-1)
#else
#define IS_RETURN(e) ((e) == LUA_HOOKRET)
#endif

static void hook_call(lua_State *L, lua_Debug *ar, uint64_t t) {
  uint32_t fn;
  lua_getinfo(L, "f", ar);
  fn = hook_find(lua_topointer(L, -1));
  lua_pop(L, 1);
  H.tab[fn].calls++;
  if (H.depth == H.stkcap) {
    H.stkcap = H.stkcap != 0 ? H.stkcap * 2 : 256;
    H.stk = xrealloc(H.stk, H.stkcap * sizeof *H.stk);
  }
  H.stk[H.depth].start = t;
  H.stk[H.depth].fn = fn;
  H.stk[H.depth].tail = ar->event == LUA_HOOKTAILCALL;
  H.depth++;
}

/* A return closes the top frame and, if that one was entered by a tail
** call, the frames it replaced, down to the one that was really called. */
static void hook_return(uint64_t t) {
  while (H.depth > 0) {
    hook_frame *f = &H.stk[--H.depth];
    H.tab[f->fn].total += t - f->start;
    if (!f->tail) break;
  }
}

static void hook(lua_State *L, lua_Debug *ar) {
  uint64_t t = li_clock_ticks(&H.clock);
  if (IS_RETURN(ar->event)) hook_return(t);
  else hook_call(L, ar, t);
}

static void hook_start(lua_State *L) {
  li_clock_init(&H.clock);
  hook_grow();
  lua_sethook(L, hook, LUA_MASKCALL | LUA_MASKRET, 0);
}

static uint64_t hook_calls(void) {
  uint64_t c = 0;
  uint32_t i;
  for (i = 0; i < H.cap; i++) c += H.tab[i].calls;
  return c;
}

/* The entry of key in the table, without adding it (NULL: never seen). */
static const hook_fn *hook_lookup(const void *key) {
  uint32_t s;
  if (H.cap == 0) return NULL;
  for (s = slot_of(key, H.cap); H.tab[s].key != NULL; s = (s + 1) & (H.cap - 1))
    if (H.tab[s].key == key) return &H.tab[s];
  return NULL;
}

#if LUA_VERSION_NUM < 502
#define lua_pushglobaltable(L) lua_pushvalue(L, LUA_GLOBALSINDEX)
#endif

/* After the run: a line "hook_fn name=N calls=C total_ns=T" for every
** global Lua function the hook saw (bench/phases.sh reads its phase_KIND
** functions' totals).  Names are found by walking the globals once the
** run is over, so the hook itself does what it always did. */
static void hook_print_globals(lua_State *L, FILE *out) {
  double ns_per_tick;
  li_clock_calibrate(&H.clock);
  ns_per_tick = H.clock.ns_per_tick;
  lua_pushglobaltable(L);
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    const hook_fn *f;
    if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TFUNCTION &&
        !lua_iscfunction(L, -1) &&
        (f = hook_lookup(lua_topointer(L, -1))) != NULL)
      fprintf(out, "hook_fn name=%s calls=%llu total_ns=%.0f\n",
              lua_tostring(L, -2), (unsigned long long)f->calls,
              (double)f->total * ns_per_tick);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}


/* ======================================================================
** Running a script in a mode
** ====================================================================== */

enum { M_PLAIN, M_FLOOR, M_FULL, M_HOOK, M_FULLHOST, M_FULLCOUNT, M_FRAMES,
       M_MEMORY };
static const char *const mode_names[] = { "plain", "floor", "full", "hook",
                                          "fullhost", "fullcount", "frames",
                                          "memory", NULL };
#define IS_FULL(m) ((m) == M_FULL || (m) == M_FULLHOST || (m) == M_FULLCOUNT || \
                    (m) == M_FRAMES || (m) == M_MEMORY)

static int fail(lua_State *L, const char *what) {
  const char *msg = lua_tostring(L, -1);
  fprintf(stderr, "bench_host: %s: %s\n", what, msg != NULL ? msg : "(no message)");
  return 1;
}

/* BENCH_JIT: "off" (before the load), "offrun" (after it), else NULL. */
static const char *jit_off_when(void) {
  const char *v = getenv("BENCH_JIT");
  if (v != NULL && (strcmp(v, "off") == 0 || strcmp(v, "offrun") == 0)) return v;
  return NULL;
}

/* LuaJIT's jit.off(): the engine off, its traces flushed. */
static int jit_off(lua_State *L) {
  if (luaL_dostring(L, "if jit then jit.off() end") != LUA_OK)
    return fail(L, "jit.off");
  return 0;
}

/* Load and run the script in L (prepared for the mode); 0 or 1 (error). */
static int run_script(lua_State *L, int mode, const char *script, int nargs,
                      char **args, run_result *r) {
  uint64_t t0, t1, t2;
  int status, i;
  const char *off = jit_off_when();
  if (off != NULL && strcmp(off, "off") == 0 && jit_off(L)) return 1;
  t0 = now_ns();
  if (mode == M_PLAIN || mode == M_HOOK)
    status = luaL_loadfilex(L, script, NULL);
  else
    status = li_loadfilex(L, script, NULL);
  t1 = now_ns();
  if (status != LUA_OK) return fail(L, "load");
  if (off != NULL && strcmp(off, "offrun") == 0 && jit_off(L)) return 1;
  luaL_checkstack(L, nargs, "too many arguments");
  for (i = 0; i < nargs; i++) lua_pushstring(L, args[i]);
  if (IS_FULL(mode))
    status = luainstr_pcall(L, nargs, 0, 0);
  else
    status = lua_pcall(L, nargs, 0, 0);
  t2 = now_ns();
  if (status != LUA_OK) return fail(L, "run");
  r->load_ns = t1 - t0;
  r->run_ns = t2 - t1;
  return 0;
}

static int run_mode(int mode, const char *script, int nargs, char **args) {
  lua_State *L = luaL_newstate();
  run_result r;
  char prog[128];
  int err;
  long rss;
  if (L == NULL) { fputs("bench_host: cannot create a state\n", stderr); return 1; }
  /* Lua leaves the main thread's extra space (lua_getextraspace)
  ** uninitialised; nothing here uses it, so it is NULL, and the profiler
  ** keeps its stacks there (coroutine switches find them at once). */
#if LI_HAVE_EXTRASPACE
  memset(lua_getextraspace(L), 0, LUA_EXTRASPACE);
#endif
  memset(&r, 0, sizeof r);
  strcpy(r.checksum, "none");
  luaL_openlibs(L);
  set_args(L, script, nargs, args, &r);
  if ((mode == M_FULLHOST &&
       luainstr_set_clock(L, HOST_CLOCK_NAME, host_ticks, NULL, 1.0) != LUAINSTR_OK) ||
      (mode == M_FULLCOUNT &&
       luainstr_set_clock(L, "count", count_ticks, &count_state, 1.0) != LUAINSTR_OK)) {
    fprintf(stderr, "bench_host: luainstr_set_clock: %s\n", luainstr_errmsg(L));
    lua_close(L);
    return 1;
  }
  if (IS_FULL(mode) && luainstr_open(L) != LUAINSTR_OK) {
    fprintf(stderr, "bench_host: luainstr_open: %s\n", luainstr_errmsg(L));
    lua_close(L);
    return 1;
  }
  if ((mode == M_FRAMES && !frames_start(L)) ||
      (mode == M_MEMORY && luainstr_set_option(L, "memory", "on") != LUAINSTR_OK)) {
    fprintf(stderr, "bench_host: luainstr_set_option: %s\n", luainstr_errmsg(L));
    lua_close(L);
    return 1;
  }
  if (mode == M_HOOK) hook_start(L);
  if (mode == M_FLOOR) floor_start(L);
  err = run_script(L, mode, script, nargs, args, &r);
  if (mode == M_HOOK) lua_sethook(L, NULL, 0, 0);
  if (!err && IS_FULL(mode)) {
    uint64_t t0 = now_ns();
    if (luainstr_dump(L, "text", "/dev/null") != LUAINSTR_OK) {
      fprintf(stderr, "bench_host: luainstr_dump: %s\n", luainstr_errmsg(L));
      err = 1;
    }
    r.dump_ns = now_ns() - t0;
  }
  rss = maxrss_kb();
  if (!err) {
    FILE *out = program_stdout() ? stderr : stdout;
    prog_name(script, prog, sizeof prog);
    fflush(stdout);
    fprintf(out, "mode=%s prog=%s wall_ns=%llu load_ns=%llu run_ns=%llu dump_ns=%llu"
           " maxrss_kb=%ld checksum=%s", mode_names[mode], prog,
           (unsigned long long)(r.load_ns + r.run_ns),
           (unsigned long long)r.load_ns, (unsigned long long)r.run_ns,
           (unsigned long long)r.dump_ns, rss, r.checksum);
    if (mode == M_HOOK)
      fprintf(out, " hook_fns=%u hook_calls=%llu", H.n,
              (unsigned long long)hook_calls());
    if (mode == M_FRAMES)
      fprintf(out, " frames=%llu", (unsigned long long)FR.marks);
    fputc('\n', out);
    if (mode == M_HOOK) hook_print_globals(L, out);
  }
  lua_close(L);
  return err;
}

int main(int argc, char **argv) {
  int mode;
  if (argc < 3) {
    fputs("usage: bench_host plain|floor|full|hook|fullhost|fullcount|frames|memory SCRIPT [ARGS...]\n", stderr);
    return 2;
  }
  for (mode = 0; mode_names[mode] != NULL; mode++)
    if (strcmp(argv[1], mode_names[mode]) == 0) break;
  if (mode_names[mode] == NULL) {
    fprintf(stderr, "bench_host: unknown mode '%s'\n", argv[1]);
    return 2;
  }
  return run_mode(mode, argv[2], argc - 3, argv + 3);
}
