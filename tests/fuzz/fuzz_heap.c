/*
** fuzz_heap.c -- libFuzzer target: the heap snapshot writer
** (luainstr_snapshot, runtime/heap.c) over heaps made from the fuzzer's
** bytes.
**
** Input: one byte of flags, then operations, each a byte and its operands.
**   flags bit 0: a profiler attached and started (its timing calibration
**                skipped, as in fuzz_factory); bit 1: with memory mode on
**                (the allocator wrapped: snapshot.lua.sites); bit 2: 5.4's
**                generational collector.
** The operations build a pool of up to 64 values held by the global POOL
** (replacing one makes it garbage): tables presized or not and with big
** array parts, strings of any bytes (NUL and invalid UTF-8 included; now
** and then a long one), closures with upvalues (some shared) from a few
** Lua snippets loaded once a state, coroutines suspended 0 to 24 calls
** deep, dead or never started, full userdata with 0 to 3 user values and
** light userdata; then raw stores of any value under any key (integers
** of all 64 bits, floats with any bits, -0.0 and infinities, strings,
** booleans, objects; cycles), metatables (of tables, of userdata and of
** the basic types) holding __mode of every kind and garbage, __name of
** any type, __gc that raises, __index that raises; collector steps; and
** snapshots taken in the middle of it all, from the main thread or from
** inside a running coroutine, with or without LUAINSTR_HEAP_COLLECT,
** some into a directory that does not exist.
**
** Properties: no crash and no leak (the state is closed after every input
** and LeakSanitizer sees the rest); a snapshot into the missing directory
** fails with a message and writes nothing; every other one succeeds, and
** its file is strict JSON (json_check.c) with node_count x 7 numbers in
** nodes and edge_count x 3 in edges, the nodes' edge counts adding up to
** edge_count, every type, name and to_node in range, node 0 the synthetic
** "(GC roots)", every node reachable from it and no id twice; the Lua
** stack's height and, without a collection, the Lua heap's size are the
** same after the call as before; nothing but the file is left in the
** directory.
*/
#define _GNU_SOURCE     /* mkdtemp */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "fuzz_common.h"
#include "json_check.h"
#include "luainstr.h"
#include "profiler.h"
#include "runtime.h"

#define POOL_MAX 64
#define MAX_SNAPSHOTS 3

/* Constructors the operations call; loaded once a state. */
static const char snippets[] =
  "local M = {}\n"
  "M[1] = function(a, b) return function() return a, b end end\n"
  "M[2] = function(a) local c = 0\n"
  "  return function() c = c + 1; return a, c end, function() return c end end\n"
  "M[3] = function(d, v)\n"
  "  local co = coroutine.create(function(n, acc)\n"
  "    local function rec(k, x)\n"
  "      if k == 0 then coroutine.yield(x); return x end\n"
  "      local l = { k, x }\n"
  "      return (rec(k - 1, l))\n"
  "    end\n"
  "    return rec(n, acc)\n"
  "  end)\n"
  "  coroutine.resume(co, d, v)\n"
  "  return co end\n"
  "M[4] = function(v) local co = coroutine.create(function(x) error(x) end)\n"
  "  coroutine.resume(co, v); return co end\n"
  "M[5] = function(v) return coroutine.create(function() return v end) end\n"
  "M[6] = function(v) return function() error(v) end end\n"
  "M[7] = function(snap, path, flags)\n"
  "  local co = coroutine.create(function(p, f) local keep = { p }\n"
  "    return snap(p, f, true), keep end)\n"
  "  return coroutine.resume(co, path, flags) end\n"
  "return M\n";

/* What one input's run keeps. */
typedef struct heap_run {
  lua_State *L;
  fz_bytes in;
  int n;                 /* values in the pool so far (then it wraps) */
  int snapshots;         /* taken so far */
  char dir[64];          /* where the snapshots go */
} heap_run;

static char g_dir[64];   /* the process's scratch directory */

static void remove_dir(void) {
  if (g_dir[0] != '\0') rmdir(g_dir);
}


/* ======================================================================
** Reading a snapshot back (a strict JSON check first, so the scanner
** below trusts the grammar)
** ====================================================================== */

typedef struct numbers {
  double *v;
  size_t n, cap;
} numbers;

typedef struct scan {
  const char *s;
  size_t n, i;
} scan;

static void ws(scan *c) {
  while (c->i < c->n && strchr(" \t\r\n", c->s[c->i]) != NULL && c->s[c->i] != '\0')
    c->i++;
}

static void skip_string(scan *c) {
  c->i++;                                        /* '"' */
  while (c->s[c->i] != '"') c->i += c->s[c->i] == '\\' ? 2 : 1;
  c->i++;
}

static void skip_value(scan *c);

static void skip_container(scan *c) {
  char close = c->s[c->i] == '{' ? '}' : ']';
  int object = close == '}';
  c->i++;
  ws(c);
  if (c->s[c->i] == close) { c->i++; return; }
  for (;;) {
    ws(c);
    if (object) { skip_string(c); ws(c); c->i++; ws(c); }
    skip_value(c);
    ws(c);
    if (c->s[c->i++] == close) return;
  }
}

static void skip_value(scan *c) {
  ws(c);
  if (c->s[c->i] == '"') skip_string(c);
  else if (c->s[c->i] == '{' || c->s[c->i] == '[') skip_container(c);
  else
    while (c->i < c->n && strchr(",}] \t\r\n", c->s[c->i]) == NULL) c->i++;
}

/* An array of numbers into out; the count of a value array's elements. */
static size_t read_array(scan *c, numbers *out) {
  size_t count = 0;
  c->i++;                                        /* '[' */
  ws(c);
  if (c->s[c->i] == ']') { c->i++; return 0; }
  for (;;) {
    ws(c);
    if (out != NULL) {
      char *end;
      double d = strtod(c->s + c->i, &end);
      FZ_CHECK(end != c->s + c->i, "a number expected at %zu", c->i);
      if (out->n == out->cap) {
        out->cap = out->cap ? 2 * out->cap : 1024;
        out->v = realloc(out->v, out->cap * sizeof *out->v);
        if (out->v == NULL) abort();
      }
      out->v[out->n++] = d;
      c->i = (size_t)(end - c->s);
    } else {
      skip_value(c);
    }
    count++;
    ws(c);
    if (c->s[c->i++] == ']') return count;
  }
}

/* The string at c (a key), compared with want. */
static int key_is(scan *c, const char *want) {
  size_t len = strlen(want);
  return strncmp(c->s + c->i + 1, want, len) == 0 && c->s[c->i + 1 + len] == '"';
}

typedef struct snapshot {
  double node_count, edge_count;
  numbers nodes, edges;
  size_t nstrings;
  int roots_named;       /* node 0's name is "(GC roots)" (strings[its name]) */
  char *node0_name;
} snapshot;

/* The top-level object's "snapshot" (its counts), "nodes", "edges" and
** "strings" (its length and the name of node 0). */
static void read_snapshot(const char *text, size_t len, snapshot *S) {
  scan c = { text, len, 0 };
  memset(S, 0, sizeof *S);
  S->node_count = S->edge_count = -1;
  ws(&c);
  c.i++;                                         /* '{' */
  for (;;) {
    ws(&c);
    int is_snap = key_is(&c, "snapshot"), is_nodes = key_is(&c, "nodes"),
        is_edges = key_is(&c, "edges"), is_strings = key_is(&c, "strings");
    skip_string(&c); ws(&c); c.i++; ws(&c);      /* key : */
    if (is_snap) {
      c.i++;                                     /* '{' */
      for (;;) {
        ws(&c);
        int nc = key_is(&c, "node_count"), ec = key_is(&c, "edge_count");
        skip_string(&c); ws(&c); c.i++; ws(&c);
        if (nc) S->node_count = strtod(c.s + c.i, NULL);
        if (ec) S->edge_count = strtod(c.s + c.i, NULL);
        skip_value(&c);
        ws(&c);
        if (c.s[c.i++] == '}') break;
      }
    } else if (is_nodes) {
      read_array(&c, &S->nodes);
    } else if (is_edges) {
      read_array(&c, &S->edges);
    } else if (is_strings) {
      size_t at = c.i;
      S->nstrings = read_array(&c, NULL);
      S->roots_named = -1;
      if (S->nodes.n >= 7) {       /* (strings come last: nodes are read) */
        scan s = { text, len, at + 1 };
        double want = S->nodes.v[1];
        for (double k = 0; k < want; k++) { ws(&s); skip_value(&s); ws(&s); s.i++; }
        ws(&s);
        S->roots_named = strncmp(text + s.i, "\"(GC roots)\"", 12) == 0;
      }
    } else {
      skip_value(&c);
    }
    ws(&c);
    if (c.s[c.i++] == '}') break;
  }
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The properties docs/heap.md gives every snapshot. */
static void check_graph(const snapshot *S) {
  size_t nn = (size_t)S->node_count, ne = (size_t)S->edge_count, i, k;
  const double *N = S->nodes.v, *E = S->edges.v;
  double sum = 0;
  FZ_CHECK(S->node_count >= 1 && S->edge_count >= 0, "counts %g %g",
           S->node_count, S->edge_count);
  FZ_CHECK(S->nodes.n == 7 * nn, "%zu numbers in nodes for %zu nodes", S->nodes.n, nn);
  FZ_CHECK(S->edges.n == 3 * ne, "%zu numbers in edges for %zu edges", S->edges.n, ne);
  FZ_CHECK(N[0] == 9 && S->roots_named == 1, "node 0 is not the synthetic (GC roots)");
  double *ids = malloc(nn * sizeof *ids);
  size_t *first = malloc((nn + 1) * sizeof *first);
  unsigned char *seen = calloc(nn, 1);
  size_t *queue = malloc(nn * sizeof *queue), qh = 0, qt = 0;
  if (ids == NULL || first == NULL || seen == NULL || queue == NULL) abort();
  for (i = 0; i < nn; i++) {
    const double *n = N + 7 * i;
    FZ_CHECK(n[0] >= 0 && n[0] <= 14, "node %zu: type %g", i, n[0]);
    FZ_CHECK(n[1] >= 0 && n[1] < (double)S->nstrings, "node %zu: name %g of %zu strings",
             i, n[1], S->nstrings);
    FZ_CHECK(n[3] >= 0 && n[4] >= 0 && n[5] == 0 && n[6] == 0, "node %zu: fields", i);
    ids[i] = n[2];
    first[i] = (size_t)sum;
    sum += n[4];
  }
  first[nn] = (size_t)sum;
  FZ_CHECK(sum == S->edge_count, "edge counts add up to %g, edge_count %g", sum,
           S->edge_count);
  for (k = 0; k < ne; k++) {
    const double *e = E + 3 * k;
    FZ_CHECK(e[0] >= 0 && e[0] <= 6, "edge %zu: type %g", k, e[0]);
    FZ_CHECK(e[2] >= 0 && e[2] < 7.0 * (double)nn && (size_t)e[2] % 7 == 0,
             "edge %zu: to_node %g of %zu nodes", k, e[2], nn);
    if (e[0] != 1 && e[0] != 4)                  /* (element, hidden: numbers) */
      FZ_CHECK(e[1] >= 0 && e[1] < (double)S->nstrings, "edge %zu: name %g", k, e[1]);
  }
  qsort(ids, nn, sizeof *ids, by_value);
  for (i = 1; i < nn; i++) FZ_CHECK(ids[i] != ids[i - 1], "id %g twice", ids[i]);
  seen[0] = 1;
  queue[qt++] = 0;
  while (qh < qt) {
    size_t v = queue[qh++];
    for (k = first[v]; k < first[v + 1]; k++) {
      size_t to = (size_t)E[3 * k + 2] / 7;
      if (!seen[to]) { seen[to] = 1; queue[qt++] = to; }
    }
  }
  FZ_CHECK(qt == nn, "%zu of %zu nodes reachable from node 0", qt, nn);
  free(ids); free(first); free(seen); free(queue);
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  FZ_CHECK(f != NULL, "%s: said written, cannot open", path);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)n + 1);
  if (buf == NULL) abort();
  FZ_CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n, "%s: short read", path);
  fclose(f);
  buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

/* Files in dir other than keep (NULL: any is one too many). */
static int strangers(const char *dir, const char *keep) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  FZ_CHECK(d != NULL, "cannot list %s", dir);
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (keep == NULL || strcmp(e->d_name, keep) != 0) {
      fprintf(stderr, "fuzz_heap: left in %s: %s\n", dir, e->d_name);
      n++;
    }
  }
  closedir(d);
  return n;
}


/* ======================================================================
** Taking a snapshot: fz_snap(path, flags, expect_ok), a C function, so
** that Lua code in a coroutine can call it too
** ====================================================================== */

static long heap_bytes(lua_State *L) {
  return (long)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + lua_gc(L, LUA_GCCOUNTB, 0);
}

static int fz_snap(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  int flags = (int)luaL_checkinteger(L, 2);
  int expect_ok = lua_toboolean(L, 3);
  int top = lua_gettop(L);
  long before = heap_bytes(L);
  int rc = luainstr_snapshot(L, path, flags);
  long after = heap_bytes(L);
  FZ_CHECK(lua_gettop(L) == top, "the stack went from %d to %d", top, lua_gettop(L));
  if (!expect_ok) {
    FZ_CHECK(rc != LUAINSTR_OK, "a snapshot into a missing directory succeeded");
    const char *msg = luainstr_errmsg(L);
    FZ_CHECK(msg != NULL && msg[0] != '\0', "an error (%d) without a message", rc);
    FZ_CHECK(access(path, F_OK) != 0, "%s: there after an error", path);
    lua_pushboolean(L, 1);
    return 1;
  }
  FZ_CHECK(rc == LUAINSTR_OK, "snapshot failed (%d): %s", rc, luainstr_errmsg(L));
  if (!(flags & LUAINSTR_HEAP_COLLECT))
    FZ_CHECK(before == after, "the Lua heap went from %ld to %ld bytes", before, after);
  size_t len;
  char *text = read_file(path, &len), err[200];
  FZ_CHECK(fz_json_valid(text, len, err, sizeof err), "not JSON: %s", err);
  snapshot S;
  read_snapshot(text, len, &S);
  check_graph(&S);
  free(S.nodes.v);
  free(S.edges.v);
  free(text);
  FZ_CHECK(unlink(path) == 0, "cannot remove %s", path);
  lua_pushboolean(L, 1);
  return 1;
}


/* ======================================================================
** Building the heap
** ====================================================================== */

/* Pool slot i (1-based) onto the stack; nil when empty. */
static int pool_get(heap_run *r, int i) {
  lua_getglobal(r->L, "POOL");
  lua_rawgeti(r->L, -1, i);
  lua_remove(r->L, -2);
  return lua_type(r->L, -1);
}

/* Pops the top into the pool (slot n % POOL_MAX + 1: the old one becomes
** garbage once the pool is full). */
static void pool_add(heap_run *r) {
  lua_getglobal(r->L, "POOL");
  lua_insert(r->L, -2);
  lua_rawseti(r->L, -2, r->n % POOL_MAX + 1);
  lua_pop(r->L, 1);
  r->n++;
}

static int pick(heap_run *r) {
  int n = r->n < POOL_MAX ? r->n : POOL_MAX;
  return n == 0 ? 0 : 1 + (int)fz_upto(&r->in, (uint64_t)n - 1);
}

/* Any byte string; now and then a long one. */
static void push_bytes(heap_run *r) {
  size_t len = (size_t)fz_upto(&r->in, 64), i;
  char buf[64];
  if (len == 64) {
    size_t big = 1000 + (size_t)fz_upto(&r->in, 30000);
    char *s = malloc(big);
    if (s == NULL) abort();
    memset(s, (int)fz_upto(&r->in, 255), big);
    lua_pushlstring(r->L, s, big);
    free(s);
    return;
  }
  for (i = 0; i < len; i++) buf[i] = (char)fz_upto(&r->in, 255);
  lua_pushlstring(r->L, buf, len);
}

/* A key for a table: 0 when none can be pushed (nil, NaN). */
static int push_key(heap_run *r) {
  lua_State *L = r->L;
  switch (fz_upto(&r->in, 6)) {
    case 0: lua_pushinteger(L, (lua_Integer)fz_u64(&r->in, 8)); return 1;
    case 1: lua_pushinteger(L, (lua_Integer)fz_upto(&r->in, 40)); return 1;
    case 2: {
      uint64_t bits = fz_u64(&r->in, 8);
      double d;
      memcpy(&d, &bits, sizeof d);
      if (d != d) return 0;
      lua_pushnumber(L, d);
      return 1;
    }
    case 3: push_bytes(r); return 1;
    case 4: lua_pushboolean(L, (int)fz_upto(&r->in, 1)); return 1;
    case 5: lua_pushlightuserdata(L, (void *)(uintptr_t)fz_u64(&r->in, 8)); return 1;
    default: {
      int i = pick(r);
      if (i == 0) return 0;
      if (pool_get(r, i) == LUA_TNIL) { lua_pop(L, 1); return 0; }
      return 1;
    }
  }
}

/* A value: anything a key can be, or nil (a removal). */
static void push_value(heap_run *r) {
  if (fz_upto(&r->in, 7) == 0 || !push_key(r)) lua_pushnil(r->L);
}

/* The snippet M[k] called with the stack's top nargs values, under pcall. */
static int call_snippet(heap_run *r, int k, int nargs, int nres) {
  lua_State *L = r->L;
  lua_getglobal(L, "SNIPPETS");
  lua_rawgeti(L, -1, k);
  lua_remove(L, -2);
  lua_insert(L, -(nargs + 1));
  if (lua_pcall(L, nargs, nres, 0) != LUA_OK) {
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

static int noop_gc(lua_State *L) { (void)L; return 0; }

/* A metatable field of any kind on table t (at the top). */
static void set_meta_field(heap_run *r) {
  static const char *const fields[] = { "__mode", "__name", "__gc", "__index",
                                        "__metatable", "__pairs", "__len" };
  static const char *const modes[] = { "k", "v", "kv", "", "x", "vk", "kkk" };
  lua_State *L = r->L;
  unsigned f = (unsigned)fz_upto(&r->in, 6);
  lua_pushstring(L, fields[f]);
  switch (fz_upto(&r->in, 4)) {
    case 0: lua_pushstring(L, modes[fz_upto(&r->in, 6)]); break;
    case 1: lua_pushcfunction(L, noop_gc); break;
    case 2:                                        /* a function that raises */
      push_bytes(r);
      if (!call_snippet(r, 6, 1, 1)) lua_pushnil(L);
      break;
    default: push_value(r); break;
  }
  lua_rawset(L, -3);
}

static void op_table(heap_run *r) {
  int narr = (int)fz_upto(&r->in, 8), nrec = (int)fz_upto(&r->in, 8);
  if (fz_upto(&r->in, 15) == 0) {              /* a big array part */
    int i, n = 100 + (int)fz_upto(&r->in, 2000);
    lua_createtable(r->L, n, 0);
    for (i = 1; i <= n; i++) {
      lua_pushinteger(r->L, i);
      lua_rawseti(r->L, -2, i);
    }
  } else {
    lua_createtable(r->L, narr, nrec);
  }
  pool_add(r);
}

static void op_store(heap_run *r) {
  int t = pick(r);
  if (t == 0) return;
  if (pool_get(r, t) != LUA_TTABLE) { lua_pop(r->L, 1); return; }
  if (fz_upto(&r->in, 7) == 0) {                 /* t[t] = t */
    lua_pushvalue(r->L, -1);
    lua_pushvalue(r->L, -1);
    lua_rawset(r->L, -3);
  } else if (push_key(r)) {
    push_value(r);
    lua_rawset(r->L, -3);
  }
  lua_pop(r->L, 1);
}

static void op_metatable(heap_run *r) {
  lua_State *L = r->L;
  int a = pick(r), m = pick(r);
  if (a == 0 || m == 0) return;
  if (pool_get(r, m) != LUA_TTABLE) { lua_pop(L, 1); return; }
  if (fz_upto(&r->in, 1)) set_meta_field(r);
  if (fz_upto(&r->in, 4) == 0) {                 /* a basic type's */
    switch (fz_upto(&r->in, 4)) {
      case 0: lua_pushnil(L); break;
      case 1: lua_pushboolean(L, 1); break;
      case 2: lua_pushinteger(L, 1); break;
      case 3: lua_pushlightuserdata(L, NULL); break;
      default: lua_pushcfunction(L, noop_gc); break;
    }
  } else {
    int ta = pool_get(r, a);
    if (ta != LUA_TTABLE && ta != LUA_TUSERDATA) { lua_pop(L, 2); return; }
  }
  lua_insert(L, -2);
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
}

static void op_closure(heap_run *r) {
  switch (fz_upto(&r->in, 2)) {
    case 0:
      push_value(r);
      push_value(r);
      if (call_snippet(r, 1, 2, 1)) pool_add(r);
      break;
    case 1:
      push_value(r);
      if (call_snippet(r, 2, 1, 2)) { pool_add(r); pool_add(r); }
      break;
    default:
      push_bytes(r);
      if (call_snippet(r, 6, 1, 1)) pool_add(r);
      break;
  }
}

static void op_thread(heap_run *r) {
  lua_State *L = r->L;
  switch (fz_upto(&r->in, 2)) {
    case 0:
      lua_pushinteger(L, (lua_Integer)fz_upto(&r->in, 24));
      push_value(r);
      if (call_snippet(r, 3, 2, 1)) pool_add(r);
      break;
    case 1:
      push_value(r);
      if (call_snippet(r, 4, 1, 1)) pool_add(r);
      break;
    default:
      push_value(r);
      if (call_snippet(r, 5, 1, 1)) pool_add(r);
      break;
  }
}

static void op_userdata(heap_run *r) {
  lua_State *L = r->L;
  int nuv = (int)fz_upto(&r->in, 3), i;
  size_t size = (size_t)fz_upto(&r->in, 64);
  void *p = lua_newuserdatauv(L, size, nuv);
  memset(p, 0, size);
  for (i = 1; i <= nuv; i++) {
    push_value(r);
    lua_setiuservalue(L, -2, i);         /* (pops the value) */
  }
  pool_add(r);
}

static void op_collector(heap_run *r) {
  lua_State *L = r->L;
  switch (fz_upto(&r->in, 3)) {
    case 0: lua_gc(L, LUA_GCSTEP, 0); break;
    case 1: lua_gc(L, LUA_GCSTEP, (int)fz_upto(&r->in, 64)); break;
#if LUA_VERSION_NUM >= 504
    case 2:
      if (fz_upto(&r->in, 1)) lua_gc(L, LUA_GCGEN, 0, 0);
      else lua_gc(L, LUA_GCINC, 0, 0, 0);
      break;
#endif
    default: {                                    /* a slot made garbage */
      int i = pick(r);
      if (i == 0) break;
      lua_getglobal(L, "POOL");
      lua_pushnil(L);
      lua_rawseti(L, -2, i);
      lua_pop(L, 1);
      break;
    }
  }
}

static void op_snapshot(heap_run *r, int last) {
  lua_State *L = r->L;
  char path[128];
  int where = (int)fz_upto(&r->in, 3);
  int flags = fz_upto(&r->in, 3) == 0 ? LUAINSTR_HEAP_COLLECT : 0;
  int ok = where != 3 || last;                   /* 3: a missing directory */
  if (r->snapshots >= MAX_SNAPSHOTS && !last) return;
  r->snapshots++;
  snprintf(path, sizeof path, "%s/%s%d.heapsnapshot", r->dir,
           ok ? "" : "missing/", r->snapshots);
  if (where == 2) {                              /* from inside a coroutine */
    lua_pushcfunction(L, fz_snap);
    lua_pushstring(L, path);
    lua_pushinteger(L, flags);
    FZ_CHECK(call_snippet(r, 7, 3, 2), "the coroutine snippet failed");
    FZ_CHECK(lua_toboolean(L, -2), "the snapshot in a coroutine raised: %s",
             lua_tostring(L, -1));
    lua_pop(L, 2);
  } else {
    lua_pushcfunction(L, fz_snap);
    lua_pushstring(L, path);
    lua_pushinteger(L, flags);
    lua_pushboolean(L, ok);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK)
      FZ_CHECK(0, "the snapshot raised: %s", lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  FZ_CHECK(strangers(r->dir, NULL) == 0, "files left behind by a snapshot");
}


/* ======================================================================
** The target
** ====================================================================== */

static void setup(heap_run *r, unsigned flags) {
  lua_State *L = r->L;
  luaL_openlibs(L);
  if (flags & 1) {
    li_prof *P = li_prof_attach(L);
    FZ_CHECK(P != NULL, "li_prof_attach failed");
    if (flags & 2)
      FZ_CHECK(luainstr_set_option(L, "memory", "on") == LUAINSTR_OK,
               "memory mode: %s", luainstr_errmsg(L));
    P->calibrated = 1;
    FZ_CHECK(li_prof_start(P, L) == LUAINSTR_OK, "start failed");
  }
#if LUA_VERSION_NUM >= 504
  if (flags & 4) lua_gc(L, LUA_GCGEN, 0, 0);
#endif
  FZ_CHECK(luaL_loadbufferx(L, snippets, sizeof snippets - 1, "=snippets", "t") == LUA_OK &&
           lua_pcall(L, 0, 1, 0) == LUA_OK, "snippets: %s", lua_tostring(L, -1));
  lua_setglobal(L, "SNIPPETS");
  lua_createtable(L, POOL_MAX, 0);
  lua_setglobal(L, "POOL");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  heap_run r;
  unsigned flags = size > 0 ? data[0] : 0;
  memset(&r, 0, sizeof r);
  r.in.p = size > 0 ? data + 1 : data;
  r.in.n = size > 0 ? size - 1 : 0;
  if (g_dir[0] == '\0') {
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/fuzz_heap.XXXXXX",
             t != NULL && strlen(t) < 30 ? t : "/tmp");
    FZ_CHECK(mkdtemp(g_dir) != NULL, "mkdtemp %s", g_dir);
    atexit(remove_dir);
  }
  memcpy(r.dir, g_dir, sizeof r.dir);
  r.L = luaL_newstate();
  if (r.L == NULL) abort();
  setup(&r, flags);
  while (r.in.n > 0) {
    int top = lua_gettop(r.L);
    switch (fz_upto(&r.in, 15)) {
      case 0: case 1: op_table(&r); break;
      case 2: push_bytes(&r); pool_add(&r); break;
      case 3: case 4: case 5: op_store(&r); break;
      case 6: case 7: op_metatable(&r); break;
      case 8: op_closure(&r); break;
      case 9: op_thread(&r); break;
      case 10: op_userdata(&r); break;
      case 11:
        lua_pushlightuserdata(r.L, (void *)(uintptr_t)fz_u64(&r.in, 8));
        pool_add(&r);
        break;
      case 12: case 13: op_collector(&r); break;
      case 14: op_snapshot(&r, 0); break;
      default: {
        int t = pick(&r);
        if (t != 0 && pool_get(&r, t) == LUA_TTABLE) set_meta_field(&r);
        if (t != 0) lua_pop(r.L, 1);
        break;
      }
    }
    FZ_CHECK(lua_gettop(r.L) == top, "operation left the stack at %d, not %d",
             lua_gettop(r.L), top);
  }
  op_snapshot(&r, 1);
  lua_close(r.L);
  return 0;
}
