/*
** bench_frames.c -- the cost of one operation of frame mode, zones and
** memory mode, with a realistic stack under it (issue 12).
**
**   bench_frames [--rounds R] OP N
**
**   mark        luainstr_frame(L), option "frames" on, nothing to keep:
**               no spike (every frame is alike, and spikes "0")
**   zone_c      luainstr_zone_begin(L, "z") + luainstr_zone_end(L)
**   zone_lua    p.zone_begin("z") + p.zone_end() from a Lua loop
**   call_lua    the same Lua loop calling a do-nothing C function twice:
**               what zone_lua costs before the zone's own work
**   newtable_off  lua_newtable + lua_pop from C, memory mode off
**   newtable_on   the same, option "memory" on
**
** Each is done N times from C (or from Lua) at the bottom of a stack of 8
** open instrumented Lua calls, with 4 coroutines suspended 5 calls deep,
** under the full profiler (luainstr_open).  R rounds (default 5), each
** timed; prints the median ns per operation:
**   op=OP n=N rounds=R ns_per_op=X min=Y max=Z
** Under callgrind, instructions per operation are the difference of two
** runs with different N (bench/frames.sh does that), which takes out the
** set-up.  Exit status 1 on an error.
*/
#define _XOPEN_SOURCE 700  /* clock_gettime */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"

enum { OP_MARK, OP_ZONE_C, OP_ZONE_LUA, OP_CALL_LUA, OP_NEWTABLE_OFF,
       OP_NEWTABLE_ON };
static const char *const op_names[] = { "mark", "zone_c", "zone_lua",
                                        "call_lua", "newtable_off",
                                        "newtable_on", NULL };

/* What the rounds measure (one run of the program does one op). */
static struct {
  int op;               /* OP_* */
  long n;               /* operations per round */
  int rounds;
  double ns[64];        /* per round, ns per operation */
} B;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The Lua side: 4 coroutines suspended 5 calls deep, then 8 open calls,
** and at the bottom bench_run(), which does the rounds (from C, or by
** calling back lua_loop for the Lua ops). */
static const char script[] =
  "local p = require 'luainstr'\n"
  "local zb, ze, nop = p.zone_begin, p.zone_end, bench_nop\n"
  "local function sleeper(d)\n"
  "  if d == 0 then coroutine.yield() else sleeper(d - 1) end\n"
  "end\n"
  "local cos = {}\n"
  "for i = 1, 4 do\n"
  "  cos[i] = coroutine.create(sleeper)\n"
  "  assert(coroutine.resume(cos[i], 5))\n"
  "end\n"
  "function lua_zone(n)\n"
  "  for _ = 1, n do zb('z') ze() end\n"
  "end\n"
  "function lua_call(n)\n"
  "  for _ = 1, n do nop('z') nop() end\n"
  "end\n"
  "local function down(d)\n"
  "  if d == 0 then bench_run() else down(d - 1) end\n"
  "  return d\n"
  "end\n"
  "down(7)\n"
  "for i = 1, 4 do assert(coroutine.resume(cos[i])) end\n";

static int bench_nop(lua_State *L) {
  (void)L;
  return 0;
}

/* One round of n operations from C; 0, or 1 on an error (message left). */
static int round_c(lua_State *L, int op, long n) {
  long i;
  switch (op) {
  case OP_MARK:
    for (i = 0; i < n; i++)
      if (luainstr_frame(L) != LUAINSTR_OK) return 1;
    return 0;
  case OP_ZONE_C:
    for (i = 0; i < n; i++)
      if (luainstr_zone_begin(L, "z") != LUAINSTR_OK ||
          luainstr_zone_end(L) != LUAINSTR_OK) return 1;
    return 0;
  default:                                   /* the newtables */
    for (i = 0; i < n; i++) {
      lua_newtable(L);
      lua_pop(L, 1);
    }
    return 0;
  }
}

/* bench_run(): the rounds, at the bottom of the stack. */
static int bench_run(lua_State *L) {
  for (int r = 0; r < B.rounds; r++) {
    uint64_t t0 = now_ns();
    if (B.op == OP_ZONE_LUA || B.op == OP_CALL_LUA) {
      lua_getglobal(L, B.op == OP_ZONE_LUA ? "lua_zone" : "lua_call");
      lua_pushinteger(L, B.n);
      lua_call(L, 1, 0);
    } else if (round_c(L, B.op, B.n) != 0) {
      return luaL_error(L, "%s: %s", op_names[B.op], luainstr_errmsg(L));
    }
    B.ns[r] = (double)(now_ns() - t0) / (double)B.n;
  }
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int setup(lua_State *L) {
  if (luainstr_open(L) != LUAINSTR_OK) return 0;
  if (B.op == OP_MARK &&
      (luainstr_set_option(L, "frames", "on") != LUAINSTR_OK ||
       luainstr_set_option(L, "spikes", "0") != LUAINSTR_OK)) return 0;
  if (B.op == OP_NEWTABLE_ON &&
      luainstr_set_option(L, "memory", "on") != LUAINSTR_OK) return 0;
  lua_register(L, "bench_run", bench_run);
  lua_register(L, "bench_nop", bench_nop);
  return 1;
}

int main(int argc, char **argv) {
  lua_State *L;
  int a = 1, status;
  B.rounds = 5;
  if (argc > 2 && strcmp(argv[1], "--rounds") == 0) {
    B.rounds = atoi(argv[2]);
    a = 3;
  }
  if (argc - a != 2 || B.rounds < 1 || B.rounds > 64) {
    fputs("usage: bench_frames [--rounds R] mark|zone_c|zone_lua|call_lua|"
          "newtable_off|newtable_on N\n", stderr);
    return 2;
  }
  for (B.op = 0; op_names[B.op] != NULL; B.op++)
    if (strcmp(argv[a], op_names[B.op]) == 0) break;
  B.n = atol(argv[a + 1]);
  if (op_names[B.op] == NULL || B.n < 1) {
    fprintf(stderr, "bench_frames: bad operation '%s' or N '%s'\n", argv[a],
            argv[a + 1]);
    return 2;
  }
  L = luaL_newstate();
  if (L == NULL) return 1;
  luaL_openlibs(L);
  if (!setup(L)) {
    fprintf(stderr, "bench_frames: set-up: %s\n", luainstr_errmsg(L));
    lua_close(L);
    return 1;
  }
  status = luainstr_loadbufferx(L, script, sizeof script - 1, "=bench_frames", "t");
  if (status == LUA_OK) status = luainstr_pcall(L, 0, 0, 0);
  if (status != LUA_OK) {
    fprintf(stderr, "bench_frames: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }
  qsort(B.ns, (size_t)B.rounds, sizeof B.ns[0], cmp_double);
  printf("op=%s n=%ld rounds=%d ns_per_op=%.1f min=%.1f max=%.1f\n",
         op_names[B.op], B.n, B.rounds, B.ns[B.rounds / 2], B.ns[0],
         B.ns[B.rounds - 1]);
  lua_close(L);
  return 0;
}
