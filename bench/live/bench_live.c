/*
** bench_live.c -- what the live view (issue 22) costs the program it
** watches.  bench/live/run.sh runs it and prints the table.
**
**   bench_live mark LIVE N ROUNDS
**        luainstr_frame(L) N times a round from C at the bottom of 8 open
**        instrumented calls (frame mode on, no spike), with the option
**        "live" = LIVE ("off", or an address: the server's thread takes
**        the records as they come, as it does with no page open); prints
**        the median of the rounds' ns per mark and the mean over every
**        mark (the marks that build a TABLE, every 250 ms, included):
**          live=LIVE marks=N rounds=R ns_per_mark=X mean_ns=Y
**   bench_live game LIVE SCRIPT FRAMES MARKS_FILE
**        a game loop: the host calls the script's update(i) (bench/live/
**        game.lua: about 2 ms of entities' calls a frame) and marks the
**        frame, FRAMES times, frame mode on, "live" = LIVE.  With an
**        address it prints "ready" on stdout and waits for a line on
**        stdin before the loop (run.sh reads the URL the server printed
**        on stderr and connects its clients meanwhile).
**        Prints the frames' times (ns, CLOCK_MONOTONIC):
**          frames=F median_ns=X mean_ns=Y
**        and writes "INDEX T_NS" per frame to MARKS_FILE (- for none): the
**        CLOCK_MONOTONIC time just before its mark, for the latency from
**        a mark to a client's receiving that frame (client.py)
**   bench_live fib LIVE SCRIPT ARG
**        bench/programs/fib.lua ARG under the full profiler, frame mode
**        off, "live" = LIVE ("off", "page": no server, the probes poll),
**        for bench/callgrind.sh's per-call count (run.sh runs it under
**        callgrind with ARG 25 and 2, as callgrind.sh does bench_host)
**
** Exit status 1 on an error, with the message on stderr.
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

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(lua_State *L, const char *what) {
  fprintf(stderr, "bench_live: %s: %s\n", what,
          L != NULL && lua_isstring(L, -1) ? lua_tostring(L, -1)
          : L != NULL ? luainstr_errmsg(L) : "?");
  exit(1);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* A profiled state with options frames and live set ("off": none). */
static lua_State *state(const char *frames, const char *live) {
  lua_State *L = luaL_newstate();
  if (L == NULL) die(NULL, "no state");
  luaL_openlibs(L);
  if (luainstr_open(L) != LUAINSTR_OK) die(L, "luainstr_open");
  if (luainstr_set_option(L, "frames", frames) != LUAINSTR_OK) die(L, "frames");
  if (strcmp(live, "off") != 0) {
    if (luainstr_set_option(L, "live_name", "bench_live") != LUAINSTR_OK ||
        luainstr_set_option(L, "live", live) != LUAINSTR_OK)
      die(L, "live");
  }
  return L;
}

static void run_string(lua_State *L, const char *src, const char *name) {
  if (luainstr_loadbufferx(L, src, strlen(src), name, "t") != LUA_OK ||
      luainstr_pcall(L, 0, 0, 0) != LUA_OK)
    die(L, name);
}


/* ---- mark ----------------------------------------------------------------- */

static long marks_n;
static int marks_rounds;
static uint64_t marks_ns[64];

/* bench_marks(): the rounds, from the bottom of the Lua stack */
static int l_marks(lua_State *L) {
  for (int r = 0; r < marks_rounds; r++) {
    uint64_t t0 = now_ns();
    for (long i = 0; i < marks_n; i++)
      if (luainstr_frame(L) != LUAINSTR_OK) die(L, "mark");
    marks_ns[r] = now_ns() - t0;
  }
  return 0;
}

static const char mark_src[] =
  "local function down(d) if d == 0 then return bench_marks() end "
  "local r = down(d - 1) return r end\n"
  "down(7)\n";

static int bench_mark(const char *live, long n, int rounds) {
  lua_State *L = state("on", live);
  uint64_t sum = 0;
  if (rounds < 1 || rounds > 64 || n < 1) die(NULL, "mark: N >= 1, 1 <= ROUNDS <= 64");
  marks_n = n;
  marks_rounds = rounds;
  luainstr_set_option(L, "spikes", "0");
  lua_register(L, "bench_marks", l_marks);
  run_string(L, mark_src, "=mark");
  for (int r = 0; r < rounds; r++) sum += marks_ns[r];
  qsort(marks_ns, (size_t)rounds, sizeof marks_ns[0], cmp_u64);
  printf("live=%s marks=%ld rounds=%d ns_per_mark=%.1f mean_ns=%.1f\n", live, n,
         rounds, (double)marks_ns[rounds / 2] / (double)n,
         (double)sum / ((double)n * rounds));
  lua_close(L);
  return 0;
}


/* ---- game ----------------------------------------------------------------- */

static int bench_game(const char *live, const char *script, long frames,
                      const char *marks_file) {
  lua_State *L = state("on", live);
  uint64_t *ft = malloc((size_t)frames * sizeof *ft), *tm = malloc((size_t)frames * sizeof *tm);
  uint64_t sum = 0;
  FILE *mf = NULL;
  char line[64];
  if (ft == NULL || tm == NULL || frames < 1) die(NULL, "game: FRAMES >= 1");
  if (luainstr_loadfilex(L, script, NULL) != LUA_OK || luainstr_pcall(L, 0, 0, 0) != LUA_OK)
    die(L, script);
  if (strcmp(live, "off") != 0) {
    printf("ready\n");
    fflush(stdout);
    if (fgets(line, sizeof line, stdin) == NULL) die(NULL, "game: no go on stdin");
  }
  for (long i = 0; i < frames; i++) {
    uint64_t t0 = now_ns(), t1;
    lua_getglobal(L, "update");
    lua_pushinteger(L, (lua_Integer)i + 1);
    if (luainstr_pcall(L, 1, 0, 0) != LUA_OK) die(L, "update");
    tm[i] = now_ns();
    if (luainstr_frame(L) != LUAINSTR_OK) die(L, "mark");
    t1 = now_ns();
    ft[i] = t1 - t0;
    sum += ft[i];
  }
  if (strcmp(marks_file, "-") != 0) {
    if ((mf = fopen(marks_file, "w")) == NULL) die(NULL, marks_file);
    for (long i = 0; i < frames; i++)
      fprintf(mf, "%ld %llu\n", i + 1, (unsigned long long)tm[i]);
    fclose(mf);
  }
  printf("frames=%ld mean_ns=%.0f", frames, (double)sum / (double)frames);
  qsort(ft, (size_t)frames, sizeof *ft, cmp_u64);
  printf(" median_ns=%llu\n", (unsigned long long)ft[frames / 2]);
  fflush(stdout);
  lua_close(L);               /* (END to the clients, the server stopped) */
  free(ft);
  free(tm);
  return 0;
}


/* ---- fib ------------------------------------------------------------------ */

static int bench_fib(const char *live, const char *script, const char *arg) {
  lua_State *L = state("off", live);
  lua_createtable(L, 1, 1);           /* arg, as lua5.4 makes it */
  lua_pushstring(L, script);
  lua_rawseti(L, -2, 0);
  lua_pushstring(L, arg);
  lua_rawseti(L, -2, 1);
  lua_setglobal(L, "arg");
  if (luainstr_loadfilex(L, script, NULL) != LUA_OK) die(L, script);
  if (luainstr_pcall(L, 0, 0, 0) != LUA_OK) die(L, "fib");
  lua_close(L);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && strcmp(argv[1], "mark") == 0)
    return bench_mark(argv[2], atol(argv[3]), atoi(argv[4]));
  if (argc == 6 && strcmp(argv[1], "game") == 0)
    return bench_game(argv[2], argv[3], atol(argv[4]), argv[5]);
  if (argc == 5 && strcmp(argv[1], "fib") == 0)
    return bench_fib(argv[2], argv[3], argv[4]);
  fprintf(stderr, "usage: bench_live mark LIVE N ROUNDS | game LIVE SCRIPT FRAMES "
          "MARKS_FILE | fib LIVE SCRIPT ARG\n");
  return 2;
}
