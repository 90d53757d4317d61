/*
** live_host.c -- the host of the live view's client tests (live_test.py):
** Lua 5.4 with the profiler, frame mode on and option "live", running a
** Lua game loop with a planted spike.  A plain program, so that the
** sanitizer builds run it too.
**
**   live_host [--live ADDR] [--token T] [--name NAME] [--frames N]
**             [--fps F] [--spike-every K] [--memory] [--report FILE]
**             [--wait]
**
** The runtime prints the live view's URL on stderr ("luainstr: live view
** at ...").  With --wait the loop starts when a line "go" comes on stdin
** (the test connects its clients first); a line "quit" ends it early.
** Each frame's mark is timed here, around luainstr_frame, and written on
** stdout: "mark I T_NS COST_NS END_NS" (T since the loop started, COST
** the mark itself, END when it returned on CLOCK_MONOTONIC: a client on
** this machine measures a frame's way to it); at the end "host: marks=N max_mark_ns=X max_gap_ns=Y", and the
** report (luainstr_dump "text") if asked, before the state closes.
** A live address that cannot be served is reported ("host: option live:
** ...")
** and the game runs on without it.  Exit status 0 unless Lua failed.
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

typedef struct host {
  long long t0;                 /* the loop's start */
  long long last;               /* the previous mark */
  long long max_cost, max_gap;  /* of the marks so far */
  long long period;             /* ns a frame (0: no pacing) */
  long long next;               /* when the next frame is due */
  int marks;
  int quit;                     /* (mu) "quit" read */
  int go;                       /* (mu) "go" read, or stdin closed */
  pthread_mutex_t mu;
  pthread_cond_t cv;
} host;

static host H = { .mu = PTHREAD_MUTEX_INITIALIZER,
                  .cv = PTHREAD_COND_INITIALIZER };

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* stdin, on a thread of its own: "go" and "quit". */
static void *read_stdin(void *ud) {
  char line[64];
  (void)ud;
  while (fgets(line, sizeof line, stdin) != NULL) {
    pthread_mutex_lock(&H.mu);
    if (strncmp(line, "go", 2) == 0) H.go = 1;
    if (strncmp(line, "quit", 4) == 0) H.quit = H.go = 1;
    pthread_cond_broadcast(&H.cv);
    pthread_mutex_unlock(&H.mu);
  }
  pthread_mutex_lock(&H.mu);
  H.go = 1;
  pthread_cond_broadcast(&H.cv);
  pthread_mutex_unlock(&H.mu);
  return NULL;
}

/* host.mark(i): the frame ends (timed). */
static int l_mark(lua_State *L) {
  long long a = now_ns(), b, gap;
  /* (LUAINSTR_EORDER while a client has paused or stopped collection:
  ** the game goes on all the same) */
  int st = luainstr_frame(L);
  b = now_ns();
  if (st != LUAINSTR_OK && st != LUAINSTR_EORDER)
    return luaL_error(L, "luainstr_frame: %s", luainstr_errmsg(L));
  H.marks++;
  if (b - a > H.max_cost) H.max_cost = b - a;
  gap = H.last ? a - H.last : 0;
  if (gap > H.max_gap) H.max_gap = gap;
  H.last = a;
  printf("mark %d %lld %lld %lld\n", (int)luaL_checkinteger(L, 1), a - H.t0,
         b - a, b);
  return 0;
}

/* host.wait(): sleep until the next frame is due, as an idle span. */
static int l_wait(lua_State *L) {
  long long t;
  if (H.period == 0) return 0;
  H.next += H.period;
  t = now_ns();
  if (H.next > t) {
    struct timespec ts;
    ts.tv_sec = (time_t)((H.next - t) / 1000000000LL);
    ts.tv_nsec = (long)((H.next - t) % 1000000000LL);
    luainstr_idle_begin(L);
    nanosleep(&ts, NULL);
    luainstr_idle_end(L);
  } else {
    H.next = t;                 /* late: no catching up in a burst */
  }
  return 0;
}

/* host.running(): false once "quit" came. */
static int l_running(lua_State *L) {
  int q;
  pthread_mutex_lock(&H.mu);
  q = H.quit;
  pthread_mutex_unlock(&H.mu);
  lua_pushboolean(L, !q);
  return 1;
}

/* The game: an update each frame, and every K frames (from frame K/2) a
** spike, spike_here, far above the median. */
static const char game[] =
  "local frames, spike_every = ...\n"
  "local entities = {}\n"
  "for i = 1, 200 do entities[i] = { x = i, y = 0, vx = 1, vy = 2 } end\n"
  "local function move(e) e.x = e.x + e.vx; e.y = e.y + e.vy end\n"
  "local function update()\n"
  "  for i = 1, #entities do move(entities[i]) end\n"
  "end\n"
  "local function spike_here()\n"
  "  local s = 0\n"
  "  for i = 1, 3000000 do s = s + i % 7 end\n"
  "  return s\n"
  "end\n"
  "for i = 1, frames do\n"
  "  if not host.running() then break end\n"
  "  update()\n"
  "  if i % spike_every == spike_every // 2 then spike_here() end\n"
  "  host.mark(i)\n"
  "  host.wait()\n"
  "end\n";

static const char *arg_after(int *i, int argc, char **argv) {
  if (*i + 1 >= argc) {
    fprintf(stderr, "live_host: %s needs a value\n", argv[*i]);
    exit(2);
  }
  return argv[++*i];
}

int main(int argc, char **argv) {
  const char *live = NULL, *token = NULL, *name = NULL, *report = NULL;
  int frames = 600, spike_every = 100, memory = 0, wait = 0, i, st = 0;
  double fps = 60;
  pthread_t reader;
  lua_State *L;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--live") == 0) live = arg_after(&i, argc, argv);
    else if (strcmp(argv[i], "--token") == 0) token = arg_after(&i, argc, argv);
    else if (strcmp(argv[i], "--name") == 0) name = arg_after(&i, argc, argv);
    else if (strcmp(argv[i], "--report") == 0) report = arg_after(&i, argc, argv);
    else if (strcmp(argv[i], "--frames") == 0) frames = atoi(arg_after(&i, argc, argv));
    else if (strcmp(argv[i], "--fps") == 0) fps = atof(arg_after(&i, argc, argv));
    else if (strcmp(argv[i], "--spike-every") == 0)
      spike_every = atoi(arg_after(&i, argc, argv));
    else if (strcmp(argv[i], "--memory") == 0) memory = 1;
    else if (strcmp(argv[i], "--wait") == 0) wait = 1;
    else {
      fprintf(stderr, "live_host: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (spike_every < 2) spike_every = 2;
  H.period = fps > 0 ? (long long)(1e9 / fps) : 0;

  L = luaL_newstate();
  if (L == NULL) return 1;
  /* Lua leaves it uninitialised; the profiler uses it when NULL
  ** (luainstr.h, option "extraspace") */
  *(void **)lua_getextraspace(L) = NULL;
  luaL_openlibs(L);
  if (luainstr_set_option(L, "frames", "on") != LUAINSTR_OK ||
      (memory && luainstr_set_option(L, "memory", "on") != LUAINSTR_OK) ||
      luainstr_open(L) != LUAINSTR_OK) {
    fprintf(stderr, "live_host: %s\n", luainstr_errmsg(L));
    return 1;
  }
  if (live != NULL) {
    /* a live view that cannot be served: said, and the game runs on */
    if ((token != NULL && luainstr_set_option(L, "live_token", token) != LUAINSTR_OK) ||
        (name != NULL && luainstr_set_option(L, "live_name", name) != LUAINSTR_OK) ||
        luainstr_set_option(L, "live", live) != LUAINSTR_OK)
      fprintf(stderr, "host: option live: %s\n", luainstr_errmsg(L));
  }
  fflush(stderr);

  pthread_create(&reader, NULL, read_stdin, NULL);
  pthread_detach(reader);
  if (wait) {
    pthread_mutex_lock(&H.mu);
    while (!H.go) pthread_cond_wait(&H.cv, &H.mu);
    pthread_mutex_unlock(&H.mu);
  }

  lua_newtable(L);
  lua_pushcfunction(L, l_mark);
  lua_setfield(L, -2, "mark");
  lua_pushcfunction(L, l_wait);
  lua_setfield(L, -2, "wait");
  lua_pushcfunction(L, l_running);
  lua_setfield(L, -2, "running");
  lua_setglobal(L, "host");
  H.t0 = H.next = now_ns();
  if (luainstr_loadbufferx(L, game, sizeof game - 1, "=game", "t") != LUA_OK) {
    fprintf(stderr, "live_host: %s\n", lua_tostring(L, -1));
    st = 1;
  } else {
    lua_pushinteger(L, frames);
    lua_pushinteger(L, spike_every);
    if (luainstr_pcall(L, 2, 0, 0) != LUA_OK) {
      fprintf(stderr, "live_host: %s\n", lua_tostring(L, -1));
      st = 1;
    }
  }
  printf("host: marks=%d max_mark_ns=%lld max_gap_ns=%lld\n", H.marks,
         H.max_cost, H.max_gap);
  fflush(stdout);
  if (report != NULL && luainstr_dump(L, "text", report) != LUAINSTR_OK) {
    fprintf(stderr, "live_host: report: %s\n", luainstr_errmsg(L));
    st = 1;
  }
  lua_close(L);                 /* the live view's END, then detached */
  fprintf(stderr, "host: closed\n");
  return st;
}
