/*
** sizes.c -- the sizes of heapsize.h against what Lua allocates.
**
** A state is made with a counting allocator (lua_newstate: every byte Lua
** asks for and gives back is counted), the collector stopped, the stack
** grown first.  Then objects of every kind are made one at a time in a
** controlled way, and the bytes the allocator gained while one was made
** must be the size heapsize.c gives it, exactly:
**   - tables made by lua_createtable with array and hash parts of various
**     sizes, and tables grown by insertion (rehashes: blocks freed and
**     made), a table whose length was asked (5.4's alimit), LuaJIT's
**     colocated arrays, moved out when they grow;
**   - short and long strings;
**   - C functions with 0 to 5 upvalues (a light C function, 5.2 on: no
**     object, size 0);
**   - full userdata of several sizes with 0 to 3 user values;
**   - loaded chunks: the closure, its upvalue cells, every prototype and
**     the strings and (LuaJIT) template tables and cdata constants they
**     hold that did not exist before (li_heap_proto, _info, _push, _child;
**     a small chunk, a generated one of 60 functions and 300 constants,
**     and its binary dump stripped of debug information);
**   - Lua closures made by running code, with 0 to 8 upvalues, and the
**     cells the call made (shared cells told apart by li_heap_upvalue_id);
**   - threads: new ones, and coroutines suspended at a depth of 1 to 2000
**     calls (their stacks and call records grown), one made while a
**     collection is half done (li_heap_exact checked after each of its
**     steps, and from the coroutine);
**   - LuaJIT: cdata (fixed size, boxed 64-bit integers, variable-length
**     arrays) and string buffers with their memory; the JIT's traces and
**     buffers (the main thread's) made by hot loops and flushed;
**   - tables with a hash slot never used (5.1 and 5.2 tell them from the
**     dummy node by its address alone), and li_heap_exact on a bare state.
** What Lua allocates for itself meanwhile (its string table growing, the
** running thread's stack and call records) is the main thread's size
** (heapsize.c), so every step compares
**     bytes gained = size of the new objects + growth of the main thread.
** Steps that run the parser or the collector collect before and after
** (the parser leaves garbage: its scanner's tables and strings), the
** objects measured held on the stack; lua_gc(STOP) after each collect
** (5.1 and LuaJIT restart the collector after a full cycle).  At the end
** the main thread's size must be what lua_close frees last: the last
** blocks it frees once no object is left (its state block, string table,
** stack and call records).
**
** One executable per Lua the runtime is built for (tests/CMakeLists.txt:
** heap_sizes, heap_sizes_lua53 ... heap_sizes_luajit), linking that Lua's
** runtime; with LI_SIZES_EXACT (the runtime has Lua's headers) the sizes
** must be exact and li_heap_exact must say so.  Built with
** LI_SIZES_ESTIMATE instead, against a heapsize.c compiled without Lua's
** headers (heap_sizes_estimate...), it checks that li_heap_exact says why
** not, that prototypes are then unknown, and that each estimate is within
** a factor of 2 of the bytes allocated (where the API can know: see
** check_opaque).  tests/wasm builds the exact one for 32-bit WebAssembly
** (wasm_heap_sizes).
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luaver.h"
#include "heapsize.h"

#if defined(LI_SIZES_EXACT)
#define EXACT 1
#else
#define EXACT 0
#endif


/* ======================================================================
** The counting allocator
** ====================================================================== */

#define NFREES 256

static struct {
  size_t total;                 /* bytes held */
  size_t frees[NFREES];         /* sizes of the last frees, a ring */
  unsigned long nfrees;
} mem;

static void *count_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  void *p;
  (void)ud;
  if (ptr == NULL) osize = 0;   /* (then osize is the object's type) */
  if (nsize == 0) {
    if (ptr != NULL) {
      mem.total -= osize;
      mem.frees[mem.nfrees++ % NFREES] = osize;
    }
    free(ptr);
    return NULL;
  }
  p = realloc(ptr, nsize);
  if (p != NULL) mem.total = mem.total - osize + nsize;
  return p;
}


/* ======================================================================
** Checks
** ====================================================================== */

static int failures, cases, exact_cases, checks;
static const char *kinds_failed[64];
static int nkinds_failed;

static void fail_kind(const char *kind) {
  int i;
  for (i = 0; i < nkinds_failed; i++)
    if (strcmp(kinds_failed[i], kind) == 0) return;
  if (nkinds_failed < 64) kinds_failed[nkinds_failed++] = kind;
}

/* One case: the object (or objects) of `kind` described by what, whose
** sizes add up to `size`, made while the allocator gained `delta`.
** Estimates are not compared where the API cannot know the size (`opaque`:
** a prototype, a hash part emptied, a cdata's C type, a string buffer's
** memory, LuaJIT's traces; 5.1's upvalue cells, which have no identity
** there). */
static void check_opaque(const char *kind, const char *what, size_t size, long delta,
                         int opaque) {
  int ok;
  if (!EXACT && opaque) {
    printf("%-4s %-10s %-44s size %7zu  allocated %7ld\n", "--", kind, what, size, delta);
    return;
  }
  cases++;
  if (EXACT) {
    ok = (long)size == delta;
  } else {
    /* an estimate: within a factor of 2 (nothing for no bytes) */
    ok = delta <= 0 ? size == 0 : (double)size >= (double)delta / 2 &&
                                  (double)size <= (double)delta * 2;
  }
  if (ok && EXACT) exact_cases++;
  printf("%-4s %-10s %-44s size %7zu  allocated %7ld\n", ok ? "ok" : "FAIL", kind,
         what, size, delta);
  if (!ok) {
    failures++;
    fail_kind(kind);
  }
}

static void check(const char *kind, const char *what, size_t size, long delta) {
  check_opaque(kind, what, size, delta, 0);
}

static void expect(int cond, const char *fmt, ...) {
  va_list ap;
  checks++;
  if (cond) return;
  failures++;
  fail_kind("interface");
  printf("FAIL ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

static int panic(lua_State *L) {
  fprintf(stderr, "heap sizes: Lua error: %s\n", lua_tostring(L, -1));
  exit(2);
}


/* ======================================================================
** The footprint: bytes held less the main thread's size
** ====================================================================== */

static int exact;                /* li_heap_exact's answer */

static size_t thread_size(lua_State *L) {
  size_t size;
  lua_pushthread(L);
  size = li_heap_size(L, -1, exact);
  lua_pop(L, 1);
  return size;
}

/* What objects hold: what the allocator holds less what the VM holds for
** itself (the main thread's size, on which L runs).  (An estimate of the
** main thread follows the stack's top, not what the VM allocates: then
** all the allocator holds.) */
static long footprint(lua_State *L) {
  return (long)mem.total - (EXACT ? (long)thread_size(L) : 0);
}

/* Full cycles, the collector stopped again.  (Two: an object with a
** finalizer, a LuaJIT string buffer, is freed by the cycle after the one
** that finalized it.) */
static void collect(lua_State *L) {
  lua_gc(L, LUA_GCCOLLECT, 0);
  lua_gc(L, LUA_GCCOLLECT, 0);
  lua_gc(L, LUA_GCSTOP, 0);
}


/* ======================================================================
** Sets of objects (by identity), for what is new
** ====================================================================== */

#define SETMAX 8192

typedef struct {
  const void *p[SETMAX];
  int n;
} idset;

static idset known;              /* strings and tables that existed before */

static int set_has(const idset *s, const void *p) {
  int i;
  for (i = 0; i < s->n; i++)
    if (s->p[i] == p) return 1;
  return 0;
}

/* 1 if p was not in s (and is now) */
static int set_add(idset *s, const void *p) {
  if (set_has(s, p)) return 0;
  if (s->n == SETMAX) {
    fprintf(stderr, "heap sizes: set full\n");
    exit(2);
  }
  s->p[s->n++] = p;
  return 1;
}

/* The identity of the value on top (a string's: its bytes) */
static const void *top_id(lua_State *L) {
  return lua_type(L, -1) == LUA_TSTRING ? (const void *)lua_tostring(L, -1)
                                        : lua_topointer(L, -1);
}


/* ======================================================================
** Tables
** ====================================================================== */

static void table_made(lua_State *L, int na, int nh) {
  char what[64];
  long before = footprint(L);
  int i;
  lua_createtable(L, na, nh);
  for (i = 1; i <= na; i++) {
    lua_pushinteger(L, i);
    lua_rawseti(L, -2, i);
  }
  for (i = 1; i <= nh; i++) {     /* (integer keys: no string to make) */
    lua_pushboolean(L, 1);
    lua_rawseti(L, -2, 100000 + i);
  }
  snprintf(what, sizeof what, "createtable(%d, %d), filled", na, nh);
  check("table", what, li_heap_size(L, -1, exact), footprint(L) - before);
  lua_pop(L, 1);
}

/* A hash part of one slot, never used: 5.1 and 5.2 tell it from the dummy
** node every table without a hash part shares only by the dummy's address
** (found by li_heap_exact). */
static void table_unused(lua_State *L) {
  long before = footprint(L);
  lua_createtable(L, 0, 1);
  check("table", "createtable(0, 1), left empty", li_heap_size(L, -1, exact),
        footprint(L) - before);
  lua_pop(L, 1);
}

static void table_grown(lua_State *L, int na, int nh) {
  char what[64];
  long before = footprint(L);
  int i;
  lua_newtable(L);
  for (i = 1; i <= na; i++) {     /* appended: the array part rehashed */
    lua_pushinteger(L, i);
    lua_rawseti(L, -2, i);
  }
  for (i = 1; i <= nh; i++) {     /* negative keys: the hash part */
    lua_pushinteger(L, i);
    lua_rawseti(L, -2, -i);
  }
  snprintf(what, sizeof what, "{} grown to %d array, %d hash", na, nh);
  check("table", what, li_heap_size(L, -1, exact), footprint(L) - before);
  lua_pop(L, 1);
}

/* A table whose length is asked: 5.4 keeps the border as its alimit, the
** array part stays as it was (luaH_realasize). */
static void table_length(lua_State *L) {
  long before = footprint(L);
  size_t size;
  int i;
  lua_createtable(L, 8, 0);
  for (i = 1; i <= 5; i++) {
    lua_pushinteger(L, i);
    lua_rawseti(L, -2, i);
  }
  size = li_heap_size(L, -1, exact);
  expect(lua_rawlen(L, -1) == 5, "table: #t of {1..5} with 8 slots");
  expect(li_heap_size(L, -1, exact) == size, "table: size changed by #t");
  check("table", "8 slots, 1..5 set, #t asked", li_heap_size(L, -1, exact),
        footprint(L) - before);
  lua_pop(L, 1);
}

/* String keys (made first: the table alone is measured) and a table that
** had keys and lost them. */
static void table_strings(lua_State *L) {
  long before;
  int i, base = lua_gettop(L);
  for (i = 0; i < 20; i++) lua_pushfstring(L, "sizes-key-%d", i);
  before = footprint(L);
  lua_newtable(L);
  for (i = 0; i < 20; i++) {
    lua_pushvalue(L, base + 1 + i);
    lua_pushinteger(L, i);
    lua_rawset(L, -3);
  }
  check("table", "{} with 20 string keys", li_heap_size(L, -1, exact),
        footprint(L) - before);
  for (i = 0; i < 20; i++) {
    lua_pushvalue(L, base + 1 + i);
    lua_pushnil(L);
    lua_rawset(L, -3);
  }
  check_opaque("table", "its 20 keys set to nil", li_heap_size(L, -1, exact),
               footprint(L) - before, 1);
  lua_settop(L, base);
}

static void tables(lua_State *L) {
  static const int made[][2] = {{0, 0}, {1, 0}, {3, 0}, {16, 0}, {17, 0}, {100, 0},
                                {0, 1}, {0, 3}, {0, 100}, {5, 7}, {16, 16}, {1000, 1000}};
  static const int grown[][2] = {{1, 0}, {5, 0}, {17, 0}, {100, 0}, {1000, 0},
                                 {0, 1}, {0, 9}, {0, 300}, {40, 40}};
  size_t i;
  for (i = 0; i < sizeof made / sizeof made[0]; i++) table_made(L, made[i][0], made[i][1]);
  for (i = 0; i < sizeof grown / sizeof grown[0]; i++)
    table_grown(L, grown[i][0], grown[i][1]);
  table_length(L);
  table_strings(L);
  table_unused(L);
  {                              /* (LuaJIT: a colocated array moved out) */
    long before = footprint(L);
    int k;
    lua_createtable(L, 4, 0);
    for (k = 1; k <= 40; k++) {
      lua_pushinteger(L, k);
      lua_rawseti(L, -2, k);
    }
    check("table", "createtable(4, 0) grown to 40", li_heap_size(L, -1, exact),
          footprint(L) - before);
    lua_pop(L, 1);
  }
}


/* ======================================================================
** Strings, C functions, userdata
** ====================================================================== */

static void strings(lua_State *L) {
  static const size_t lens[] = {0, 1, 7, 39, 40, 41, 100, 1000, 100000};
  static unsigned serial;
  size_t i;
  char *buf = malloc(100000 + 64);
  for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    char what[64];
    long before;
    size_t len = lens[i] < 20 ? 20 + lens[i] : lens[i];   /* (room for a serial) */
    memset(buf, 'a' + (int)(i % 26), len);
    snprintf(buf, len + 1, "s%u-%zu-", ++serial, len);    /* new bytes every time */
    buf[strlen(buf)] = 'x';
    before = footprint(L);
    lua_pushlstring(L, buf, len);
    snprintf(what, sizeof what, "%zu bytes", len);
    check("string", what, li_heap_size(L, -1, exact), footprint(L) - before);
    lua_pop(L, 1);
  }
  free(buf);
}

static int a_c_function(lua_State *L) {
  (void)L;
  return 0;
}

static void cfunctions(lua_State *L) {
  int n, i;
  for (n = 0; n <= 5; n++) {
    char what[64];
    long before;
    for (i = 0; i < n; i++) lua_pushinteger(L, i);
    before = footprint(L);
    lua_pushcclosure(L, a_c_function, n);
    snprintf(what, sizeof what, "%d upvalues%s", n,
             n == 0 && LUA_VERSION_NUM >= 502 && !LI_IS_LUAJIT
                 ? " (light: no object)" : "");
    /* (the upvalues were values on the stack before; the closure holds
    ** them inside itself: no cell of its own) */
    check("C function", what, li_heap_size(L, -1, exact), footprint(L) - before);
    lua_pop(L, 1);
  }
}

static void userdata(lua_State *L) {
  static const size_t sizes[] = {0, 1, 24, 1000};
  size_t i;
  int nuv;
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (nuv = 0; nuv <= (LUA_VERSION_NUM >= 504 ? 3 : 0); nuv++) {
      char what[64];
      long before = footprint(L);
      lua_newuserdatauv(L, sizes[i], nuv);
      snprintf(what, sizeof what, "%zu bytes, %d user values", sizes[i], nuv);
      check("userdata", what, li_heap_size(L, -1, exact), footprint(L) - before);
      lua_pop(L, 1);
    }
}


/* ======================================================================
** Loaded chunks: closures, cells, prototypes
** ====================================================================== */

/* The upvalue count of the function at idx. */
static int nups_of(lua_State *L, int idx) {
  int n = 0;
  while (lua_getupvalue(L, idx, n + 1) != NULL) {
    lua_pop(L, 1);
    n++;
  }
  return n;
}

/* Strings (and LuaJIT's template tables, cdata constants and the strings
** in those tables) a prototype and its inner ones hold that are not in
** `known`: added to it and to *objs (their sizes); the prototypes' sizes
** in *protos, their count in *nprotos.  Checks each prototype's slots
** are named as docs/heap.md says. */
static void proto_tree(lua_State *L, const void *p, size_t *protos, size_t *objs,
                       int *nprotos) {
  li_hproto info;
  uint32_t i;
  li_heap_proto_info(p, &info);
  *protos += info.size;
  (*nprotos)++;
  expect(info.size > 0 && info.source != NULL, "prototype: size and source");
  for (i = 0; i < info.nrefs; i++) {
    char name[32];
    int pushed = li_heap_proto_push(L, p, i, name, sizeof name);
    if (!pushed) {
      expect(name[0] == '\0', "prototype: slot %u names '%s' and holds nothing", i, name);
      continue;
    }
    expect(strncmp(name, "(constant ", 10) == 0 || strcmp(name, "(source)") == 0 ||
           strcmp(name, "(name)") == 0, "prototype: slot named '%s'", name);
    if (strcmp(name, "(source)") == 0)
      expect(lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), info.source) == 0,
             "prototype: (source) is not its source %s", info.source);
    if (set_add(&known, top_id(L))) {
      *objs += li_heap_size(L, -1, exact);
      if (lua_type(L, -1) == LUA_TTABLE) {  /* (LuaJIT: a template) */
        lua_pushnil(L);
        while (lua_next(L, -2)) {
          int k;
          for (k = -2; k <= -1; k++)
            if (lua_type(L, k) == LUA_TSTRING) {
              lua_pushvalue(L, k);
              if (set_add(&known, top_id(L))) *objs += li_heap_size(L, -1, exact);
              lua_pop(L, 1);
            }
          lua_pop(L, 1);
        }
      }
    }
    lua_pop(L, 1);
  }
  for (i = 0; i < info.nprotos; i++) {
    const void *child = li_heap_proto_child(p, i);
    expect(child != NULL, "prototype: child %u of %u", i, info.nprotos);
    if (child != NULL) proto_tree(L, child, protos, objs, nprotos);
  }
}

/* Everything new a function on top holds: its own size, its cells not
** seen before (ids added to cells), its prototypes and their objects. */
static size_t function_tree(lua_State *L, idset *cells, int *nprotos) {
  size_t size = li_heap_size(L, -1, exact), protos = 0, objs = 0;
  int n, nups = nups_of(L, -1);
  const void *p;
  for (n = 1; n <= nups; n++) {
    const void *id = li_heap_upvalue_id(L, -1, n, exact);
    if (id == NULL || set_add(cells, id)) size += li_heap_upvalue_size(exact);
  }
  p = li_heap_proto(L, -1, exact);
  expect((p != NULL) == exact, "li_heap_proto of a Lua function: %p (exact %d)", p, exact);
  if (p != NULL) proto_tree(L, p, &protos, &objs, nprotos);
  return size + protos + objs;
}

/* The chunk of the tests below, its names all prefixed by `pre` (new
** strings every time).  Returns a maker of closures with 0 to 8 upvalues
** (2 of them new cells: the call's locals) and a function that recurses
** to a depth and yields there. */
static void chunk_text(char *out, size_t outsz, const char *pre) {
  char ll[128] = "";
  if (LI_IS_LUAJIT)              /* (cdata constants) */
    snprintf(ll, sizeof ll, "local %s_ll = {5LL, 0x7fffffffffffffffULL}\n", pre);
  snprintf(out, outsz,
    "local %1$s_a, %1$s_b, %1$s_c = '%1$s_s1', '%1$s_s2', 3\n"
    "local %1$s_t = {1, 2, 3, %1$s_k = '%1$s_s3'}\n"
    "local %1$s_long = '%1$s_%2$s'\n"
    "%3$s"
    "local function %1$s_f1(x) return x + %1$s_c end\n"
    "local function %1$s_f2() return %1$s_a .. %1$s_b, %1$s_long end\n"
    "local function %1$s_f3(...)\n"
    "  local %1$s_l = {...}\n"
    "  for %1$s_i = 1, #%1$s_l do %1$s_l[%1$s_i] = %1$s_t end\n"
    "  return function() return %1$s_l, %1$s_a, %1$s_g end\n"
    "end\n"
    "local function %1$s_rec(n)\n"
    "  if n == 0 then return coroutine.yield(n) end\n"
    "  return 1 + %1$s_rec(n - 1)\n"
    "end\n"
    "return function(k)\n"
    "  local %1$s_x, %1$s_y = k, k\n"
    "  if k == 0 then return function() return 0 end\n"
    "  elseif k == 1 then return function() return %1$s_x end\n"
    "  elseif k == 2 then return function() return %1$s_x, %1$s_y end\n"
    "  elseif k == 3 then return function() return %1$s_a, %1$s_x, %1$s_y end\n"
    "  end\n"
    "  return function()\n"
    "    return %1$s_a, %1$s_b, %1$s_c, %1$s_t, %1$s_f1, %1$s_f2, %1$s_f3, %1$s_x\n"
    "  end\n"
    "end, %1$s_rec\n",
    pre,
    "a long string constant, longer than forty bytes, a long string in 5.4",
    ll);
}

/* A chunk of 60 functions and 300 string constants, nested 6 deep, each
** function an upvalue of the next. */
static void big_text(char *out, size_t outsz, const char *pre) {
  size_t len = 0;
  int f, k;
  len += (size_t)snprintf(out + len, outsz - len, "local %s_f0 = function() end\n", pre);
  for (f = 1; f <= 60; f++) {
    len += (size_t)snprintf(out + len, outsz - len,
                            "local function %s_f%d(a, b)\n  local t = {", pre, f);
    for (k = 0; k < 5; k++)
      len += (size_t)snprintf(out + len, outsz - len, "'%s_c%d_%d', ", pre, f, k);
    len += (size_t)snprintf(out + len, outsz - len, "}\n  return t, %s_f%d", pre, f - 1);
    if (f % 10 == 0) {            /* a nest of 6 functions */
      for (k = 0; k < 6; k++)
        len += (size_t)snprintf(out + len, outsz - len, ", function(%s_n%d) return %s_n%d",
                                pre, k, pre, k);
      for (k = 0; k < 6; k++) len += (size_t)snprintf(out + len, outsz - len, " end");
    }
    len += (size_t)snprintf(out + len, outsz - len, "\nend\n");
  }
  snprintf(out + len, outsz - len, "return %s_f60\n", pre);
}

/* Load text (or a binary chunk) named name: the function left on the
** stack, checked against what the load allocated. */
static void load_checked(lua_State *L, const char *what, const char *buf, size_t len,
                         const char *name, idset *cells, int expect_protos) {
  long before;
  size_t size;
  int nprotos = 0;
  collect(L);
  before = footprint(L);
  if (luaL_loadbuffer(L, buf, len, name) != LUA_OK) {
    fprintf(stderr, "heap sizes: %s: %s\n", what, lua_tostring(L, -1));
    exit(2);
  }
  collect(L);                    /* (the parser's garbage) */
  size = function_tree(L, cells, &nprotos);
  if (exact)
    expect(nprotos == expect_protos, "%s: %d prototypes, expected %d", what, nprotos,
           expect_protos);
  check_opaque("chunk", what, size, footprint(L) - before, 1);
}

struct dumped {
  char *b;
  size_t n;
};

static int writer(lua_State *L, const void *p, size_t sz, void *ud) {
  struct dumped *d = ud;
  (void)L;
  d->b = realloc(d->b, d->n + sz);
  memcpy(d->b + d->n, p, sz);
  d->n += sz;
  return 0;
}

/* The upvalue ids of the function at idx, added to cells. */
static void cells_of(lua_State *L, int idx, idset *cells) {
  int n, nups = nups_of(L, idx);
  for (n = 1; n <= nups; n++) {
    const void *id = li_heap_upvalue_id(L, idx, n, exact);
    if (id != NULL) set_add(cells, id);
  }
}

static void chunks(lua_State *L, int *maker, int *rec) {
  static char text[64 * 1024];
  idset *cells = calloc(1, sizeof *cells);
  struct dumped d = {NULL, 0};
  int k;
  /* The strings Lua names things with itself (_ENV, (for state) ...) exist
  ** from a first load of the same text on: its objects are known. */
  {
    int nprotos = 0;
    chunk_text(text, sizeof text, "zqwarm");
    luaL_loadbuffer(L, text, strlen(text), "=zqwarm");
    function_tree(L, cells, &nprotos);
    big_text(text, sizeof text, "zqbigwarm");
    luaL_loadbuffer(L, text, strlen(text), "=zqbigwarm");
    function_tree(L, cells, &nprotos);
  }

  chunk_text(text, sizeof text, "zqone");
  load_checked(L, "the test chunk", text, strlen(text), "=zqone", cells, 12);
  big_text(text, sizeof text, "zqbig");
  load_checked(L, "60 functions, 300 constants", text, strlen(text), "@zqbig.lua", cells,
               1 + 60 + 6 * 6 + 1);
  /* its dump, stripped, loaded (5.1 and LuaJIT's lua_dump do not strip) */
  lua_dump(L, writer, &d, 1);
  load_checked(L, "the same, stripped dump", d.b, d.n, "=zqbigdump", cells,
               1 + 60 + 6 * 6 + 1);
  free(d.b);

  /* The test chunk run: its maker and its recursion left on the stack. */
  lua_pushvalue(L, -3);
  lua_call(L, 0, 2);
  *maker = lua_gettop(L) - 1;
  *rec = lua_gettop(L);
  lua_pushvalue(L, *maker);      /* (once: the call records a call needs) */
  lua_pushinteger(L, 4);
  lua_call(L, 1, 0);
  for (k = 0; k <= 4; k++) {
    char what[64];
    long before;
    size_t size;
    int anonymous = 0;
    /* (the maker's cells: those the closure shares; a cell of a closure
    ** made and collected before may have left its address to a new one) */
    cells->n = 0;
    cells_of(L, *maker, cells);
    before = footprint(L);
    lua_pushvalue(L, *maker);
    lua_pushinteger(L, k);
    lua_call(L, 1, 1);
    size = li_heap_size(L, -1, exact);
    {
      int n, nups = nups_of(L, -1);
      for (n = 1; n <= nups; n++) {
        const void *id = li_heap_upvalue_id(L, -1, n, exact);
        expect(id != NULL || !EXACT, "closure: upvalue %d has no identity", n);
        if (id == NULL) anonymous = 1;
        else if (set_add(cells, id)) size += li_heap_upvalue_size(exact);
      }
      snprintf(what, sizeof what, "closure of %d upvalues, made by a call", nups);
    }
    check_opaque("closure", what, size, footprint(L) - before, anonymous);
    lua_pop(L, 1);
  }
  free(cells);
}


/* ======================================================================
** Threads
** ====================================================================== */

static void threads(lua_State *L, int rec) {
  static const int depths[] = {0, 1, 10, 100, 2000};
  size_t i;
  long before = footprint(L);
  lua_newthread(L);
  check("thread", "new", li_heap_size(L, -1, exact), footprint(L) - before);
  lua_pop(L, 1);
  for (i = 0; i < sizeof depths / sizeof depths[0]; i++) {
    char what[64];
    lua_State *co;
    int nres, st;
    before = footprint(L);
    co = lua_newthread(L);
    lua_pushvalue(L, rec);
    lua_xmove(L, co, 1);
    lua_pushinteger(co, depths[i]);
    st = lua_resume(co, L, 1, &nres);
    expect(st == LUA_YIELD, "thread: suspended at depth %d (%d)", depths[i], st);
    snprintf(what, sizeof what, "suspended %d calls deep", depths[i]);
    check("thread", what, li_heap_size(L, -1, exact), footprint(L) - before);
    lua_pop(L, 1);
  }
}


/* li_heap_exact at any moment: in the middle of a collection (its steps
** one by one) and from a suspended coroutine, sizes then still exact. */
static void check_anytime(lua_State *L, int rec) {
  const char *why = NULL;
  lua_State *co;
  int step, nres;
  long before;
  collect(L);
  lua_gc(L, LUA_GCRESTART, 0);
  for (step = 0; step < 12; step++) {
    lua_gc(L, LUA_GCSTEP, 1);
    expect(li_heap_exact(L, &why) == EXACT, "li_heap_exact after %d collection steps: %s",
           step + 1, why ? why : "");
  }
  lua_gc(L, LUA_GCSTOP, 0);
  before = footprint(L);
  co = lua_newthread(L);
  lua_pushvalue(L, rec);
  lua_xmove(L, co, 1);
  lua_pushinteger(co, 50);
  expect(lua_resume(co, L, 1, &nres) == LUA_YIELD, "coroutine suspended");
  expect(li_heap_exact(co, &why) == EXACT, "li_heap_exact from a coroutine: %s",
         why ? why : "");
  check("thread", "suspended 50 calls deep, exact mid-cycle", li_heap_size(L, -1, exact),
        footprint(L) - before);
  lua_pushthread(co);            /* (asked on the coroutine, of itself) */
  expect(li_heap_size(co, -1, exact) == li_heap_size(L, -1, exact),
         "a thread's size asked from itself");
  lua_pop(co, 1);
  lua_pop(L, 1);
}

#if LI_IS_LUAJIT
/* ======================================================================
** LuaJIT: cdata and string buffers
** ====================================================================== */

/* The trace compiler's memory (traces, IR and snapshot buffers) is the
** main thread's: a hot loop that makes no object leaves the footprint as
** it was, traces made and flushed. */
static void jit_traces(lua_State *L) {
  static const char text[] =
    "local s = 0\n"
    "for i = 1, 2000 do s = s + i % 7 end\n"
    "for i = 1, 2000 do s = s + (i % 3 == 0 and 1 or i) end\n"
    "return s\n";
  long before;
  if (luaL_loadbuffer(L, text, sizeof text - 1, "=jit traces") != LUA_OK) {
    fprintf(stderr, "heap sizes: %s\n", lua_tostring(L, -1));
    exit(2);
  }
  collect(L);
  before = footprint(L);
  luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_ON);
  lua_pushvalue(L, -1);
  lua_call(L, 0, 0);
  luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
  check_opaque("main", "the JIT's traces of two hot loops", 0, footprint(L) - before, 1);
  luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_FLUSH);
  collect(L);                    /* (the traces flushed are collected) */
  check_opaque("main", "the traces flushed", 0, footprint(L) - before, 1);
  lua_pop(L, 1);
}

static void jit_objects(lua_State *L) {
  static const char text[] =
    "local ffi = require('ffi')\n"
    "local buffer = require('string.buffer')\n"
    "local vla, st, i64 = ffi.typeof('int[?]'), ffi.typeof('struct { double a; int b; }'),\n"
    "  ffi.typeof('int64_t')\n"
    "return function(k, n, s)\n"
    "  if k == 1 then return st()\n"
    "  elseif k == 2 then return i64(n)\n"
    "  elseif k == 3 then return vla(n)\n"
    "  elseif k == 4 then return ffi.new('double[?]', n)\n"
    "  elseif k == 5 then return ffi.new('char[7]')\n"
    "  end\n"
    "  local b = buffer.new()\n"
    "  if s then b:put(s) end\n"
    "  return b\n"
    "end\n";
  static const struct { int k, n; const char *what; } made[] = {
    {1, 0, "struct {double; int}"}, {2, 7, "int64_t"},
    {3, 1, "int[1] (variable length)"}, {3, 1000, "int[1000] (variable length)"},
    {4, 3, "double[3] (variable length)"}, {5, 0, "char[7]"},
    {6, 0, "string buffer, empty"}, {6, 1, "string buffer of 300 bytes"}};
  size_t i;
  int f, s;
  char bytes[300];
  memset(bytes, 'b', sizeof bytes);
  lua_pushlstring(L, bytes, sizeof bytes);
  s = lua_gettop(L);
  if (luaL_loadbuffer(L, text, sizeof text - 1, "=jit objects") != LUA_OK) {
    fprintf(stderr, "heap sizes: %s\n", lua_tostring(L, -1));
    exit(2);
  }
  lua_call(L, 0, 1);
  f = lua_gettop(L);
  for (i = 0; i < sizeof made / sizeof made[0]; i++) {
    int round;
    /* (once to make what the first call makes: C types, method caches) */
    for (round = 0; round < 2; round++) {
      long before;
      collect(L);
      before = footprint(L);
      lua_pushvalue(L, f);
      lua_pushinteger(L, made[i].k);
      lua_pushinteger(L, made[i].n);
      if (made[i].k == 6 && made[i].n) lua_pushvalue(L, s);
      else lua_pushnil(L);
      lua_call(L, 3, 1);
      if (round == 1)
        check_opaque(made[i].k == 6 ? "userdata" : "cdata", made[i].what,
                     li_heap_size(L, -1, exact), footprint(L) - before,
                     made[i].k != 6 || made[i].n != 0);
      lua_pop(L, 1);
    }
  }
  lua_settop(L, s - 1);
  jit_traces(L);
}
#endif


/* ======================================================================
** The main thread at lua_close
** ====================================================================== */

static int nested_call(lua_State *L) {
  lua_pushcfunction(L, a_c_function);
  lua_call(L, 0, 0);
  return 0;
}

/* Its size must be the last blocks lua_close frees (after the objects,
** which it frees first): some run of them, up to the state's block.
** (lua_close runs finalizers, which need call records: a call two deep
** first leaves the records they use, on Luas that keep a list of them.) */
static void main_thread_at_close(lua_State *L) {
  size_t size, sum = 0;
  unsigned long k, last;
  int found = 0;
  char what[64];
  lua_pushcfunction(L, nested_call);
  lua_call(L, 0, 0);
  size = thread_size(L);
  lua_close(L);
  if (!EXACT) return;
  last = mem.nfrees;
  for (k = 1; k <= NFREES && k <= last; k++) {
    sum += mem.frees[(last - k) % NFREES];
    if (sum == size) {
      found = 1;
      break;
    }
    if (sum > size) break;
  }
  snprintf(what, sizeof what, "the last %lu blocks lua_close frees", found ? k : 0);
  check("main", what, size, found ? (long)sum : -1);
  expect(mem.total == 0, "lua_close left %zu bytes", mem.total);
}


int main(void) {
  lua_State *L = lua_newstate(count_alloc, NULL);
  const char *why = NULL;
  int maker, rec;
  if (L == NULL) {
    fprintf(stderr, "heap sizes: no state\n");
    return 2;
  }
  lua_atpanic(L, panic);
  luaL_openlibs(L);
#if LI_IS_LUAJIT
  /* (no traces: the JIT's own allocations are not the objects') */
  luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
#endif
  lua_gc(L, LUA_GCSTOP, 0);
  lua_checkstack(L, 400);        /* (the stack grown once: room for all below) */

  exact = li_heap_exact(L, &why);
  printf("Lua %s (%s): li_heap_exact %d%s%s\n", LI_LUA_NAME, LUA_RELEASE, exact,
         why ? ": " : "", why ? why : "");
  expect(exact == EXACT, "li_heap_exact says %d (%s), the build expects %d", exact,
         why ? why : "", EXACT);
  expect(exact || (why != NULL && why[0] != '\0'), "li_heap_exact: no reason given");

  /* a bare state (no library: few objects, a registry of no string key)
  ** checks as well */
  {
    lua_State *B = lua_newstate(count_alloc, NULL);
    const char *bwhy = NULL;
    int bexact = li_heap_exact(B, &bwhy);
    expect(bexact == EXACT, "li_heap_exact on a bare state: %d (%s)", bexact,
           bwhy ? bwhy : "");
    lua_close(B);
  }

  /* values that are not objects */
  lua_pushnil(L);
  lua_pushinteger(L, 3);
  lua_pushboolean(L, 1);
  lua_pushlightuserdata(L, &maker);
  expect(li_heap_size(L, -1, exact) == 0 && li_heap_size(L, -2, exact) == 0 &&
         li_heap_size(L, -3, exact) == 0 && li_heap_size(L, -4, exact) == 0,
         "values that are not objects have size 0");
  expect(li_heap_proto(L, -1, exact) == NULL, "a light userdata has no prototype");
  lua_pop(L, 4);

  tables(L);
  strings(L);
  cfunctions(L);
  userdata(L);
  chunks(L, &maker, &rec);
  threads(L, rec);
  check_anytime(L, rec);
#if LI_IS_LUAJIT
  jit_objects(L);
#endif
  main_thread_at_close(L);

  printf("Lua %s: %d sizes compared, %d exact; %d other checks; %s", LI_LUA_NAME, cases,
         exact_cases, checks,
         failures ? "FAILED:" : "all passed\n");
  if (failures) {
    int i;
    for (i = 0; i < nkinds_failed; i++) printf(" %s", kinds_failed[i]);
    printf(" (%d failures)\n", failures);
  }
  return failures ? 1 : 0;
}
