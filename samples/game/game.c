/*
** game.c -- a game host with a fixed-step loop (no window) whose systems
** are Lua scripts, profiled with luainstr: frames, zones and memory.  It
** is built as an outside program would build it, against the installed
** library (CMakeLists.txt: find_package; Makefile: pkg-config).
**
**     game [--ticks N] [--out DIR] [--lua DIR] [--no-profile]
**          [--live ADDR] [--realtime]
**
**   --ticks N      ticks to run (default 180: 3 s of a 60 Hz game); 0: until
**                  SIGINT or SIGTERM (either also ends a run of N ticks
**                  early), then the reports are written as after N ticks
**   --out DIR      where the reports go: DIR/game.html, game.json,
**                  game.txt (default: the current directory)
**   --lua DIR      the scripts (default: lua/ beside game.c, set at build)
**   --no-profile   run the same loop without luainstr (compare times)
**   --live ADDR    the live view (option "live": HOST:PORT, or PORT on
**                  127.0.0.1, 0 for a free one): luainstr prints the page's
**                  URL on stderr (docs/live-protocol.md)
**   --realtime     pace the ticks to 60 Hz: after a tick's work the host
**                  sleeps until its 1/60 s slot ends, inside an idle span
**                  (luainstr_idle_begin/end), as a game waits for vsync
**
** Each tick calls the Lua systems physics, ai, particles and render, each
** inside a C zone of the same name, then resumes the running cutscene, a
** coroutine of Lua, with lua_resume inside the C zone "cutscene" (a new
** one starts when one ends), then ends the frame.  The scripts plant a
** spike (AI.rebuild_flow_field, every 60th tick from tick 30) and a leak
** (UI.memo_label); the host prints which ticks were spikes by its own
** stopwatch, so both show without the profiler too.
**
** The scripts are loaded as most engines load them, with luaL_dofile and
** luaL_loadfile; luainstr_wrap.h (included after lauxlib.h) routes those,
** lua_pcall and lua_resume through luainstr's swappable entry points, and
** luainstr_install_hooks() turns the profiler's versions on.
*/
#define _POSIX_C_SOURCE 200809L  /* clock_gettime, clock_nanosleep, sigaction */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
/* After lauxlib.h: luaL_dofile, luaL_loadfile, lua_pcall and lua_resume
** below call the swappable entry points, the profiler's while it is on. */
#include <luainstr_wrap.h>

#ifndef GAME_LUA_DIR
#define GAME_LUA_DIR "lua"
#endif

#define TICK_HZ 60

/* The command line. */
typedef struct Options {
  long ticks;            /* ticks to run */
  const char *out_dir;   /* where the reports go */
  const char *lua_dir;   /* where the scripts are */
  int profile;           /* run under luainstr */
  const char *live;      /* the live view's address, or NULL */
  int realtime;          /* pace the ticks to TICK_HZ */
} Options;

/* Set by SIGINT and SIGTERM: the loop ends after its tick. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

/* ---- scripts ----------------------------------------------------------- */

/* Loads the script FILE of the scripts directory with luaL_loadfile, as
** an engine does.  Pushes the chunk, or an error message; returns the load
** status (LUA_ERRFILE: unreadable). */
static int load_script(lua_State *L, const char *dir, const char *file) {
  const char *path = lua_pushfstring(L, "%s/%s", dir, file);
  int status = luaL_loadfile(L, path);
  lua_remove(L, -2);     /* the path */
  return status;
}

/* package.searchers entry: require "NAME" finds NAME.lua (dots are
** directories) in the scripts directory, the upvalue. */
static int search_scripts(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const char *dir = lua_tostring(L, lua_upvalueindex(1));
  const char *file;
  int status;
  file = luaL_gsub(L, name, ".", "/");
  file = lua_pushfstring(L, "%s.lua", file);
  status = load_script(L, dir, file);
  if (status == LUA_ERRFILE) {
    lua_pushfstring(L, "no file '%s/%s'", dir, file);
    return 1;
  }
  if (status != LUA_OK)
    return luaL_error(L, "error loading module '%s':\n\t%s", name,
                      lua_tostring(L, -1));
  lua_pushstring(L, file);  /* the loader's second argument */
  return 2;
}

/* Puts search_scripts second in package.searchers, after the preload
** searcher (which is where `require "luainstr"` is found) and before the
** stock file searchers. */
static void add_searcher(lua_State *L, const char *dir) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchers");
  for (lua_Integer i = (lua_Integer)luaL_len(L, -1); i >= 2; i--) {
    lua_rawgeti(L, -1, i);
    lua_rawseti(L, -2, i + 1);
  }
  lua_pushstring(L, dir);
  lua_pushcclosure(L, search_scripts, 1);
  lua_rawseti(L, -2, 2);
  lua_pop(L, 2);
}

/* Runs main.lua with luaL_dofile; it returns the game's table of systems.
** Leaves a registry reference to it in *game.  0 on error (message
** printed). */
static int load_game(lua_State *L, const char *dir, int *game) {
  int top = lua_gettop(L), status;
  lua_pushfstring(L, "%s/main.lua", dir);
  status = luaL_dofile(L, lua_tostring(L, -1));
  lua_remove(L, top + 1);  /* the path */
  if (status == LUA_OK) lua_settop(L, top + 1);  /* its first result */
  if (status == LUA_OK && !lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_pushliteral(L, "main.lua did not return a table of systems");
    status = LUA_ERRRUN;
  }
  if (status != LUA_OK) {
    fprintf(stderr, "game: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
  }
  *game = luaL_ref(L, LUA_REGISTRYINDEX);
  return 1;
}

/* ---- the loop ---------------------------------------------------------- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Calls game.SYSTEM(tick, dt) inside the C zone SYSTEM.  Returns the
** result's truth (ai: this tick planted the spike) in *result, and 0 with
** the message printed when the system raised an error.  The zone calls
** fail harmlessly (LUAINSTR_EORDER) when the profiler is not running. */
static int run_system(lua_State *L, int game, const char *system,
                      lua_Integer tick, int *result) {
  int status;
  luainstr_zone_begin(L, system);
  lua_rawgeti(L, LUA_REGISTRYINDEX, game);
  lua_getfield(L, -1, system);
  lua_remove(L, -2);
  lua_pushinteger(L, tick);
  lua_pushnumber(L, 1.0 / TICK_HZ);
  status = lua_pcall(L, 2, 1, 0);
  luainstr_zone_end(L);
  if (status != LUA_OK) {
    fprintf(stderr, "game: tick %lld, %s: %s\n", (long long)tick, system,
            lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
  }
  *result = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return 1;
}

/* The cutscene scheduler: a coroutine running game.cutscene, resumed once
** a tick; what it did, for the check. */
typedef struct Cutscene {
  lua_State *co;   /* the running cutscene, or NULL */
  int ref;         /* its registry reference */
  long started;    /* coroutines started */
  long resumes;
  long shots;      /* resumes that yielded: one shot each */
} Cutscene;

/* Resumes the cutscene (a new coroutine when none runs) with lua_resume,
** inside the C zone "cutscene".  0 with the message printed on an error. */
static int run_cutscene(lua_State *L, int game, Cutscene *c) {
  int nres = 0, status;
  if (c->co == NULL) {
    c->co = lua_newthread(L);
    c->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_rawgeti(L, LUA_REGISTRYINDEX, game);
    lua_getfield(L, -1, "cutscene");
    lua_xmove(L, c->co, 1);
    lua_pop(L, 1);
    c->started++;
  }
  luainstr_zone_begin(L, "cutscene");
  status = lua_resume(c->co, L, 0, &nres);
  luainstr_zone_end(L);
  c->resumes++;
  if (status > LUA_YIELD) {
    fprintf(stderr, "game: cutscene: %s\n", lua_tostring(c->co, -1));
    return 0;
  }
  lua_pop(c->co, nres);
  if (status == LUA_YIELD) {
    c->shots++;
  } else {   /* it ended: the next tick starts another */
    luaL_unref(L, LUA_REGISTRYINDEX, c->ref);
    c->co = NULL;
  }
  return 1;
}

/* One tick's work: the systems in order, then the cutscene (the caller
** ends the frame).  Sets *spiked when the AI planted the spike on this
** tick. */
static int run_tick(lua_State *L, int game, lua_Integer tick, int *spiked,
                    Cutscene *cutscene) {
  static const char *const systems[] = {"physics", "ai", "particles", "render"};
  for (size_t i = 0; i < sizeof systems / sizeof systems[0]; i++) {
    int result = 0;
    if (!run_system(L, game, systems[i], tick, &result)) return 0;
    if (i == 1) *spiked = result;
  }
  return run_cutscene(L, game, cutscene);
}

/* --realtime: sleeps until the end of the tick's slot (*next, advanced by
** 1/TICK_HZ s) inside an idle span, so that the frame's sleep is its idle
** time and the spike rule reads its work.  A tick that overran its slot
** does not sleep, and the slots start again from now.  A signal ends the
** sleep. */
static void wait_for_slot(lua_State *L, struct timespec *next) {
  struct timespec now;
  next->tv_nsec += 1000000000L / TICK_HZ;
  if (next->tv_nsec >= 1000000000L) {
    next->tv_sec++;
    next->tv_nsec -= 1000000000L;
  }
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (now.tv_sec > next->tv_sec
      || (now.tv_sec == next->tv_sec && now.tv_nsec >= next->tv_nsec)) {
    *next = now;
    return;
  }
  luainstr_idle_begin(L);   /* LUAINSTR_OK and nothing under --no-profile */
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR
         && !stop_requested) {
  }
  luainstr_idle_end(L);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of the ticks that were not planted spikes. */
static double median_normal(const double *ms, const unsigned char *spike,
                            long n) {
  double *v = malloc((size_t)n * sizeof *v);
  long m = 0;
  double med;
  if (v == NULL) return 0;
  for (long i = 0; i < n; i++)
    if (!spike[i]) v[m++] = ms[i];
  qsort(v, (size_t)m, sizeof *v, cmp_double);
  med = m > 0 ? v[(m - 1) / 2] : 0;
  free(v);
  return med;
}

/* What the host saw by its own stopwatch: the planted spike ticks (one
** line the check script reads: "spike ticks: 30 90 150") and their times
** against the median tick. */
static void print_ticks(const double *ms, const unsigned char *spike, long n) {
  if (n == 0) {
    printf("ticks: 0\n");
    return;
  }
  double med = median_normal(ms, spike, n), total = 0;
  for (long i = 0; i < n; i++) total += ms[i];
  printf("ticks: %ld (%.2f s of game time) in %.1f ms, median tick %.3f ms\n",
         n, (double)n / TICK_HZ, total, med);
  printf("spike ticks:");
  for (long i = 0; i < n; i++)
    if (spike[i]) printf(" %ld", i + 1);
  printf("\n");
  for (long i = 0; i < n; i++)
    if (spike[i])
      printf("  tick %ld: %.3f ms, %.1fx the median\n", i + 1, ms[i],
             med > 0 ? ms[i] / med : 0);
}

/* Prints figures from game.stats(): the leak's size and the culprits; and
** what the cutscene scheduler did. */
static void print_stats(lua_State *L, int game, long ticks,
                        const Cutscene *c) {
  lua_Integer entries, per_tick;
  lua_rawgeti(L, LUA_REGISTRYINDEX, game);
  lua_getfield(L, -1, "stats");
  if (lua_pcall(L, 0, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
    fprintf(stderr, "game: stats: %s\n", lua_tostring(L, -1));
    lua_pop(L, 2);
    return;
  }
  lua_getfield(L, -1, "label_cache_entries");
  lua_getfield(L, -2, "nametags_per_tick");
  lua_getfield(L, -3, "spike_function");
  lua_getfield(L, -4, "leak_function");
  lua_getfield(L, -5, "cutscene_functions");
  entries = lua_tointeger(L, -5);
  per_tick = lua_tointeger(L, -4);
  printf("spike function: %s\n", lua_tostring(L, -3));
  printf("leak function: %s\n", lua_tostring(L, -2));
  printf("cutscene functions: %s\n", lua_tostring(L, -1));
  printf("cutscenes: %ld started, %ld resumes, %ld shots\n", c->started,
         c->resumes, c->shots);
  printf("leak: label cache %lld entries after %ld ticks (%lld a tick)\n",
         (long long)entries, ticks, (long long)per_tick);
  printf("memory in use after a full collection: %d KB\n",
         lua_gc(L, LUA_GCCOUNT, 0));
  lua_pop(L, 7);
}

/* ---- reports ----------------------------------------------------------- */

/* Writes the profile in three formats into dir.  0 on any failure. */
static int dump_reports(lua_State *L, const char *dir) {
  static const char *const formats[][2] = {
    {"html", "game.html"}, {"json", "game.json"}, {"text", "game.txt"}};
  int ok = 1;
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
    const char *path = lua_pushfstring(L, "%s/%s", dir, formats[i][1]);
    if (luainstr_dump(L, formats[i][0], path) != LUAINSTR_OK) {
      fprintf(stderr, "game: %s: %s\n", path, luainstr_errmsg(L));
      ok = 0;
    } else {
      printf("report: %s\n", path);
    }
    lua_pop(L, 1);
  }
  return ok;
}

/* ---- main -------------------------------------------------------------- */

static int usage(void) {
  fprintf(stderr, "usage: game [--ticks N] [--out DIR] [--lua DIR] "
                  "[--no-profile] [--live ADDR] [--realtime]\n");
  return 2;
}

/* Fills o from argv; 0 on a bad command line. */
static int parse_args(int argc, char **argv, Options *o) {
  o->ticks = 3 * TICK_HZ;
  o->out_dir = ".";
  o->lua_dir = GAME_LUA_DIR;
  o->profile = 1;
  o->live = NULL;
  o->realtime = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--no-profile") == 0) {
      o->profile = 0;
    } else if (i + 1 < argc && strcmp(a, "--ticks") == 0) {
      char *end;
      o->ticks = strtol(argv[++i], &end, 10);
      if (*end != '\0' || o->ticks < 0 || o->ticks > 100000000) return 0;
    } else if (i + 1 < argc && strcmp(a, "--out") == 0) {
      o->out_dir = argv[++i];
    } else if (i + 1 < argc && strcmp(a, "--lua") == 0) {
      o->lua_dir = argv[++i];
    } else if (i + 1 < argc && strcmp(a, "--live") == 0) {
      o->live = argv[++i];
    } else if (strcmp(a, "--realtime") == 0) {
      o->realtime = 1;
    } else {
      return 0;
    }
  }
  return o->profile || o->live == NULL;   /* the live view is the profiler's */
}

/* Sets the options (any may come before luainstr_open), attaches and
** starts the profiler, and swaps the profiler's loaders, lua_resume and
** lua_pcall in behind luainstr_wrap.h's names.  0 on failure.
** A spike is a frame over 3 times the median of the ones before (the
** default is 2): the planted spike is 5 to 10 times a normal tick, while a
** normal tick on a busy machine (a path search that ran long, a collector
** step, the CPU lent to another process) can reach twice the median. */
static int start_profiler(lua_State *L, const char *live) {
  if (luainstr_set_option(L, "memory", "on") != LUAINSTR_OK
      || luainstr_set_option(L, "frames", "on") != LUAINSTR_OK
      || luainstr_set_option(L, "spike_factor", "3") != LUAINSTR_OK
      || luainstr_open(L) != LUAINSTR_OK) {                 /* attach, start */
    fprintf(stderr, "game: %s\n", luainstr_errmsg(L));
    return 0;
  }
  /* The live view: the runtime prints its URL.  When it cannot start (the
  ** port in use, a build without the server) the game runs on without it,
  ** as the runtime itself does. */
  if (live != NULL
      && (luainstr_set_option(L, "live_name", "game") != LUAINSTR_OK
          || luainstr_set_option(L, "live", live) != LUAINSTR_OK))
    fprintf(stderr, "game: live view: %s\n", luainstr_errmsg(L));
  luainstr_install_hooks();
  return 1;
}

/* The ticks' times and planted spikes, grown as the loop runs (a run
** until a signal has no length known in advance). */
typedef struct Ticks {
  double *ms;
  unsigned char *spike;
  long n, cap;
} Ticks;

static int ticks_push(Ticks *t, double ms, int spike) {
  if (t->n == t->cap) {
    long cap = t->cap > 0 ? 2 * t->cap : 1024;
    double *m = realloc(t->ms, (size_t)cap * sizeof *m);
    unsigned char *s;
    if (m == NULL) return 0;
    t->ms = m;
    s = realloc(t->spike, (size_t)cap);
    if (s == NULL) return 0;
    t->spike = s;
    t->cap = cap;
  }
  t->ms[t->n] = ms;
  t->spike[t->n] = (unsigned char)spike;
  t->n++;
  return 1;
}

/* Runs the loop: o->ticks ticks (0: no limit) or until a signal; each
** tick's work is timed by the host's stopwatch, then (--realtime) the
** sleep to its slot's end, then the frame mark. */
static int run_loop(lua_State *L, int game, const Options *o, Ticks *ticks,
                    Cutscene *cutscene) {
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (long t = 0; (o->ticks == 0 || t < o->ticks) && !stop_requested; t++) {
    int spiked = 0;
    double t0 = now_ms();
    if (!run_tick(L, game, (lua_Integer)t + 1, &spiked, cutscene)) return 0;
    if (!ticks_push(ticks, now_ms() - t0, spiked)) {
      fprintf(stderr, "game: out of memory\n");
      return 0;
    }
    if (o->realtime) wait_for_slot(L, &next);
    luainstr_frame(L);  /* LUAINSTR_EORDER under --no-profile: ignored */
  }
  return 1;
}

int main(int argc, char **argv) {
  Options o;
  lua_State *L;
  Ticks ticks = {NULL, NULL, 0, 0};
  int game, ok;
  Cutscene cutscene = {NULL, LUA_NOREF, 0, 0, 0};
  struct sigaction sa;
  if (!parse_args(argc, argv, &o)) return usage();
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  L = luaL_newstate();
  if (L == NULL) {
    fprintf(stderr, "game: out of memory\n");
    return 1;
  }
  /* Lua leaves the main thread's extra space (lua_getextraspace)
  ** uninitialised; nothing here uses it, so it is NULL, and the profiler
  ** keeps its stacks there (coroutine switches find them at once). */
  memset(lua_getextraspace(L), 0, LUA_EXTRASPACE);
  luaL_openlibs(L);
  ok = (!o.profile || start_profiler(L, o.live));
  if (ok) {
    add_searcher(L, o.lua_dir);
    ok = load_game(L, o.lua_dir, &game) && run_loop(L, game, &o, &ticks, &cutscene);
  }
  if (ok) {
    print_ticks(ticks.ms, ticks.spike, ticks.n);
    /* A full collection first, so that the reports' live bytes are what is
    ** still reachable (the leak), not garbage the collector has not yet
    ** reached. */
    lua_gc(L, LUA_GCCOLLECT, 0);
    print_stats(L, game, ticks.n, &cutscene);
    if (o.profile) {
      luainstr_stop(L);
      ok = dump_reports(L, o.out_dir);
    }
  }
  if (o.profile) luainstr_uninstall_hooks();
  lua_close(L);
  free(ticks.ms);
  free(ticks.spike);
  return ok ? 0 : 1;
}
