/*
** test_resume.c -- Criterion tests of coroutines the host resumes from C
** (lua_resume) and of Lua code it runs on another thread (lua_pcall),
** routed through luainstr_wrap.h, with known answers in virtual time.
**
** Time is virtual (as in test_frames.c): spin(ns) advances it by ns and
** each read of the clock costs READ_NS of it.  Some cases also run with
** Lua's own lua_resume (what a host that does not include the header
** calls): the profiler then infers the resumes, and the report says so.
*/
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"
#include "vtime.h"

/* Lua's own functions, taken before luainstr_wrap.h renames the calls. */
static int plain_resume(lua_State *co, lua_State *from, int narg, int *nres) {
  return lua_resume(co, from, narg, nres);
}

static int plain_load(lua_State *L, lua_Reader r, void *ud, const char *name) {
  return lua_load(L, r, ud, name, NULL);
}

static int plain_loadstring(lua_State *L, const char *s) {
  return luaL_loadstring(L, s);
}

#include "luainstr_wrap.h"

/* ---- a state on virtual time ---------------------------------------------- */

#define MS 1000000ull
static int use_plain;     /* resume with Lua's lua_resume (no header) */

/* The host's resume, as an engine's scheduler calls it. */
static int host_resume(lua_State *co, lua_State *from, int narg, int *nres) {
  return use_plain ? plain_resume(co, from, narg, nres)
                   : lua_resume(co, from, narg, nres);
}

/* cresume(co [, from_nil]): a C function that resumes co from C (from =
** the calling thread, or NULL when from_nil) and returns lua_resume's
** status; a yielded or returned value stays in co. */
static int l_cresume(lua_State *L) {
  lua_State *co = lua_tothread(L, 1);
  int nres = 0, status;
  luaL_argexpected(L, co != NULL, 1, "thread");
  status = host_resume(co, lua_toboolean(L, 2) ? NULL : L, 0, &nres);
  lua_pop(co, nres > 0 && status <= LUA_YIELD ? nres : 0);
  if (status > LUA_YIELD) lua_pop(co, 1);        /* the error value */
  lua_pushinteger(L, status);
  return 1;
}

static lua_State *state(int memory) {
  lua_State *L = vstate_new();
  if (memory)
    cr_assert_eq(luainstr_set_option(L, "memory", "on"), LUAINSTR_OK, "%s",
                 luainstr_errmsg(L));
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  luainstr_install_hooks();
  lua_register(L, "spin", l_spin);
  lua_register(L, "cresume", l_cresume);
  return L;
}

/* Run src, loaded as an engine loads a script (luaL_loadstring, routed). */
static void run(lua_State *L, const char *src) {
  cr_assert_eq(luaL_loadbuffer(L, src, strlen(src), "=t"), LUA_OK, "%s",
               lua_tostring(L, -1));
  cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK, "%s", lua_tostring(L, -1));
}

/* A new coroutine (kept in the registry) running global function fname. */
static lua_State *coroutine_of(lua_State *L, const char *fname) {
  lua_State *co = lua_newthread(L);
  luaL_ref(L, LUA_REGISTRYINDEX);
  lua_getglobal(co, fname);
  return co;
}

/* Call global function fname(co) on L. */
static void call_with(lua_State *L, const char *fname, lua_State *co) {
  lua_getglobal(L, fname);
  lua_pushthread(co);
  lua_xmove(co, L, 1);
  cr_assert_eq(lua_pcall(L, 1, 0, 0), LUA_OK, "%s", lua_tostring(L, -1));
}

static int resume0(lua_State *co, lua_State *from) {
  int nres = 0, status = host_resume(co, from, 0, &nres);
  if (status <= LUA_YIELD) lua_pop(co, nres);
  return status;
}

/* The one node of function `name`; its parent's function name in *parent
** ("" for the root). */
static const li_pnode *node(const li_profile *p, const char *name,
                            const char **parent) {
  uint32_t f = func_id(p, name), found = UINT32_MAX;
  for (uint32_t i = 1; i < p->nnodes; i++)
    if (p->nodes[i].func == f) {
      cr_assert_eq(found, UINT32_MAX, "'%s' has two nodes", name);
      found = i;
    }
  cr_assert_neq(found, UINT32_MAX, "'%s' has no node", name);
  if (parent != NULL) {
    uint32_t up = p->nodes[found].parent;
    *parent = up == 0 ? "" : p->funcs[p->nodes[up].func].name;
  }
  return &p->nodes[found];
}

/* Sum of every node's self time: the time measured, counted once. */
static uint64_t self_sum(const li_profile *p) {
  uint64_t s = 0;
  for (uint32_t i = 1; i < p->nnodes; i++) s += p->nodes[i].self_ns;
  return s;
}

static double ms(uint64_t ns) { return (double)ns / 1e6; }

/* Within 2 % or 0.05 ms of the truth (virtual time: only the clock reads
** of the probes themselves are not spins). */
static int near(uint64_t got, double truth_ms) {
  double g = ms(got);
  return fabs(g - truth_ms) <= 0.05 + 0.02 * truth_ms;
}

#define NEAR(got, truth, what) \
  cr_assert(near((got), (truth)), "%s: %.3f ms, not %.3f", (what), ms(got), (double)(truth))

static const char script[] =
  "function work() spin(10000000); coroutine.yield(); spin(5000000) end\n"
  "function bad() spin(3000000); error('boom') end\n"
  "function inner() spin(2000000); coroutine.yield(); spin(1000000) end\n"
  "function outer(co) spin(1000000); cresume(co); spin(1000000) end\n"
  "function driver(co) spin(1000000); cresume(co); spin(1000000) end\n"
  "function driver_nil(co) spin(1000000); cresume(co, true); spin(1000000) end\n"
  "function other(co) spin(4000000); cresume(co) end\n"
  "function script() spin(6000000) end\n";

/* ---- the cases ------------------------------------------------------------ */

/* A C zone around two resumes of one coroutine, 1 ms of C work between:
** the coroutine nests under the zone, the zone's self time is the C work,
** nothing is counted twice. */
static void zone_case(int plain) {
  lua_State *L, *co;
  li_profile p;
  const char *parent;
  const li_pnode *w;
  use_plain = plain;
  L = state(0);
  run(L, script);
  co = coroutine_of(L, "work");
  cr_assert_eq(luainstr_zone_begin(L, "update"), LUAINSTR_OK);
  cr_assert_eq(resume0(co, L), LUA_YIELD);
  vtime += 1 * MS;                               /* the host's own work */
  cr_assert_eq(resume0(co, L), LUA_OK);
  cr_assert_eq(luainstr_zone_end(L), LUAINSTR_OK);
  snap(L, &p);
  w = node(&p, "work", &parent);
  cr_assert_str_eq(parent, "zone update");
  NEAR(w->total_ns, 15, "work total");
  NEAR(func(&p, "zone update")->self_ns, 1, "zone self");
  NEAR(func(&p, "zone update")->total_ns, 16, "zone total");
  NEAR(self_sum(&p), 16, "sum of self times");
  if (plain) {
    /* Lua's lua_resume: the resumes are inferred, and the report says so */
    cr_assert_gt(li_prof_get(L)->unseen, 0);
    cr_assert_not_null(p.warnings);
    cr_assert(strstr(p.warnings, "luainstr_wrap.h") != NULL, "%s", p.warnings);
  } else {
    cr_assert_eq(li_prof_get(L)->unseen, 0);
    cr_assert(p.warnings == NULL || strstr(p.warnings, "luainstr_wrap.h") == NULL,
              "%s", p.warnings);
  }
  li_snapshot_free(&p);
  lua_close(L);
}

Test(resume, zone_around_c_resumes) { zone_case(0); }
Test(resume, zone_around_plain_resumes_inferred) { zone_case(1); }

/* A C function called from Lua resumes a coroutine (from = its thread, or
** NULL): the coroutine nests under the Lua function that called into C. */
static void from_lua_case(const char *drv) {
  lua_State *L, *co;
  li_profile p;
  const char *parent;
  use_plain = 0;
  L = state(0);
  run(L, script);
  co = coroutine_of(L, "work");
  call_with(L, drv, co);
  call_with(L, drv, co);                         /* second resume: it ends */
  snap(L, &p);
  node(&p, "work", &parent);
  cr_assert_str_eq(parent, drv);
  NEAR(func(&p, "work")->total_ns, 15, "work total");
  NEAR(func(&p, drv)->self_ns, 4, "driver self");
  NEAR(func(&p, drv)->total_ns, 19, "driver total");
  NEAR(self_sum(&p), 19, "sum of self times");
  li_snapshot_free(&p);
  lua_close(L);
}

Test(resume, c_function_called_from_lua_resumes) { from_lua_case("driver"); }
Test(resume, c_function_resumes_with_from_null) { from_lua_case("driver_nil"); }

/* The node of function `name` under a node of function `up`. */
static const li_pnode *node_under(const li_profile *p, const char *name,
                                  const char *up) {
  uint32_t f = func_id(p, name), u = func_id(p, up);
  for (uint32_t i = 1; i < p->nnodes; i++)
    if (p->nodes[i].func == f && p->nodes[p->nodes[i].parent].func == u)
      return &p->nodes[i];
  cr_assert_fail("'%s' has no node under '%s'", name, up);
  return NULL;
}

/* Nested: a coroutine resumed from C resumes another one from C; the
** host resumes the inner one again, from its zone: the rest of inner's
** call runs under the zone (in its node under the zone, which counts no
** call), and outer's total holds only the part it resumed. */
Test(resume, nested_c_resumed_coroutines) {
  lua_State *L, *co1, *co2;
  li_profile p;
  const char *parent;
  use_plain = 0;
  L = state(0);
  run(L, script);
  co2 = coroutine_of(L, "inner");
  co1 = coroutine_of(L, "outer");
  lua_pushthread(co2);
  lua_xmove(co2, co1, 1);                        /* outer's argument */
  cr_assert_eq(luainstr_zone_begin(L, "tick"), LUAINSTR_OK);
  {
    int nres = 0;
    cr_assert_eq(host_resume(co1, L, 1, &nres), LUA_OK);
  }
  cr_assert_eq(resume0(co2, L), LUA_OK);         /* inner's rest: 1 ms */
  cr_assert_eq(luainstr_zone_end(L), LUAINSTR_OK);
  snap(L, &p);
  node(&p, "outer", &parent);
  cr_assert_str_eq(parent, "zone tick");
  NEAR(node_under(&p, "inner", "outer")->total_ns, 2, "inner under outer");
  cr_assert_eq(node_under(&p, "inner", "outer")->calls, 1);
  NEAR(node_under(&p, "inner", "zone tick")->total_ns, 1, "inner under tick");
  cr_assert_eq(node_under(&p, "inner", "zone tick")->calls, 0);
  cr_assert_eq(func(&p, "inner")->calls, 1);
  NEAR(func(&p, "inner")->total_ns, 3, "inner total");
  NEAR(func(&p, "inner")->min_ns, 3, "inner's one call");
  NEAR(func(&p, "outer")->self_ns, 2, "outer self");
  NEAR(func(&p, "outer")->total_ns, 4, "outer total");
  NEAR(func(&p, "zone tick")->total_ns, 5, "tick total");
  NEAR(self_sum(&p), 5, "sum of self times");
  li_snapshot_free(&p);
  lua_close(L);
}

/* A coroutine that dies by an error: its frames close as exits by an
** error when lua_resume returns, not later.  Resumed with Lua's own
** lua_resume, the profiler learns of the error at the next luainstr_
** call (here the zone's end, 2 ms later): the calls close there. */
static void error_case(int plain) {
  lua_State *L, *co;
  li_profile p;
  const char *parent;
  const li_pnode *b;
  use_plain = plain;
  L = state(0);
  run(L, script);
  co = coroutine_of(L, "bad");
  cr_assert_eq(luainstr_zone_begin(L, "z"), LUAINSTR_OK);
  cr_assert_eq(host_resume(co, L, 0, &(int){0}), LUA_ERRRUN);
  vtime += 2 * MS;                               /* after: the zone's own */
  cr_assert_eq(luainstr_zone_end(L), LUAINSTR_OK);
  snap(L, &p);
  b = node(&p, "bad", &parent);
  cr_assert_str_eq(parent, "zone z");
  cr_assert_eq(b->errors, 1);
  NEAR(b->total_ns, plain ? 5 : 3, "bad total");
  NEAR(func(&p, "zone z")->self_ns, plain ? 0 : 2, "zone self");
  NEAR(self_sum(&p), 5, "sum of self times");
  li_snapshot_free(&p);
  lua_close(L);
}

Test(resume, c_resumed_coroutine_that_errors) { error_case(0); }
Test(resume, plain_resumed_coroutine_that_errors) { error_case(1); }

/* One coroutine resumed from two different threads' stacks: each resume's
** time is charged to the function that resumed it. */
Test(resume, resumed_from_two_threads) {
  lua_State *L, *co, *x;
  li_profile p;
  use_plain = 0;
  L = state(0);
  run(L, script);
  co = coroutine_of(L, "work");
  call_with(L, "driver", co);                    /* from the main thread */
  x = coroutine_of(L, "other");                  /* from coroutine x */
  lua_pushthread(co);
  lua_xmove(co, x, 1);
  {
    int nres = 0;
    cr_assert_eq(host_resume(x, L, 1, &nres), LUA_OK);
  }
  snap(L, &p);
  /* driver: 2 ms of its own and work's first 10 ms; other: 4 + 5 (the
  ** rest of work's call in its node under other) */
  NEAR(func(&p, "driver")->total_ns, 12, "driver total");
  NEAR(func(&p, "driver")->self_ns, 2, "driver self");
  NEAR(func(&p, "other")->total_ns, 9, "other total");
  NEAR(func(&p, "other")->self_ns, 4, "other self");
  NEAR(func(&p, "work")->total_ns, 15, "work total");
  NEAR(self_sum(&p), 21, "sum of self times");
  li_snapshot_free(&p);
  lua_close(L);
}

/* A script the host runs with lua_pcall on a thread of its own, inside a
** zone: it nests under the zone, as a resumed coroutine would. */
Test(resume, pcall_on_another_thread) {
  lua_State *L, *T;
  li_profile p;
  const char *parent;
  use_plain = 0;
  L = state(0);
  run(L, script);
  T = coroutine_of(L, "script");
  cr_assert_eq(luainstr_zone_begin(L, "scripts"), LUAINSTR_OK);
  cr_assert_eq(lua_pcall(T, 0, 0, 0), LUA_OK, "%s", lua_tostring(T, -1));
  vtime += 1 * MS;
  cr_assert_eq(luainstr_zone_end(L), LUAINSTR_OK);
  snap(L, &p);
  node(&p, "script", &parent);
  cr_assert_str_eq(parent, "zone scripts");
  NEAR(func(&p, "zone scripts")->self_ns, 1, "zone self");
  NEAR(self_sum(&p), 7, "sum of self times");
  cr_assert_eq(li_prof_get(L)->unseen, 0);
  li_snapshot_free(&p);
  lua_close(L);
}

/* Memory mode: what the coroutine allocates is its own; what the host
** allocates between two resumes is the zone's, not the suspended
** coroutine's. */
static const char alloc_script[] =
  "function gen() local t = {} for i = 1, 1000 do t[i] = {} end\n"
  "  coroutine.yield(); for i = 1, 1000 do t[i] = {} end end\n";

static void memory_case(int plain) {
  lua_State *L, *co;
  li_profile p;
  use_plain = plain;
  L = state(1);
  run(L, alloc_script);
  co = coroutine_of(L, "gen");
  cr_assert_eq(luainstr_zone_begin(L, "z"), LUAINSTR_OK);
  cr_assert_eq(resume0(co, L), LUA_YIELD);
  for (int i = 0; i < 500; i++) {                /* the host's tables */
    lua_newtable(L);
    lua_pop(L, 1);
  }
  cr_assert_eq(resume0(co, L), LUA_OK);
  cr_assert_eq(luainstr_zone_end(L), LUAINSTR_OK);
  snap(L, &p);
  {
    const li_pfunc *g = func(&p, "gen"), *z = func(&p, "zone z");
    cr_assert_geq(g->mem.alloc_count, 2000, "gen: %llu", (unsigned long long)g->mem.alloc_count);
    cr_assert_lt(g->mem.alloc_count, 2100, "gen: %llu", (unsigned long long)g->mem.alloc_count);
    cr_assert_geq(z->mem.alloc_count, 500, "zone: %llu", (unsigned long long)z->mem.alloc_count);
    cr_assert_lt(z->mem.alloc_count, 560, "zone: %llu", (unsigned long long)z->mem.alloc_count);
  }
  cr_assert_eq(li_prof_get(L)->unseen > 0, plain);
  li_snapshot_free(&p);
  lua_close(L);
}

Test(resume, memory_of_c_resumed_coroutine) { memory_case(0); }
Test(resume, memory_with_plain_resume_inferred) { memory_case(1); }

/* The wrappers are Lua's functions when the hooks are off. */
Test(resume, hooks_off_is_lua) {
  lua_State *L, *co;
  li_profile p;
  use_plain = 0;
  L = state(0);
  luainstr_uninstall_hooks();
  run(L, script);      /* loaded with Lua's loader: nothing instrumented */
  co = coroutine_of(L, "work");
  cr_assert_eq(resume0(co, L), LUA_YIELD);
  cr_assert_eq(resume0(co, L), LUA_OK);
  snap(L, &p);
  cr_assert_eq(p.nfuncs, 0);
  li_snapshot_free(&p);
  lua_close(L);
  luainstr_install_hooks();
}


/* ---- every loader routed ------------------------------------------------- */

static const char *tmp_script(const char *body) {
  static char path[64];
  FILE *f;
  snprintf(path, sizeof path, "/tmp/li_resume_%d.lua", (int)getpid());
  f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(body, f);
  fclose(f);
  return path;
}

/* luaL_dofile and luaL_dostring, the macros engines call, are routed. */
Test(loaders, dofile_and_dostring_are_instrumented) {
  lua_State *L;
  li_profile p;
  const char *path;
  use_plain = 0;
  L = state(0);
  path = tmp_script("function from_file() spin(1000000) end\n"
                    "for i = 1, 3 do from_file() end\n");
  cr_assert_eq(luaL_dofile(L, path), LUA_OK, "%s", lua_tostring(L, -1));
  remove(path);
  cr_assert_eq(luaL_dostring(L, "function from_string() spin(2000000) end\n"
                                "from_string()"), LUA_OK);
  snap(L, &p);
  cr_assert_eq(func(&p, "from_file")->calls, 3);
  NEAR(func(&p, "from_file")->total_ns, 3, "from_file");
  cr_assert_eq(func(&p, "from_string")->calls, 1);
  cr_assert(p.warnings == NULL, "%s", p.warnings);
  li_snapshot_free(&p);
  lua_close(L);
}

/* A reader that gives its chunk one byte at a time, counting its calls. */
typedef struct bytes { const char *s; size_t n, at; int calls; } bytes;

static const char *one_byte(lua_State *L, void *ud, size_t *size) {
  bytes *b = ud;
  (void)L;
  b->calls++;
  if (b->at >= b->n) { *size = 0; return NULL; }
  *size = 1;
  return b->s + b->at++;
}

typedef struct dumped { char b[4096]; size_t n; } dumped;

static int writer(lua_State *L, const void *p, size_t sz, void *ud) {
  dumped *d = ud;
  (void)L;
  cr_assert_leq(d->n + sz, sizeof d->b);
  memcpy(d->b + d->n, p, sz);
  d->n += sz;
  return 0;
}

/* lua_load with the host's reader: instrumented, and the reader called
** exactly as Lua's lua_load calls it (text, a syntax error, binary). */
Test(loaders, lua_load_with_a_reader) {
  static const char *const chunks[] = {
    "function by_reader(n) spin(n) end by_reader(1000000) by_reader(1000000)",
    "function broken( spin(1) end",
  };
  lua_State *L;
  li_profile p;
  use_plain = 0;
  L = state(0);
  for (int i = 0; i < 2; i++) {
    bytes a = { chunks[i], strlen(chunks[i]), 0, 0 }, b = a;
    int sa = lua_load(L, one_byte, &a, "=reader", NULL);
    int sb = plain_load(L, one_byte, &b, "=reader");
    cr_assert_eq(sa, sb);
    cr_assert_eq(a.calls, b.calls, "%d calls, Lua's %d", a.calls, b.calls);
    if (i == 1)
      cr_assert_str_eq(lua_tostring(L, -1), lua_tostring(L, -2), "%s | %s",
                       lua_tostring(L, -1), lua_tostring(L, -2));
    lua_pop(L, 1);
    if (sa == LUA_OK) cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK);
    else lua_pop(L, 1);
  }
  {                                   /* a binary chunk passes through */
    static dumped d;
    bytes c;
    cr_assert_eq(plain_loadstring(L, "return 40 + 2"), LUA_OK);
    d.n = 0;
    lua_dump(L, writer, &d, 0);
    lua_pop(L, 1);
    c.s = d.b;
    c.n = d.n;
    c.at = 0;
    c.calls = 0;
    cr_assert_eq(lua_load(L, one_byte, &c, "=bin", NULL), LUA_OK);
    cr_assert_eq(lua_pcall(L, 0, 1, 0), LUA_OK);
    cr_assert_eq(lua_tointeger(L, -1), 42);
    lua_pop(L, 1);
  }
  snap(L, &p);
  cr_assert_eq(func(&p, "by_reader")->calls, 2);
  NEAR(func(&p, "by_reader")->total_ns, 2, "by_reader");
  li_snapshot_free(&p);
  lua_close(L);
}

/* A chunk compiled behind the loader's back is named in the report. */
Test(loaders, report_names_chunks_outside_the_loader) {
  lua_State *L;
  use_plain = 0;
  L = state(0);
  cr_assert_eq(plain_loadstring(L, "function hidden() end"), LUA_OK);
  lua_pcall(L, 0, 0, 0);
  run(L, "function seen() end seen()");
  cr_assert_eq(luainstr_dump(L, "text", "/tmp/li_resume_report.txt"), LUAINSTR_OK,
               "%s", luainstr_errmsg(L));
  {
    char buf[8192];
    FILE *r = fopen("/tmp/li_resume_report.txt", "r");
    size_t n;
    cr_assert_not_null(r);
    n = fread(buf, 1, sizeof buf - 1, r);
    buf[n] = '\0';
    fclose(r);
    remove("/tmp/li_resume_report.txt");
    cr_assert(strstr(buf, "1 function is reachable") != NULL, "%s", buf);
    cr_assert(strstr(buf, "function hidden() end") != NULL, "%s", buf);
    cr_assert(strstr(buf, "luainstr_wrap.h") != NULL, "%s", buf);
  }
  lua_close(L);
}

/* Nothing instrumented at all: the report says why it is empty. */
Test(loaders, report_says_when_nothing_was_instrumented) {
  lua_State *L;
  li_profile p;
  use_plain = 0;
  L = state(0);
  cr_assert_eq(plain_loadstring(L, "local x = 1"), LUA_OK);
  lua_pcall(L, 0, 0, 0);
  snap(L, &p);
  cr_assert_eq(p.nfuncs, 0);
  cr_assert_not_null(p.warnings);
  cr_assert(strstr(p.warnings, "no chunk went through") != NULL, "%s", p.warnings);
  cr_assert(strstr(p.warnings, "luainstr_wrap.h") != NULL, "%s", p.warnings);
  li_snapshot_free(&p);
  lua_close(L);
}

/* ---- options in any order ------------------------------------------------- */

/* Every option can be set before luainstr_open: kept and applied at open. */
Test(options, every_option_before_open) {
  static const char *const opts[][2] = {
    {"frames", "on"}, {"memory", "on"}, {"trace", "1000"}, {"spike_ms", "1"},
    {"spike_factor", "3"}, {"spikes", "4"}, {"include", "*"},
    {"exclude", "nothing*"}, {"probe", "api"}, {"extraspace", "on"},
  };
  lua_State *L = luaL_newstate();
  li_profile p;
  luaL_openlibs(L);
  vtime = 1000000;
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    cr_assert_eq(luainstr_set_option(L, opts[i][0], opts[i][1]), LUAINSTR_OK,
                 "%s: %s", opts[i][0], luainstr_errmsg(L));
  cr_assert_eq(luainstr_set_clock(L, "virtual", vclock, NULL, 1.0), LUAINSTR_OK);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  luainstr_install_hooks();
  lua_register(L, "spin", l_spin);
  run(L, "local p = require 'luainstr'\n"
         "local function f() local t = {} for i = 1, 100 do t[i] = {} end end\n"
         "for i = 1, 5 do f(); spin(1000000); p.frame() end\n");
  snap(L, &p);
  cr_assert_eq(p.nframes, 5);
  cr_assert(p.memory);
  cr_assert_geq(func(&p, "local f")->mem.alloc_count, 500);
  cr_assert(p.tracing);
  cr_assert_gt(p.nevents, 0);
  cr_assert_str_eq(p.probe, "api");
  cr_assert_eq(p.spike_keep, 4);
  li_snapshot_free(&p);
  lua_close(L);
}

/* What can no longer change says so with LUAINSTR_EORDER and a message. */
Test(options, too_late_says_why) {
  lua_State *L;
  use_plain = 0;
  L = state(0);
  run(L, "local x = 1");
  cr_assert_eq(luainstr_set_option(L, "probe", "api"), LUAINSTR_EORDER);
  cr_assert(strstr(luainstr_errmsg(L), "probe") != NULL, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_set_option(L, "extraspace", "off"), LUAINSTR_EORDER);
  cr_assert_eq(luainstr_set_clock(L, "x", vclock, NULL, 1.0), LUAINSTR_EORDER);
  cr_assert(strstr(luainstr_errmsg(L), "clock") != NULL, "%s", luainstr_errmsg(L));
  /* and what can change after open does */
  cr_assert_eq(luainstr_set_option(L, "frames", "on"), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_option(L, "memory", "on"), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_option(L, "trace", "off"), LUAINSTR_OK);
  lua_close(L);
}

/* coroutine.close runs the coroutine's pending __close handlers in the
** coroutine: they nest under the function that closed it, and the
** profiler is told (no warning). */
Test(resume, close_handlers_nest_under_the_closer) {
  lua_State *L;
  li_profile p;
  const char *parent;
  use_plain = 0;
  L = state(0);
  run(L, "function handler() spin(2000000) end\n"
         "local co = coroutine.create(function()\n"
         "  local v <close> = setmetatable({}, {__close = function() handler() end})\n"
         "  coroutine.yield() end)\n"
         "coroutine.resume(co)\n"
         "function closer() spin(1000000); coroutine.close(co) end\n"
         "closer()\n");
  snap(L, &p);
  node(&p, "handler", &parent);
  cr_assert_str_eq(parent, "__close");
  node(&p, "__close", &parent);
  cr_assert_str_eq(parent, "closer");
  cr_assert_eq(li_prof_get(L)->unseen, 0);
  NEAR(func(&p, "closer")->total_ns, 3, "closer total");
  li_snapshot_free(&p);
  lua_close(L);
}

/* The first release's switch: install_loadbufferx_hook given the
** profiler's loader turns every route on; given another loader, only
** luaL_loadbufferx's; uninstalling puts Lua's functions back. */
static int loads_seen;
static int counting_loader(lua_State *L, const char *b, size_t sz,
                           const char *name, const char *mode) {
  loads_seen++;
  return luainstr_loadbufferx(L, b, sz, name, mode);
}

Test(loaders, install_loadbufferx_hook_compat) {
  lua_State *L;
  li_profile p;
  use_plain = 0;
  L = state(0);
  luainstr_uninstall_loadbufferx_hook();
  cr_assert_eq(luaL_dostring(L, "function a() end a()"), LUA_OK);    /* Lua's */
  luainstr_install_loadbufferx_hook(luainstr_loadbufferx);
  cr_assert_eq(luaL_dostring(L, "function b() end b()"), LUA_OK);    /* routed */
  loads_seen = 0;
  luainstr_uninstall_hooks();
  luainstr_install_loadbufferx_hook(counting_loader);
  cr_assert_eq(luaL_loadbuffer(L, "function c() end c()", 20, "=c"), LUA_OK);
  cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK);
  cr_assert_eq(luaL_dostring(L, "function d() end d()"), LUA_OK);    /* Lua's */
  cr_assert_eq(loads_seen, 1);
  snap(L, &p);
  for (uint32_t i = 0; i < p.nfuncs; i++)
    cr_assert(strcmp(p.funcs[i].name, "a") != 0 && strcmp(p.funcs[i].name, "d") != 0,
              "%s measured", p.funcs[i].name);
  cr_assert_eq(func(&p, "b")->calls, 1);
  cr_assert_eq(func(&p, "c")->calls, 1);
  li_snapshot_free(&p);
  luainstr_install_hooks();
  lua_close(L);
}
