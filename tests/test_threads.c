/*
** test_threads.c -- two profiled states in two threads at once: each
** counts exactly its own calls.  A plain program, not a Criterion test:
** Criterion's runner cannot start under ThreadSanitizer (its shared arena
** is mapped at addresses TSan reserves), and this is the test the TSan
** build (scripts/sanitize.sh tsan) runs.  Exit status 0 when both threads
** counted right, 1 otherwise (with a message).
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"

typedef struct job {
  int n;             /* calls to make */
  long long got;     /* calls counted */
  char err[256];     /* what went wrong, or "" */
} job;

/* One thread: its own state and profiler, n calls of `tick`, the count
** read back from the state's csv report. */
static void *work(void *arg) {
  job *j = arg;
  lua_State *L = luaL_newstate();
  char src[256];
  if (L == NULL) { snprintf(j->err, sizeof j->err, "no state"); return NULL; }
  luaL_openlibs(L);
  if (luainstr_open(L) != LUAINSTR_OK) {
    snprintf(j->err, sizeof j->err, "open: %s", luainstr_errmsg(L));
    lua_close(L);
    return NULL;
  }
  snprintf(src, sizeof src,
    "local function tick() end\n"
    "for _ = 1, %d do tick() end\n"
    "return require('luainstr').dump('csv')\n", j->n);
  if (luainstr_loadbufferx(L, src, strlen(src), "=thread", "t") != LUA_OK ||
      lua_pcall(L, 0, 1, 0) != LUA_OK) {
    snprintf(j->err, sizeof j->err, "%s", lua_tostring(L, -1));
  } else {
    const char *csv = lua_tostring(L, -1);
    const char *row = strstr(csv, "\nlocal tick,thread,");
    j->got = row ? strtoll(row + strlen("\nlocal tick,thread,1,1,"), NULL, 10) : -1;
  }
  lua_close(L);
  return NULL;
}

int main (void) {
  pthread_t t[2];
  job j[2] = {{.n = 200000}, {.n = 300001}};
  int i, failed = 0;
  for (i = 0; i < 2; i++) {
    if (pthread_create(&t[i], NULL, work, &j[i]) != 0) {
      fprintf(stderr, "test_threads: cannot create thread %d\n", i);
      return 1;
    }
  }
  for (i = 0; i < 2; i++) pthread_join(t[i], NULL);
  for (i = 0; i < 2; i++) {
    if (j[i].err[0] != '\0') {
      fprintf(stderr, "FAIL thread %d: %s\n", i, j[i].err);
      failed = 1;
    } else if (j[i].got != j[i].n) {
      fprintf(stderr, "FAIL thread %d: %lld calls, expected %d\n", i, j[i].got, j[i].n);
      failed = 1;
    } else {
      printf("ok   thread %d: %lld calls\n", i, j[i].got);
    }
  }
  return failed;
}
