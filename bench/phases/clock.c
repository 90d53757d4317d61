/*
** clock.c -- phaseclock, the truth's clock for bench/phases.sh: a Lua C
** module with three functions, now(), the time of CLOCK_MONOTONIC in ns
** since the module was opened, and cpu(), the calling thread's CPU time
** (CLOCK_THREAD_CPUTIME_ID) in ns, each as a number (a double holds every
** ns up to 104 days exactly).  C functions, so an instrumenting profiler
** neither rewrites nor times them: the same program reads them with and
** without one.  cpu() says how much of the wall time the process had a
** core for, on a machine shared with other jobs.  nop() does nothing: the
** empty C call bench/phases/floor.lua inserts (bench/floor.sh), and
** phaseclock_nop() the same for LuaJIT's FFI.
**
** Built by bench/phases.sh against each Lua's headers (5.4, 5.1, LuaJIT)
** into a temporary folder, and opened with package.loadlib(path,
** "luaopen_phaseclock"): no symbol of it depends on the Lua version.
*/
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */

#include <time.h>

#include <lua.h>
#include <lauxlib.h>

int luaopen_phaseclock(lua_State *L);
void phaseclock_nop(void *p, int id);

static struct timespec base;   /* when the module was opened */

static int clock_now(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)(ts.tv_sec - base.tv_sec) * 1e9 +
                    (lua_Number)(ts.tv_nsec - base.tv_nsec));
  return 1;
}

/* nop(...): nothing, returns nothing (bench/phases/floor.lua's insert) */
static int clock_nop(lua_State *L) {
  (void)L;
  return 0;
}

/* The same for LuaJIT's FFI, called as luaprofjit's probe calls its C side
** (through a Lua function: bench/phases/floor.lua) */
void phaseclock_nop(void *p, int id) {
  (void)p;
  (void)id;
}

static int clock_cpu(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec * 1e9 + (lua_Number)ts.tv_nsec);
  return 1;
}

int luaopen_phaseclock(lua_State *L) {
  clock_gettime(CLOCK_MONOTONIC, &base);
  lua_createtable(L, 0, 3);
  lua_pushcfunction(L, clock_now);
  lua_setfield(L, -2, "now");
  lua_pushcfunction(L, clock_cpu);
  lua_setfield(L, -2, "cpu");
  lua_pushcfunction(L, clock_nop);
  lua_setfield(L, -2, "nop");
  return 1;
}
