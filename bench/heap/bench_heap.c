/*
** bench_heap.c -- what a heap snapshot costs (issue 21): the time and the
** C memory luainstr_snapshot() takes to write the snapshot of a heap of
** about N objects, made by bench/heap/heap_gen.lua, for the Lua this host
** is built with (bench_heap for 5.4, bench_heap5.N, bench_heapjit).
**
**   bench_heap [--objects N] [--runs R] [--collect] [--bare] [--dir D] GEN
**
**   --objects N  the heap's size, passed to GEN (default 1000000)
**   --runs R     snapshots taken, one after the other (default 5)
**   --collect    LUAINSTR_HEAP_COLLECT (a full collection first, timed too)
**   --bare       no profiler attached (luainstr_open not called): the
**                snapshot of a plain state; by default the profiler is
**                attached and started first, as under luaprof
**   --dir D      where the snapshot is written, then removed (default
**                $TMPDIR or /tmp)
**   GEN          the generator (heap_gen.lua), loaded plainly (not
**                instrumented) and run with N as its argument
**
** The host gives GEN a C function bench_udata(v): a full userdata of 32
** bytes with a metatable named "bench.handle" and v as its uservalue,
** since Lua 5.2 and later have no other way to make one.  After GEN, two
** full collections, so the snapshot sees the heap GEN keeps and no garbage.
**
** C memory: before each snapshot the host gives malloc's free pages back
** (malloc_trim) and resets the peak of its resident set (writing "5" to
** /proc/self/clear_refs), reads VmRSS, takes the snapshot and reads VmHWM:
** the difference is the most memory the snapshot held at once, in pages it
** touched, whoever allocated them (malloc, mmap, the Lua allocator).  The
** file's own pages are the kernel's page cache, not counted.  Where the
** peak cannot be reset (hwm_reset=0) the figure is VmHWM after less the
** larger of VmHWM and VmRSS before, which misses a peak lower than the
** generator's.  mallinfo2's bytes in use before and after say what the
** snapshot left allocated (malloc_kept), and the state's own count what it
** left in the Lua heap (gc_delta: 0 unless --collect).
**
** Prints one line a run:
**   lua=V run=I nodes=N edges=E file_bytes=B time_ns=T cpu_ns=U
**   peak_kb=K c_bytes=W hwm_reset=0|1 malloc_kept=M gc_delta=G gc_bytes=C
** (time_ns: wall clock, CLOCK_MONOTONIC; cpu_ns: the process's CPU time,
** CLOCK_PROCESS_CPUTIME_ID, what a loaded machine does not inflate)
** nodes, edges and c_bytes (the most C memory the writer counted itself
** holding, snapshot.lua.c_bytes) are read back from the file.  Exit status 1 on any error (the message on stderr).
*/
#define _GNU_SOURCE         /* mallinfo2, malloc_trim; clock_gettime */

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luaver.h"
#include "luainstr.h"

#define UDATA_META "bench.handle"

/* What bench_heap's command line asked for. */
typedef struct Options {
  long objects;         /* --objects */
  int runs;             /* --runs */
  int collect;          /* --collect */
  int bare;             /* --bare */
  const char *dir;      /* --dir */
  const char *gen;      /* the generator */
} Options;

/* The process's memory at one moment. */
typedef struct Mem {
  long rss_kb;          /* VmRSS */
  long hwm_kb;          /* VmHWM */
  size_t malloc_used;   /* mallinfo2: bytes malloc has handed out */
} Mem;


/* ======================================================================
** Measuring
** ====================================================================== */

static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* VmRSS and VmHWM from /proc/self/status (-1 when not there). */
static void read_status(Mem *m) {
  char line[256];
  FILE *f = fopen("/proc/self/status", "r");
  m->rss_kb = m->hwm_kb = -1;
  if (f == NULL) return;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "VmRSS:", 6) == 0) m->rss_kb = strtol(line + 6, NULL, 10);
    else if (strncmp(line, "VmHWM:", 6) == 0) m->hwm_kb = strtol(line + 6, NULL, 10);
  }
  fclose(f);
}

static void read_mem(Mem *m) {
  struct mallinfo2 mi = mallinfo2();
  read_status(m);
  m->malloc_used = mi.uordblks + mi.hblkhd;
}

/* Resets VmHWM to VmRSS (Linux 4.0 on); 1 if done. */
static int reset_peak(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  int ok;
  if (f == NULL) return 0;
  ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}

/* The Lua heap in bytes, as collectgarbage("count") says it. */
static long gc_bytes(lua_State *L) {
  return (long)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + lua_gc(L, LUA_GCCOUNTB, 0);
}

/* The number after "key": in the first bytes of the file, or -1. */
static long long header_number(const char *head, const char *key) {
  const char *p = strstr(head, key);
  return p != NULL ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* node_count, edge_count, snapshot.lua.c_bytes (the most C memory the
** writer says it held; -1 when it does not say) and the file's size. */
static int read_counts(const char *path, long long *nodes, long long *edges,
                       long long *c_bytes, long long *bytes) {
  static char head[65536];
  size_t n;
  FILE *f = fopen(path, "rb");
  if (f == NULL) return -1;
  n = fread(head, 1, sizeof head - 1, f);
  head[n] = '\0';
  *nodes = header_number(head, "\"node_count\":");
  *edges = header_number(head, "\"edge_count\":");
  *c_bytes = header_number(head, "\"c_bytes\":");
  fseek(f, 0, SEEK_END);
  *bytes = ftell(f);
  fclose(f);
  return *nodes < 0 || *edges < 0 ? -1 : 0;
}


/* ======================================================================
** The heap
** ====================================================================== */

/* bench_udata(v): a full userdata with uservalue v (a table on 5.1) */
static int bench_udata(lua_State *L) {
  void *p = lua_newuserdatauv(L, 32, 1);
  memset(p, 0, 32);
  luaL_getmetatable(L, UDATA_META);
  lua_setmetatable(L, -2);
  if (lua_istable(L, 1)) {
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
  }
  return 1;
}

/* GEN with N as its argument (arg[1] and ...); then two collections. */
static int make_heap(lua_State *L, const Options *o) {
  luaL_newmetatable(L, UDATA_META);
  lua_pushstring(L, UDATA_META);     /* (5.4 and 5.3 set it themselves) */
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
  lua_pushcfunction(L, bench_udata);
  lua_setglobal(L, "bench_udata");
  lua_createtable(L, 1, 1);
  lua_pushstring(L, o->gen);
  lua_rawseti(L, -2, 0);
  lua_pushinteger(L, (lua_Integer)o->objects);
  lua_rawseti(L, -2, 1);
  lua_setglobal(L, "arg");
  if (luaL_loadfile(L, o->gen) != LUA_OK) goto fail;
  lua_pushinteger(L, (lua_Integer)o->objects);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) goto fail;
  lua_gc(L, LUA_GCCOLLECT, 0);
  lua_gc(L, LUA_GCCOLLECT, 0);
  return 0;
fail:
  fprintf(stderr, "bench_heap: %s\n", lua_tostring(L, -1));
  return -1;
}


/* ======================================================================
** Main
** ====================================================================== */

static int one_run(lua_State *L, const Options *o, int run, const char *path) {
  Mem before, after;
  long gc0, gc1;
  long long nodes, edges, c_bytes, bytes;
  uint64_t t0, t1, c0, c1;
  int rc, reset;
  malloc_trim(0);
  reset = reset_peak();
  read_mem(&before);
  gc0 = gc_bytes(L);
  c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  t0 = clock_ns(CLOCK_MONOTONIC);
  rc = luainstr_snapshot(L, path, o->collect ? LUAINSTR_HEAP_COLLECT : 0);
  t1 = clock_ns(CLOCK_MONOTONIC);
  c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  gc1 = gc_bytes(L);
  read_mem(&after);
  if (rc != LUAINSTR_OK) {
    fprintf(stderr, "bench_heap: luainstr_snapshot: %s (code %d)\n",
            luainstr_errmsg(L), rc);
    return -1;
  }
  if (read_counts(path, &nodes, &edges, &c_bytes, &bytes) != 0) {
    fprintf(stderr, "bench_heap: %s: no node_count/edge_count\n", path);
    unlink(path);
    return -1;
  }
  unlink(path);
  long base = reset ? before.rss_kb
            : (before.hwm_kb > before.rss_kb ? before.hwm_kb : before.rss_kb);
  long peak = after.hwm_kb - base;
  printf("lua=%s run=%d nodes=%lld edges=%lld file_bytes=%lld time_ns=%llu "
         "cpu_ns=%llu peak_kb=%ld c_bytes=%lld hwm_reset=%d malloc_kept=%lld "
         "gc_delta=%ld gc_bytes=%ld\n",
         LI_LUA_NAME, run, nodes, edges, bytes, (unsigned long long)(t1 - t0),
         (unsigned long long)(c1 - c0),
         peak < 0 ? 0 : peak, c_bytes, reset,
         (long long)after.malloc_used - (long long)before.malloc_used,
         gc1 - gc0, gc1);
  fflush(stdout);
  return 0;
}

static void usage(void) {
  fputs("usage: bench_heap [--objects N] [--runs R] [--collect] [--bare] "
        "[--dir D] GEN\n", stderr);
  exit(2);
}

static void parse_args(int argc, char **argv, Options *o) {
  int i;
  const char *tmp = getenv("TMPDIR");
  o->objects = 1000000;
  o->runs = 5;
  o->collect = o->bare = 0;
  o->dir = tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp";
  o->gen = NULL;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--objects") == 0 && i + 1 < argc)
      o->objects = strtol(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
      o->runs = (int)strtol(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--collect") == 0) o->collect = 1;
    else if (strcmp(argv[i], "--bare") == 0) o->bare = 1;
    else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) o->dir = argv[++i];
    else if (argv[i][0] == '-' || o->gen != NULL) usage();
    else o->gen = argv[i];
  }
  if (o->gen == NULL || o->objects < 1 || o->runs < 1) usage();
}

int main(int argc, char **argv) {
  Options o;
  char path[4096];
  lua_State *L;
  int i, status = 0;
  parse_args(argc, argv, &o);
  snprintf(path, sizeof path, "%s/bench_heap.%ld.heapsnapshot", o.dir,
           (long)getpid());
  L = luaL_newstate();
  if (L == NULL) return 1;
  luaL_openlibs(L);
  if (!o.bare && luainstr_open(L) != LUAINSTR_OK) {
    fprintf(stderr, "bench_heap: luainstr_open: %s\n", luainstr_errmsg(L));
    lua_close(L);
    return 1;
  }
  if (make_heap(L, &o) != 0) status = 1;
  for (i = 0; status == 0 && i < o.runs; i++)
    if (one_run(L, &o, i, path) != 0) status = 1;
  lua_close(L);
  return status;
}
