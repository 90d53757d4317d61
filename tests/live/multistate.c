/*
** multistate.c -- several Lua states in one process, each on a pthread of
** its own, each profiled in frame mode and attached to the one live
** server (live_test.py multistate checks that the page lists them all
** and that each streams its own frames; tests/livepage/states_test.js
** that the page in a browser shows each and commands each apart).
**
**   multistate ADDR STATES FRAMES [FPS]
**
** State k (1..STATES) is named "state-k"; its game calls state_k_update
** k times each frame (a frame's calls tell whose it is) and runs FRAMES +
** 10 k frames, so that a client can tell the streams apart; with FRAMES 0
** the games run until a second line (or the end) comes on stdin.  The
** states attach one after another as their threads start (the first
** starts the server and prints its URL on stderr); the loops start when a
** line "go" comes on stdin.  At the end each thread prints "multistate:
** state-k marks=N" and closes its state.  Exit status 0 unless a state
** failed.
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"

#define MAX_STATES 8

typedef struct job {
  int k;                        /* 1-based */
  int frames;
  long long period;             /* ns a frame */
  int marks;
  int failed;
} job;

static const char *addr;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int attached, go;
static int quit;                /* FRAMES 0: the games end (atomic) */

static int l_mark(lua_State *L) {
  job *j = lua_touserdata(L, lua_upvalueindex(1));
  int st = luainstr_frame(L);
  if (st != LUAINSTR_OK && st != LUAINSTR_EORDER)
    return luaL_error(L, "luainstr_frame: %s", luainstr_errmsg(L));
  j->marks++;
  return 0;
}

static int l_wait(lua_State *L) {
  job *j = lua_touserdata(L, lua_upvalueindex(1));
  struct timespec ts;
  ts.tv_sec = (time_t)(j->period / 1000000000LL);
  ts.tv_nsec = (long)(j->period % 1000000000LL);
  luainstr_idle_begin(L);
  nanosleep(&ts, NULL);
  luainstr_idle_end(L);
  return 0;
}

/* running(): false once the games are to end (FRAMES 0) */
static int l_running(lua_State *L) {
  lua_pushboolean(L, !__atomic_load_n(&quit, __ATOMIC_RELAXED));
  return 1;
}

static void *run(void *ud) {
  job *j = ud;
  lua_State *L = luaL_newstate();
  char name[32], src[1200];
  int ok;
  if (L == NULL) {
    j->failed = 1;
    return NULL;
  }
  *(void **)lua_getextraspace(L) = NULL;   /* as live_host does */
  snprintf(name, sizeof name, "state-%d", j->k);
  luaL_openlibs(L);
  ok = luainstr_set_option(L, "frames", "on") == LUAINSTR_OK &&
       luainstr_open(L) == LUAINSTR_OK &&
       luainstr_set_option(L, "live_name", name) == LUAINSTR_OK &&
       luainstr_set_option(L, "live", addr) == LUAINSTR_OK;
  if (!ok) fprintf(stderr, "multistate: %s: %s\n", name, luainstr_errmsg(L));
  fflush(stderr);
  pthread_mutex_lock(&mu);
  attached++;
  pthread_cond_broadcast(&cv);
  while (!go) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  if (ok) {
    lua_pushlightuserdata(L, j);
    lua_pushcclosure(L, l_mark, 1);
    lua_setglobal(L, "mark");
    lua_pushlightuserdata(L, j);
    lua_pushcclosure(L, l_wait, 1);
    lua_setglobal(L, "wait");
    lua_pushcfunction(L, l_running);
    lua_setglobal(L, "running");
    snprintf(src, sizeof src,
      "local t = {}\n"
      "local function state_%d_update(i)\n"
      "  for n = 1, 100 do t[n] = (t[n] or 0) + i end\n"
      "end\n"
      "local i, last = 0, %d\n"
      "while (last == 0 or i < last) and running() do\n"
      "  i = i + 1\n"
      "  for _ = 1, %d do state_%d_update(i) end\n"
      "  mark(); wait()\n"
      "end\n",
      j->k, j->frames, j->k, j->k);
    if (luainstr_loadbufferx(L, src, strlen(src), name, "t") != LUA_OK ||
        luainstr_pcall(L, 0, 0, 0) != LUA_OK) {
      fprintf(stderr, "multistate: %s: %s\n", name, lua_tostring(L, -1));
      ok = 0;
    }
  }
  printf("multistate: %s marks=%d\n", name, j->marks);
  fflush(stdout);
  lua_close(L);
  j->failed = !ok;
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t t[MAX_STATES];
  job jobs[MAX_STATES];
  int n, frames, i, failed = 0;
  double fps;
  char line[64];
  if (argc < 4) {
    fprintf(stderr, "usage: multistate ADDR STATES FRAMES [FPS]\n");
    return 2;
  }
  addr = argv[1];
  n = atoi(argv[2]);
  frames = atoi(argv[3]);
  fps = argc > 4 ? atof(argv[4]) : 60;
  if (n < 1 || n > MAX_STATES || frames < 0 || fps <= 0) {
    fprintf(stderr, "multistate: 1 to %d states, frames >= 0, fps > 0\n",
            MAX_STATES);
    return 2;
  }
  for (i = 0; i < n; i++) {
    jobs[i].k = i + 1;
    jobs[i].frames = frames > 0 ? frames + 10 * (i + 1) : 0;
    jobs[i].period = (long long)(1e9 / fps);
    jobs[i].marks = jobs[i].failed = 0;
    if (pthread_create(&t[i], NULL, run, &jobs[i]) != 0) {
      fprintf(stderr, "multistate: cannot create thread %d\n", i + 1);
      return 1;
    }
  }
  pthread_mutex_lock(&mu);
  while (attached < n) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  fprintf(stderr, "multistate: %d states attached\n", n);
  fflush(stderr);
  if (fgets(line, sizeof line, stdin) == NULL) line[0] = '\0';
  pthread_mutex_lock(&mu);
  go = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  if (frames == 0) {
    if (fgets(line, sizeof line, stdin) == NULL) line[0] = '\0';
    __atomic_store_n(&quit, 1, __ATOMIC_RELAXED);
  }
  for (i = 0; i < n; i++) {
    pthread_join(t[i], NULL);
    failed |= jobs[i].failed;
  }
  return failed;
}
