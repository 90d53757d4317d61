/*
** engine.c -- a small C engine, written the way engines are: a fixed-step
** loop whose systems are Lua scripts it runs with luaL_dofile,
** luaL_dostring and lua_load (its own reader), and a coroutine scheduler
** in C that resumes the scripts' coroutines with lua_resume.  It is the
** test host of tests/engine/check.sh: it knows how many times it called
** each script function, prints that, and dumps the profile as json for
** check.py to compare.
**
**     engine [--ticks N] [--out FILE] [--scripts DIR] [--memory]
**            [--probe fast|direct|api|ffi]
**
** It is written against the C API of the Lua it is built with (its lua.h
** says which): Lua 5.4's, or LuaJIT's, which is 5.1's with a few of 5.2's
** (lua_resume(co, narg), whose results are the coroutine's stack); built
** against libluainstrjit (CMake -DLUA=jit, make LUAINSTR_PC=luainstrjit).
**
** Of luainstr it uses only what a host would: luainstr_wrap.h (included
** after lauxlib.h, so luaL_dofile, luaL_dostring, lua_load, lua_resume and
** lua_pcall below go through the wrap_ functions), luainstr_open, options,
** luainstr_install_hooks, zones, frames and a dump.  Built with
** -DENGINE_NO_WRAP it includes luainstr.h only, as a host that forgot the
** header would: the checks must then fail and the report say why.
** Built with -DENGINE_PLAIN_RESUME its loads go through the header but
** its resumes call Lua's own lua_resume: the timing and nesting checks
** must fail (each coroutine's time counted twice) and the report say why.
**
** Each tick, all inside the C zone "tick":
**   zone physics     physics_step(dt)                       (world.lua)
**   zone ai          ai_think(i) for each of AGENTS agents  (dostring)
**   zone scheduler   each live task resumed with lua_resume, each resume
**                    in a zone "resume": 3 patrols (yield every tick,
**                    forever), a cutscene (CUTSCENE_SHOTS shots, a tick
**                    each; a new one starts when it ends), faulty (fails
**                    on its second resume), builder (BUILD_TABLES tables
**                    a resume)                              (behaviours.lua)
**   zone director    director(task): a Lua function that resumes the task
**                    coroutine through the C function engine.resume_task
**                                                           (director.lua)
** then the frame ends.
*/
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#ifdef ENGINE_NO_WRAP
#include <luainstr.h>
#else
#include <luainstr_wrap.h>
#endif
#ifdef ENGINE_PLAIN_RESUME
#undef lua_resume    /* loads routed, resumes not: the profiler not told */
#endif

#ifndef ENGINE_SCRIPTS
#define ENGINE_SCRIPTS "scripts"
#endif

#define AGENTS 4
#define PATROLS 3
#define CUTSCENE_SHOTS 20
#define BUILD_TABLES 200
#define MAX_TASKS 8

/* ---- what the engine did: the expected call counts --------------------- */

/* The script functions the engine makes run, and how many times. */
enum { F_PHYSICS, F_AI, F_PATROL, F_PATROL_STEP, F_CUTSCENE, F_SHOT,
       F_FAULTY, F_FAULTY_STEP, F_BUILDER, F_MAKE_TABLES, F_DIRECTOR,
       F_TASK, F_TASK_STEP, F_COUNT };

static const char *const fnames[F_COUNT] = {
  "physics_step", "ai_think", "patrol", "patrol_step", "cutscene",
  "cutscene_shot", "faulty", "faulty_step", "builder", "make_tables",
  "director", "task_body", "task_step"};

static long calls[F_COUNT];    /* entries the engine caused */
static long errors[F_COUNT];   /* of which ended by an error */

/* ---- loading ------------------------------------------------------------ */

/* lua_load's reader: the file, a few bytes a call, as an engine reads
** from an archive in pieces. */
typedef struct Reader {
  FILE *f;
  char buf[61];
} Reader;

static const char *read_piece(lua_State *L, void *ud, size_t *size) {
  Reader *r = (Reader *)ud;
  (void)L;
  *size = fread(r->buf, 1, sizeof r->buf, r->f);
  return *size > 0 ? r->buf : NULL;
}

/* Loads and runs DIR/FILE with lua_load and read_piece.  0 on error. */
static int load_with_reader(lua_State *L, const char *dir, const char *file) {
  Reader r;
  const char *path = lua_pushfstring(L, "%s/%s", dir, file);
  const char *name = lua_pushfstring(L, "@%s", path);
  int status;
  if ((r.f = fopen(path, "rb")) == NULL) {
    fprintf(stderr, "engine: cannot open %s\n", path);
    return 0;
  }
#if LUA_VERSION_NUM >= 502
  status = lua_load(L, read_piece, &r, name, "t");
#elif defined(LUA_LJDIR)        /* LuaJIT: 5.2's lua_load, as lua_loadx */
  status = lua_loadx(L, read_piece, &r, name, "t");
#else
  status = lua_load(L, read_piece, &r, name);
#endif
  fclose(r.f);
  if (status == LUA_OK) status = lua_pcall(L, 0, 0, 0);
  if (status != LUA_OK) {
    fprintf(stderr, "engine: %s\n", lua_tostring(L, -1));
    return 0;
  }
  lua_pop(L, 2);  /* path, name */
  return 1;
}

static int dofile_in(lua_State *L, const char *dir, const char *file) {
  const char *path = lua_pushfstring(L, "%s/%s", dir, file);
  if (luaL_dofile(L, path) != LUA_OK) {
    fprintf(stderr, "engine: %s\n", lua_tostring(L, -1));
    return 0;
  }
  lua_pop(L, 1);
  return 1;
}

/* The AI system is one line of Lua the engine carries itself. */
static const char ai_source[] =
  "function ai_think(id) spin(0.25) return id * 2 end";

/* ---- the scheduler ------------------------------------------------------ */

/* lua_resume as this Lua has it (through luainstr_wrap.h unless the build
** says otherwise): *nres, the values it yielded or returned. */
static int resume(lua_State *co, lua_State *from, int narg, int *nres) {
#if LUA_VERSION_NUM >= 504
  return lua_resume(co, from, narg, nres);
#elif LUA_VERSION_NUM >= 502
  int status = lua_resume(co, from, narg);
  *nres = lua_gettop(co);
  return status;
#else
  int status;
  (void)from;
  status = lua_resume(co, narg);
  *nres = lua_gettop(co);
  return status;
#endif
}

typedef struct Task {
  lua_State *co;       /* its thread (kept alive by ref) */
  int ref;             /* registry reference to the thread */
  int body;            /* F_PATROL, F_CUTSCENE, ... */
  int narg;            /* arguments of the first resume, on co's stack */
  int step;            /* the function each resume calls */
  long resumes;
  int dead;
} Task;

static Task tasks[MAX_TASKS];
static int ntasks;

/* Makes t a new task running global function fnames[body] with one
** integer argument (arg < 0: none); a dead task's thread is let go. */
static Task *spawn_in(lua_State *L, Task *t, int body, int step,
                      lua_Integer arg) {
  if (t->co != NULL) luaL_unref(L, LUA_REGISTRYINDEX, t->ref);
  memset(t, 0, sizeof *t);
  t->co = lua_newthread(L);
  t->ref = luaL_ref(L, LUA_REGISTRYINDEX);
  t->body = body;
  t->step = step;
  lua_getglobal(t->co, fnames[body]);
  if (arg >= 0) { lua_pushinteger(t->co, arg); t->narg = 1; }
  return t;
}

static Task *spawn(lua_State *L, int body, int step, lua_Integer arg) {
  return spawn_in(L, &tasks[ntasks++], body, step, arg);
}

/* One resume of t, in the zone "resume".  The body is entered on the
** first resume; every resume but a cutscene's last calls its step once
** (faulty's second step raises the error).  0 on an unexpected status. */
static int resume_task(lua_State *L, Task *t) {
  int nres = 0, status;
  luainstr_zone_begin(L, "resume");
  status = resume(t->co, L, t->narg, &nres);
  luainstr_zone_end(L);
  if (t->resumes++ == 0) calls[t->body]++;
  t->narg = 0;
  if (t->body != F_CUTSCENE || t->resumes <= CUTSCENE_SHOTS) calls[t->step]++;
  if (status == LUA_YIELD || status == LUA_OK) {
    lua_pop(t->co, nres);
    if (status == LUA_OK) {
      t->dead = 1;
      if (t->body != F_CUTSCENE) {
        fprintf(stderr, "engine: %s returned\n", fnames[t->body]);
        return 0;
      }
    }
    return 1;
  }
  t->dead = 1;
  if (t->body != F_FAULTY || t->resumes != 2) {
    fprintf(stderr, "engine: %s: %s\n", fnames[t->body], lua_tostring(t->co, -1));
    return 0;
  }
  errors[F_FAULTY]++;
  errors[F_FAULTY_STEP]++;
  lua_pop(t->co, 1);
  return 1;
}

/* engine.resume_task(co): the director's way to run its task, lua_resume
** from a C function called from Lua.  Returns the status. */
static int l_resume_task(lua_State *L) {
  lua_State *co = lua_tothread(L, 1);
  int nres = 0, status;
  luaL_argcheck(L, co != NULL, 1, "thread expected");
  status = resume(co, L, 0, &nres);
  if (status > LUA_YIELD) return lua_error(L);
  lua_pop(co, nres);
  lua_pushinteger(L, status);
  return 1;
}

/* ---- the loop ----------------------------------------------------------- */

/* Calls global fname with one number argument, in a protected call. */
static int call_system(lua_State *L, int f, lua_Number arg) {
  lua_getglobal(L, fnames[f]);
  lua_pushnumber(L, arg);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    fprintf(stderr, "engine: %s: %s\n", fnames[f], lua_tostring(L, -1));
    return 0;
  }
  calls[f]++;
  return 1;
}

static int tick(lua_State *L, Task *director_task) {
  int ok = 1;
  luainstr_zone_begin(L, "tick");

  luainstr_zone_begin(L, "physics");
  ok = ok && call_system(L, F_PHYSICS, 1.0 / 60);
  luainstr_zone_end(L);

  luainstr_zone_begin(L, "ai");
  for (int i = 1; ok && i <= AGENTS; i++) ok = call_system(L, F_AI, i);
  luainstr_zone_end(L);

  luainstr_zone_begin(L, "scheduler");
  for (int i = 0; ok && i < ntasks; i++) {
    Task *t = &tasks[i];
    if (t->dead || t == director_task) continue;
    ok = resume_task(L, t);
    if (ok && t->dead && t->body == F_CUTSCENE)  /* the next cutscene */
      spawn_in(L, t, F_CUTSCENE, F_SHOT, CUTSCENE_SHOTS);
  }
  luainstr_zone_end(L);

  luainstr_zone_begin(L, "director");
  if (ok) {
    lua_getglobal(L, fnames[F_DIRECTOR]);
    lua_rawgeti(L, LUA_REGISTRYINDEX, director_task->ref);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
      fprintf(stderr, "engine: director: %s\n", lua_tostring(L, -1));
      ok = 0;
    } else {
      calls[F_DIRECTOR]++;
      if (director_task->resumes++ == 0) calls[F_TASK]++;
      calls[F_TASK_STEP]++;
    }
  }
  luainstr_zone_end(L);

  luainstr_zone_end(L);
  luainstr_frame(L);
  return ok;
}

/* ---- main ----------------------------------------------------------------- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct Options {
  long ticks;
  const char *out;
  const char *scripts;
  const char *probe;   /* NULL: the default (or LUAINSTR_PROBE) */
  int memory;
} Options;

static int parse_args(int argc, char **argv, Options *o) {
  o->ticks = 60;
  o->out = "engine.json";
  o->scripts = ENGINE_SCRIPTS;
  o->probe = NULL;
  o->memory = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--memory") == 0) {
      o->memory = 1;
    } else if (i + 1 < argc && strcmp(a, "--ticks") == 0) {
      char *end;
      o->ticks = strtol(argv[++i], &end, 10);
      if (*end != '\0' || o->ticks < 1 || o->ticks > 1000000) return 0;
    } else if (i + 1 < argc && strcmp(a, "--out") == 0) {
      o->out = argv[++i];
    } else if (i + 1 < argc && strcmp(a, "--scripts") == 0) {
      o->scripts = argv[++i];
    } else if (i + 1 < argc && strcmp(a, "--probe") == 0) {
      o->probe = argv[++i];
    } else {
      return 0;
    }
  }
  return 1;
}

/* Options before luainstr_open (any may be set before it), then open. */
static int start_profiler(lua_State *L, const Options *o) {
  if (o->probe != NULL && luainstr_set_option(L, "probe", o->probe) != LUAINSTR_OK) {
    fprintf(stderr, "engine: probe %s: %s\n", o->probe, luainstr_errmsg(L));
    return 0;
  }
  if ((o->memory && luainstr_set_option(L, "memory", "on") != LUAINSTR_OK)
      || luainstr_set_option(L, "frames", "on") != LUAINSTR_OK
      || luainstr_open(L) != LUAINSTR_OK) {
    fprintf(stderr, "engine: %s\n", luainstr_errmsg(L));
    return 0;
  }
  luainstr_install_hooks();
  return 1;
}

static int load_scripts(lua_State *L, const char *dir) {
  static const luaL_Reg engine_lib[] = {{"resume_task", l_resume_task},
                                        {NULL, NULL}};
  luaL_newlib(L, engine_lib);
  lua_setglobal(L, "engine");
  if (!dofile_in(L, dir, "world.lua")) return 0;
  if (luaL_dostring(L, ai_source) != LUA_OK) {
    fprintf(stderr, "engine: %s\n", lua_tostring(L, -1));
    return 0;
  }
  return load_with_reader(L, dir, "behaviours.lua")
         && dofile_in(L, dir, "director.lua");
}

/* What the engine did, for check.py: one "calls NAME N" line a function,
** "errors NAME N" where some ended by an error. */
static void print_expected(long ticks, double loop_ms) {
  printf("ticks %ld\n", ticks);
  printf("loop_ms %.3f\n", loop_ms);
  printf("build_tables %d\n", BUILD_TABLES);
  printf("builder_resumes %ld\n", calls[F_MAKE_TABLES]);
  /* spin: once a call of each of these, twice a director */
  printf("calls spin %ld\n", calls[F_PHYSICS] + calls[F_AI]
         + calls[F_PATROL_STEP] + calls[F_SHOT] + calls[F_FAULTY_STEP]
         + 2 * calls[F_DIRECTOR] + calls[F_TASK_STEP]);
  for (int f = 0; f < F_COUNT; f++) {
    printf("calls %s %ld\n", fnames[f], calls[f]);
    if (errors[f] > 0) printf("errors %s %ld\n", fnames[f], errors[f]);
  }
}

int main(int argc, char **argv) {
  Options o;
  lua_State *L;
  Task *director_task;
  double t0, loop_ms;
  int ok;
  if (!parse_args(argc, argv, &o)) {
    fprintf(stderr, "usage: engine [--ticks N] [--out FILE] [--scripts DIR] "
                    "[--memory] [--probe fast|direct|api|ffi]\n");
    return 2;
  }
  if ((L = luaL_newstate()) == NULL) return 1;
#if LUA_VERSION_NUM >= 503
  memset(lua_getextraspace(L), 0, LUA_EXTRASPACE);  /* see luainstr.h */
#endif
  luaL_openlibs(L);
  if (!start_profiler(L, &o)) { lua_close(L); return 3; }
  ok = load_scripts(L, o.scripts);
  if (ok) {
    for (int i = 1; i <= PATROLS; i++) spawn(L, F_PATROL, F_PATROL_STEP, i);
    spawn(L, F_CUTSCENE, F_SHOT, CUTSCENE_SHOTS);
    spawn(L, F_FAULTY, F_FAULTY_STEP, -1);
    spawn(L, F_BUILDER, F_MAKE_TABLES, BUILD_TABLES);
    director_task = spawn(L, F_TASK, F_TASK_STEP, -1);
    t0 = now_ms();
    for (long i = 0; ok && i < o.ticks; i++) ok = tick(L, director_task);
    loop_ms = now_ms() - t0;
    if (ok) print_expected(o.ticks, loop_ms);
  }
  if (ok) {
    luainstr_stop(L);
    if (luainstr_dump(L, "json", o.out) != LUAINSTR_OK) {
      fprintf(stderr, "engine: %s: %s\n", o.out, luainstr_errmsg(L));
      ok = 0;
    }
  }
  luainstr_uninstall_hooks();
  lua_close(L);
  return ok ? 0 : 1;
}
