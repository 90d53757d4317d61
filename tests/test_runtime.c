/*
** test_runtime.c -- Criterion tests of the runtime through the C API:
** attaching to a fresh state, the instrumenting loader and the swappable
** loader hook, dumps, misuse codes, lua_close with instrumented
** finalizers, include/exclude patterns, luainstr_pcall,
** and the call tree of a tail call (through the profile model).
** The timing tests with known answers are Lua programs: tests/runtime/;
** two states in two threads: test_threads.c.
*/
#define _POSIX_C_SOURCE 200809L  /* mkdtemp */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"
#include "rewrite.h"

/* ---- helpers ------------------------------------------------------------ */

static lua_State *fresh(void) {
  lua_State *L = luaL_newstate();
  cr_assert_not_null(L);
  luaL_openlibs(L);
  return L;
}

static lua_State *profiled(void) {
  lua_State *L = fresh();
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  return L;
}

/* Load src as chunk `name` with loader and run it; fails the test on error. */
static void run_with(lua_State *L, luainstr_loader loader, const char *src,
                     const char *name) {
  int st = loader(L, src, strlen(src), name, "t");
  cr_assert_eq(st, LUA_OK, "load %s: %s", name, lua_tostring(L, -1));
  st = lua_pcall(L, 0, 0, 0);
  cr_assert_eq(st, LUA_OK, "run %s: %s", name, lua_tostring(L, -1));
}

/* The report in csv, through the Lua API: require("luainstr").dump("csv").
** Returns a malloc'd copy. */
static char *csv_of(lua_State *L) {
  const char *s;
  char *copy;
  int st = luaL_dostring(L, "return require('luainstr').dump('csv')");
  cr_assert_eq(st, LUA_OK, "dump: %s", lua_tostring(L, -1));
  s = lua_tostring(L, -1);
  cr_assert_not_null(s, "dump returned no string");
  copy = strdup(s);
  lua_pop(L, 1);
  return copy;
}

/* Calls (and errors) of the row "name,source,..." in a csv report: -1 if
** there is no such row. */
static long long row_field(const char *csv, const char *name, const char *source,
                           int col) {
  char head[512];
  snprintf(head, sizeof head, "\n%s,%s,", name, source);
  const char *r = strstr(csv, head);
  if (r == NULL) return -1;
  r += strlen(head);                       /* at line */
  for (int c = 2; c < col; c++) r = strchr(r, ',') + 1;
  return strtoll(r, NULL, 10);
}
#define CALLS 4                            /* column indexes, 0-based */
#define ERRORS 9

static long long calls_of(const char *csv, const char *name, const char *source) {
  return row_field(csv, name, source, CALLS);
}

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  char *p;
  long n;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  p = malloc((size_t)n + 1);
  if (fread(p, 1, (size_t)n, f) != (size_t)n) n = 0;
  p[n] = '\0';
  fclose(f);
  return p;
}

static const char loop_src[] =
  "local function f() end\n"
  "for _ = 1, (... or 3) do f() end\n";

/* ---- attaching, loading, dumping ---------------------------------------- */

Test(runtime, open_load_and_dump_to_file) {
  lua_State *L = profiled();
  char dir[] = "/tmp/li-test-runtime.XXXXXX", path[64];
  char *csv;
  run_with(L, luainstr_loadbufferx, loop_src, "=direct");
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/r.csv", dir);
  cr_assert_eq(luainstr_dump(L, "csv", path), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  csv = read_all(path);
  cr_assert_not_null(csv);
  cr_assert(strncmp(csv, "name,source,line,lastline,calls,", 32) == 0, "%s", csv);
  cr_assert_eq(calls_of(csv, "local f", "direct"), 3, "%s", csv);
  cr_assert_eq(calls_of(csv, "main chunk", "direct"), 1, "%s", csv);
  cr_assert_eq(luainstr_dump(L, "text", path), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  free(csv);
  csv = read_all(path);
  cr_assert(strstr(csv, "local f") != NULL, "%s", csv);
  free(csv);
  unlink(path);
  cr_assert_eq(rmdir(dir), 0, "a temporary file was left in %s", dir);
  lua_close(L);
}

Test(runtime, loader_hook_instruments_and_uninstalls) {
  lua_State *L = profiled();
  char *csv;
  luainstr_install_loadbufferx_hook(luainstr_loadbufferx);
  run_with(L, wrap_luaL_loadbufferx, loop_src, "=hooked");
  luainstr_uninstall_loadbufferx_hook();
  run_with(L, wrap_luaL_loadbufferx, loop_src, "=plain");
  csv = csv_of(L);
  cr_assert_eq(calls_of(csv, "local f", "hooked"), 3, "%s", csv);
  cr_assert_eq(calls_of(csv, "local f", "plain"), -1, "%s", csv);
  free(csv);
  lua_close(L);
}

Test(runtime, lua_loaders_go_through_the_profiler) {
  lua_State *L = profiled();
  char *csv;
  cr_assert_eq(luaL_dostring(L,
    "load('local function g() end g() g()', '=via load')()"), LUA_OK,
    "%s", lua_tostring(L, -1));
  csv = csv_of(L);
  cr_assert_eq(calls_of(csv, "local g", "via load"), 2, "%s", csv);
  free(csv);
  lua_close(L);
}

/* ---- misuse ------------------------------------------------------------- */

Test(runtime, misuse_codes) {
  lua_State *L = profiled();
  cr_assert_eq(luainstr_start(L), LUAINSTR_EORDER);
  cr_assert(strstr(luainstr_errmsg(L), "start") != NULL, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_enable(L), LUAINSTR_EORDER);
  cr_assert_eq(luainstr_disable(L), LUAINSTR_OK);
  cr_assert_eq(luainstr_disable(L), LUAINSTR_EORDER);
  cr_assert_eq(luainstr_enable(L), LUAINSTR_OK);
  cr_assert_eq(luainstr_stop(L), LUAINSTR_OK);
  cr_assert_eq(luainstr_stop(L), LUAINSTR_EORDER);
  cr_assert(strstr(luainstr_errmsg(L), "stop") != NULL, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_dump(L, "xml", "/dev/null"), LUAINSTR_EARG);
  cr_assert(strstr(luainstr_errmsg(L), "xml") != NULL &&
            strstr(luainstr_errmsg(L), "csv") != NULL, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_set_option(L, "bogus", "x"), LUAINSTR_EARG);
  cr_assert(strstr(luainstr_errmsg(L), "bogus") != NULL, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_set_option(L, "include", NULL), LUAINSTR_EARG);
  cr_assert_eq(luainstr_dump(L, "csv", "/nonexistent-li-dir/x.csv"), LUAINSTR_EIO);
  cr_assert_eq(luainstr_dump(L, "csv", "/dev/null"), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_start(L), LUAINSTR_OK);
  cr_assert_eq(luainstr_reset(L), LUAINSTR_OK);
  cr_assert_eq(luainstr_close(L), LUAINSTR_OK);
  cr_assert_eq(luainstr_stop(L), LUAINSTR_EORDER);   /* close stopped it */
  lua_close(L);
}

Test(runtime, no_profiler_means_eorder) {
  lua_State *L = fresh();
  cr_assert_eq(luainstr_start(L), LUAINSTR_EORDER);
  cr_assert_eq(luainstr_stop(L), LUAINSTR_EORDER);
  cr_assert_eq(luainstr_enable(L), LUAINSTR_EORDER);
  cr_assert_eq(luainstr_disable(L), LUAINSTR_EORDER);
  cr_assert_eq(luainstr_reset(L), LUAINSTR_EORDER);
  cr_assert_eq(luainstr_dump(L, "csv", "/dev/null"), LUAINSTR_EORDER);
  cr_assert_eq(luainstr_close(L), LUAINSTR_EORDER);
  cr_assert_not_null(luainstr_errmsg(L));
  cr_assert_gt(strlen(luainstr_errmsg(L)), 0);
  cr_assert_null(luainstr_errmsg(NULL));
  /* the loader still loads (nothing to attribute to) */
  run_with(L, luainstr_loadbufferx, loop_src, "=unprofiled");
  cr_assert_eq(lua_gettop(L), 0);
  lua_close(L);
}

Test(runtime, dump_before_start_via_lua_api) {
  lua_State *L = fresh();
  luaL_requiref(L, "luainstr", luaopen_luainstr, 0);
  lua_pop(L, 1);
  cr_assert_eq(luaL_dostring(L,
    "local p = require 'luainstr'\n"
    "local a, b = p.dump('csv')\n"
    "assert(a == nil and b:find('^luainstr: '), tostring(b))\n"
    "assert(p.stop() == nil)\n"
    "assert(not pcall(p.dump, 'xml'))\n"), LUA_OK, "%s", lua_tostring(L, -1));
  cr_assert_eq(luainstr_dump(L, "csv", "/dev/null"), LUAINSTR_EORDER);
  lua_close(L);
}

/* ---- finalizers, patterns, pcall ---------------------------------------- */

Test(runtime, lua_close_runs_instrumented_finalizers_after_stop) {
  lua_State *L = profiled();
  run_with(L, luainstr_loadbufferx,
    "local function fin(o) local t = {} for i = 1, 10 do t[i] = i end end\n"
    "local mt = {__gc = fin}\n"
    "for i = 1, 100 do _G['keep' .. i] = setmetatable({}, mt) end\n"
    "for i = 1, 100 do setmetatable({}, mt) end\n"
    "collectgarbage()\n", "=fin");
  cr_assert_eq(luainstr_stop(L), LUAINSTR_OK);
  lua_close(L);       /* 100 instrumented finalizers run now: no crash */
}

Test(runtime, include_exclude_patterns) {
  lua_State *L = profiled();
  char *csv;
  cr_assert_eq(luainstr_set_option(L, "include", "game/*"), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_option(L, "exclude", "game/vendor/*"), LUAINSTR_OK);
  run_with(L, luainstr_loadbufferx, loop_src, "@game/a.lua");
  run_with(L, luainstr_loadbufferx, loop_src, "@game/vendor/b.lua");
  run_with(L, luainstr_loadbufferx, loop_src, "=other");
  csv = csv_of(L);
  cr_assert_eq(calls_of(csv, "local f", "game/a.lua"), 3, "%s", csv);
  cr_assert_eq(calls_of(csv, "local f", "game/vendor/b.lua"), -1, "%s", csv);
  cr_assert_eq(calls_of(csv, "local f", "other"), -1, "%s", csv);
  free(csv);
  cr_assert_eq(luainstr_set_option(L, "clear_patterns", NULL), LUAINSTR_OK);
  run_with(L, luainstr_loadbufferx, loop_src, "=other");
  csv = csv_of(L);
  cr_assert_eq(calls_of(csv, "local f", "other"), 3, "%s", csv);
  free(csv);
  lua_close(L);
}

Test(runtime, luainstr_pcall_closes_frames_after_an_error) {
  lua_State *L = profiled();
  char *csv;
  const char *src =
    "local function boom() error({}) end\n"
    "local function mid() boom() end\n"
    "return mid\n";
  cr_assert_eq(luainstr_loadbufferx(L, src, strlen(src), "=pc", "t"), LUA_OK);
  cr_assert_eq(lua_pcall(L, 0, 1, 0), LUA_OK);
  lua_setglobal(L, "mid");
  lua_getglobal(L, "mid");
  cr_assert_eq(luainstr_pcall(L, 0, 0, 0), LUA_ERRRUN);
  lua_pop(L, 1);
  /* the profile is balanced: a later call is a fresh outermost one */
  lua_getglobal(L, "mid");
  cr_assert_eq(luainstr_pcall(L, 0, 0, 0), LUA_ERRRUN);
  lua_pop(L, 1);
  csv = csv_of(L);
  cr_assert_eq(row_field(csv, "local boom", "pc", CALLS), 2, "%s", csv);
  cr_assert_eq(row_field(csv, "local boom", "pc", ERRORS), 2, "%s", csv);
  cr_assert_eq(row_field(csv, "local mid", "pc", ERRORS), 2, "%s", csv);
  free(csv);
  /* nothing left open on the main stack */
  cr_assert_eq(li_prof_get(L)->main.n, 0);
  lua_close(L);
}

/* ---- the call tree of a tail call --------------------------------------- */

static uint32_t node_of(const li_profile *p, const char *name) {
  uint32_t found = UINT32_MAX;
  for (uint32_t i = 1; i < p->nnodes; i++)
    if (strcmp(p->funcs[p->nodes[i].func].name, name) == 0) {
      cr_assert_eq(found, UINT32_MAX, "two nodes for %s", name);
      found = i;
    }
  cr_assert_neq(found, UINT32_MAX, "no node for %s", name);
  return found;
}

Test(runtime, tail_callee_hangs_under_the_callers_caller) {
  lua_State *L = profiled();
  li_profile prof;
  run_with(L, luainstr_loadbufferx,
    "local function g() end\n"
    "local function f() return g() end\n"
    "local function h() f() end\n"
    "h()\n", "=tail");
  cr_assert_eq(li_snapshot(li_prof_get(L), &prof), 0);
  uint32_t g = node_of(&prof, "local g"), f = node_of(&prof, "local f"),
           h = node_of(&prof, "local h");
  cr_assert_eq(prof.nodes[f].parent, h);
  cr_assert_eq(prof.nodes[g].parent, h, "g's parent is %s",
               prof.funcs[prof.nodes[prof.nodes[g].parent].func].name);
  li_snapshot_free(&prof);
  lua_close(L);
}

/* ---- the probe handed over by the loader (issue 9) ---------------------- */

typedef struct cbuf { char *p; size_t n; } cbuf;

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud) {
  cbuf *b = ud;
  (void)L;
  b->p = realloc(b->p, b->n + sz);
  cr_assert_not_null(b->p);
  memcpy(b->p + b->n, p, sz);
  b->n += sz;
  return 0;
}

/* A chunk loaded through the hook keeps working while a sandbox has
** removed the string metatable, and is measured: the probe is its upvalue,
** not something the chunk fetches. */
Test(runtime, loaded_chunk_runs_without_the_string_metatable) {
  lua_State *L = profiled();
  const char *src = "local function inner(x) return x * 2 end\n"
                    "return inner(21)\n";
  cr_assert_eq(luainstr_loadbufferx(L, src, strlen(src), "@sandboxed.lua", "t"), LUA_OK);
  lua_pushliteral(L, "");
  lua_pushnil(L);
  lua_setmetatable(L, -2);            /* what pl.pretty.read does */
  lua_pop(L, 1);
  cr_assert_eq(lua_pcall(L, 0, 1, 0), LUA_OK, "%s", lua_tostring(L, -1));
  cr_assert_eq(lua_tointeger(L, -1), 42);
  lua_pop(L, 1);
  luaL_requiref(L, "string", luaopen_string, 0);   /* the metatable back */
  lua_pop(L, 1);
  char *csv = csv_of(L);
  cr_expect_eq(calls_of(csv, "local inner", "sandboxed.lua"), 1, "%s", csv);
  cr_expect_eq(calls_of(csv, "main chunk", "sandboxed.lua"), 1, "%s", csv);
  free(csv);
  lua_close(L);
}

/* string.dump of an instrumented function, loaded through the hook in
** another state that has a profiler, stripped or not: it runs as the
** original would (its probe does nothing there). */
Test(runtime, dumped_function_loads_in_another_profiled_state) {
  lua_State *A = profiled(), *B = profiled();
  const char *src = "local k = 10\n"
                    "local function noup(a, b) return a * b + 1 end\n"
                    "local function withenv(s) return string.rep(s, 2) end\n"
                    "return noup, withenv\n";
  const char *fn_names[2] = { "noup", "withenv" };
  luainstr_install_loadbufferx_hook(luainstr_loadbufferx);
  cr_assert_eq(wrap_luaL_loadbufferx(A, src, strlen(src), "@dumped.lua", "t"), LUA_OK);
  cr_assert_eq(lua_pcall(A, 0, 2, 0), LUA_OK, "%s", lua_tostring(A, -1));
  for (int strip = 0; strip <= 1; strip++) {
    for (int f = 0; f < 2; f++) {
      cbuf b = {NULL, 0};
      lua_pushvalue(A, f == 0 ? -2 : -1);
      cr_assert_eq(lua_dump(A, dump_writer, &b, strip), 0);
      lua_pop(A, 1);
      cr_assert_eq(wrap_luaL_loadbufferx(B, b.p, b.n, fn_names[f], "b"), LUA_OK,
                   "%s", lua_tostring(B, -1));
      free(b.p);
      if (f == 0) { lua_pushinteger(B, 6); lua_pushinteger(B, 7); }
      else lua_pushliteral(B, "ab");
      cr_assert_eq(lua_pcall(B, f == 0 ? 2 : 1, 1, 0), LUA_OK,
                   "strip %d %s: %s", strip, fn_names[f], lua_tostring(B, -1));
      if (f == 0) cr_expect_eq(lua_tointeger(B, -1), 43);
      else cr_expect_str_eq(lua_tostring(B, -1), "abab");
      lua_pop(B, 1);
    }
  }
  luainstr_uninstall_loadbufferx_hook();
  lua_close(A);
  lua_close(B);
}

/* ---- the clock ---------------------------------------------------------- */

/* A (CLOCK_MONOTONIC ns, TSC) pair read as tightly as this test can: the
** monotonic read between two TSC reads, the narrowest of a few tries. */
static void tight_pair(const li_clock *c, uint64_t *ns, uint64_t *ticks) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 8; i++) {
    uint64_t a = li_clock_ticks(c), n = li_clock_mono_ns(), b = li_clock_ticks(c);
    if (b - a < best) { best = b - a; *ns = n; *ticks = a + (b - a) / 2; }
  }
}

/* The tick length is known after the short calibration a short run gets
** (start-up pays for it; its cost is measured by instructions in
** tests/luaprof/run_tests.sh, not by a timer here), and known well: within
** 1e-4 of the length measured over 200 ms.  On an idle machine the error is
** some 1e-6; under CI's parallel load it reached 1.0e-5 (stop 16's CI
** failed there), the reference itself being no better (a preempted vCPU
** between the reads of a pair, NTP slewing CLOCK_MONOTONIC).  1e-4 is 1 us
** in a 10 ms run, and ten times finer than what single pairs read over the
** same 1 ms give (1.3e-3 on average, 3e-2 at worst, in 40 tries on the
** test machine under load; narrowest of 5: 3e-6, 6e-6 at worst), so it
** fails when the calibration loses its narrowest-pair reads. */
Test(clock, short_calibration_is_exact) {
  li_clock c;
  uint64_t ns0, tk0, ns1, tk1;
  struct timespec pause = {0, 200000000};
  li_clock_init(&c);
  if (!c.tsc) cr_skip_test("no invariant TSC: ticks are nanoseconds");
  li_clock_calibrate(&c);
  tight_pair(&c, &ns0, &tk0);
  nanosleep(&pause, NULL);
  tight_pair(&c, &ns1, &tk1);
  double ref = (double)(ns1 - ns0) / (double)(tk1 - tk0);
  double err = c.ns_per_tick / ref - 1;
  cr_expect(err < 1e-4 && err > -1e-4, "ns per tick %.9f, over 200 ms %.9f (error %.1e)",
            c.ns_per_tick, ref, err);
}

/* ---- names of any bytes, chunk names of any length ---------------------- */

/* Run src in L twice: through the loader (its own form) and as luainstr
** writes it (offline form: the prologue calls the factory with the
** descriptor), under the chunk names name1 and name2. */
static void run_both_forms(lua_State *L, const char *src, size_t len,
                           const char *name1, const char *name2) {
  li_rewrite_opts o;
  li_rewrite_result r;
  cr_assert_eq(luainstr_loadbufferx(L, src, len, name1, "t"), LUA_OK, "%s", lua_tostring(L, -1));
  cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK, "%s", lua_tostring(L, -1));
  memset(&o, 0, sizeof o);
  o.chunkname = name2;
  cr_assert_eq(li_rewrite(src, len, &o, &r), LI_OK, "%s", r.errmsg);
  cr_assert_eq(luaL_loadbufferx(L, r.out, r.outlen, name2, "t"), LUA_OK, "%s", lua_tostring(L, -1));
  li_rewrite_free(&r);
  cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK, "%s", lua_tostring(L, -1));
}

/* A table key holding a NUL byte names a function: it is measured, under
** its name with the NUL written \0, in both forms (the descriptor broke on
** it: the chunk ran unprofiled). */
Test(runtime, function_name_with_a_nul_byte) {
  static const char src[] = "local u = {[\"e\0f\"] = function() return 3 end}\n"
                            "assert(u[\"e\\0f\"]() == 3)\n";
  lua_State *L = profiled();
  run_both_forms(L, src, sizeof src - 1, "@nul_loader.lua", "@nul_offline.lua");
  char *csv = csv_of(L);
  cr_expect_eq(calls_of(csv, "\"[\"\"e\\0f\"\"]\"", "nul_loader.lua"), 1, "%s", csv);
  cr_expect_eq(calls_of(csv, "\"[\"\"e\\0f\"\"]\"", "nul_offline.lua"), 1, "%s", csv);
  cr_expect_eq(calls_of(csv, "main chunk", "nul_offline.lua"), 1, "%s", csv);
  free(csv);
  lua_close(L);
}

/* Two chunks whose names share their first 300 bytes are two chunks (names
** were cut at 256 bytes and merged), and a long name works in the
** prologue's descriptor too. */
Test(runtime, long_chunk_names_stay_distinct) {
  static const char src[] = "local function f() end\nf()\n";
  char a[400], b[400], c[400], d[400];
  char prefix[301];
  memset(prefix, 'p', 300);
  prefix[300] = '\0';
  snprintf(a, sizeof a, "@%s/one.lua", prefix);
  snprintf(b, sizeof b, "@%s/two.lua", prefix);
  snprintf(c, sizeof c, "@%s/three.lua", prefix);
  snprintf(d, sizeof d, "@%s/four.lua", prefix);
  lua_State *L = profiled();
  run_both_forms(L, src, sizeof src - 1, a, c);
  run_both_forms(L, src, sizeof src - 1, b, d);
  char *csv = csv_of(L);
  const char *names[4] = { a, b, c, d };
  for (int i = 0; i < 4; i++) {
    cr_expect_eq(calls_of(csv, "local f", names[i] + 1), 1, "%s: %s", names[i] + 300, csv);
    cr_expect_eq(calls_of(csv, "main chunk", names[i] + 1), 1, "%s", names[i] + 300);
  }
  free(csv);
  lua_close(L);
}

/* The profiler keeps a thread's stack in the thread's extra space
** (lua_getextraspace), but never over a host's value, and never reads a
** value it did not write: a host's pointers (here ones that would crash if
** followed) stay as they were, and the figures are right. */
static int set_extraspace(lua_State *L) {
  lua_State *co = lua_tothread(L, 1);
  void *v = (void *)(uintptr_t)luaL_checkinteger(L, 2);
  memcpy(lua_getextraspace(co), &v, sizeof v);
  return 0;
}

static int get_extraspace(lua_State *L) {
  lua_State *co = lua_tothread(L, 1);
  void *v;
  memcpy(&v, lua_getextraspace(co), sizeof v);
  lua_pushinteger(L, (lua_Integer)(uintptr_t)v);
  return 1;
}

Test(runtime, host_extraspace_kept) {
  lua_State *L = fresh();
  void *mine = (void *)(uintptr_t)0x1230, *now;
  char *csv;
  memcpy(lua_getextraspace(L), &mine, sizeof mine);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  lua_register(L, "set_extraspace", set_extraspace);
  lua_register(L, "get_extraspace", get_extraspace);
  run_with(L, luainstr_loadbufferx,
           "local function body() for i = 1, 3 do coroutine.yield(i) end end\n"
           "local co = coroutine.create(body)\n"
           "assert(get_extraspace(co) == 0x1230, 'a copy of the main thread')\n"
           "set_extraspace(co, 0x5670)\n"
           "for _ = 1, 4 do assert(coroutine.resume(co)) end\n"
           "assert(get_extraspace(co) == 0x5670, 'the host value of a coroutine')\n"
           "local w = coroutine.wrap(body)\n"
           "for _ = 1, 3 do w() end\n"
           "assert(get_extraspace(co) == 0x5670)\n", "=xs");
  memcpy(&now, lua_getextraspace(L), sizeof now);
  cr_assert_eq(now, mine, "the host's value of the main thread");
  csv = csv_of(L);
  cr_assert_eq(calls_of(csv, "local body", "xs"), 2, "%s", csv);
  free(csv);
  lua_close(L);
}

/* A host that fills a NULL extra space itself (lazily) says "extraspace"
** "off": the profiler then never writes there, and gives back the main
** thread's, which it had written when it attached. */
static int thread_extraspace(lua_State *L) {
  void *v;
  memcpy(&v, lua_getextraspace(L), sizeof v);   /* the running thread's */
  lua_pushinteger(L, (lua_Integer)(uintptr_t)v);
  return 1;
}

Test(runtime, host_extraspace_off) {
  lua_State *L = fresh();
  void *now = NULL;
  char *csv;
  /* (Lua leaves the main thread's uninitialised: a host that fills it
  ** lazily has set it to NULL first) */
  memcpy(lua_getextraspace(L), &now, sizeof now);
  cr_expect_eq(luainstr_set_option(L, "extraspace", "maybe"), LUAINSTR_EARG);
  memcpy(&now, lua_getextraspace(L), sizeof now);
  cr_assert_not_null(now, "attached: the profiler's stack in the main thread's");
  cr_assert_eq(luainstr_set_option(L, "extraspace", "off"), LUAINSTR_OK, "%s",
               luainstr_errmsg(L));
  memcpy(&now, lua_getextraspace(L), sizeof now);
  cr_assert_null(now, "the main thread's extra space given back");
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  cr_expect_eq(luainstr_set_option(L, "extraspace", "on"), LUAINSTR_EORDER);
  lua_register(L, "get_extraspace", get_extraspace);
  lua_register(L, "thread_extraspace", thread_extraspace);
  run_with(L, luainstr_loadbufferx,
           "local function body()\n"
           "  for i = 1, 3 do\n"
           "    assert(thread_extraspace() == 0, 'inside, untouched')\n"
           "    coroutine.yield(i)\n"
           "  end\n"
           "end\n"
           "local co = coroutine.create(body)\n"
           "for _ = 1, 4 do assert(coroutine.resume(co)) end\n"
           "assert(get_extraspace(co) == 0, 'a coroutine, untouched')\n"
           "local w = coroutine.wrap(body)\n"
           "for _ = 1, 3 do w() end\n"
           "assert(thread_extraspace() == 0, 'the main thread, untouched')\n", "=xs");
  memcpy(&now, lua_getextraspace(L), sizeof now);
  cr_assert_null(now, "the main thread's extra space after the run");
  csv = csv_of(L);
  cr_expect_eq(calls_of(csv, "local body", "xs"), 2,
               "body's calls through the registry's stacks: %s", csv);
  free(csv);
  lua_close(L);
}

/* ---- the probe's variants (option "probe") ------------------------------ */

/* The variant this build gives by default (LUAINSTR_PROBE, set by the
** ctest entries of the other variants, first). */
static const char *default_probe(void) {
  const char *e = getenv("LUAINSTR_PROBE");
  if (e != NULL && (strcmp(e, "api") == 0 ||
                    (strcmp(LI_TEST_PROBE_DEFAULT, "fast") == 0 &&
                     (strcmp(e, "direct") == 0 || strcmp(e, "fast") == 0))))
    return e;
  return LI_TEST_PROBE_DEFAULT;
}

/* The JSON report's "probe" and the calls of `local f` of loop_src. */
static void check_probe_report(lua_State *L, const char *want, long long calls) {
  char *json, *csv;
  char field[64];
  cr_assert_eq(luaL_dostring(L, "return require('luainstr').dump('json')"), LUA_OK,
               "%s", lua_tostring(L, -1));
  json = strdup(lua_tostring(L, -1));
  lua_pop(L, 1);
  snprintf(field, sizeof field, "\"probe\": \"%s\"", want);
  cr_expect(strstr(json, field) != NULL, "want %s: %s", field, json);
  free(json);
  csv = csv_of(L);
  cr_expect_eq(calls_of(csv, "local f", "v"), calls, "%s", csv);
  free(csv);
}

Test(runtime, probe_variant_by_default) {
  lua_State *L = profiled();
  li_prof *P = li_prof_get(L);
  cr_assert_not_null(P);
  /* Lua's structures pass their check exactly when the build read Lua's
  ** headers (LUAINSTR_LUA_INTERNALS) */
  cr_expect_eq(P->direct_ok, strcmp(LI_TEST_PROBE_DEFAULT, "fast") == 0,
               "direct_ok %d, why: %s", P->direct_ok,
               P->direct_why ? P->direct_why : "-");
  run_with(L, luainstr_loadbufferx, loop_src, "=v");
  check_probe_report(L, default_probe(), 3);
  lua_close(L);
}

Test(runtime, probe_option_each_variant) {
  static const char *kinds[] = {"api", "direct", "fast"};
  for (int k = 0; k < 3; k++) {
    lua_State *L = fresh();
    int st = luainstr_set_option(L, "probe", kinds[k]);   /* attaches */
    if (k > 0 && strcmp(LI_TEST_PROBE_DEFAULT, "api") == 0) {
      /* no direct variant in this build: refused, with the reason */
      cr_expect_eq(st, LUAINSTR_EARG);
      cr_expect(strstr(luainstr_errmsg(L), "headers") != NULL, "%s", luainstr_errmsg(L));
      lua_close(L);
      continue;
    }
    cr_assert_eq(st, LUAINSTR_OK, "%s: %s", kinds[k], luainstr_errmsg(L));
    cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
    lua_pushinteger(L, 1000);
    lua_setglobal(L, "N");
    run_with(L, luainstr_loadbufferx,
             "local function f() end\nfor _ = 1, N do f() end\n", "=v");
    check_probe_report(L, kinds[k], 1000);
    lua_close(L);
  }
}

Test(runtime, probe_option_refused_late_or_bad) {
  lua_State *L = fresh();
  cr_expect_eq(luainstr_set_option(L, "probe", "quick"), LUAINSTR_EARG);
  cr_expect(strstr(luainstr_errmsg(L), "fast, direct or api") != NULL, "%s", luainstr_errmsg(L));
  cr_expect_eq(luainstr_set_option(L, "probe", NULL), LUAINSTR_EARG);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  /* after the first start: the calibration measured the probe chunks get */
  cr_expect_eq(luainstr_set_option(L, "probe", "api"), LUAINSTR_EORDER);
  cr_expect(strstr(luainstr_errmsg(L), "before luainstr_open") != NULL, "%s",
            luainstr_errmsg(L));
  run_with(L, luainstr_loadbufferx, loop_src, "=v");
  check_probe_report(L, default_probe(), 3);
  lua_close(L);
  /* after a chunk was loaded, even before the first start */
  L = fresh();
  cr_assert_eq(luainstr_set_option(L, "probe", "api"), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_loadbufferx(L, loop_src, sizeof loop_src - 1, "=w", "t"), LUA_OK);
  lua_pop(L, 1);
  cr_expect_eq(luainstr_set_option(L, "probe", "api"), LUAINSTR_EORDER);
  lua_close(L);
}

/* debug.setupvalue can put anything in a probe's upvalues.  With anything
** but its chunk map in upvalue 1 the probe measures nothing and returns
** the values it is given (it crashed on a string, and read the memory of
** any userdata as a map); with the map back it measures again.  Its
** upvalue 2, the profiler, only keeps the profiler alive: nil there and a
** collection change nothing.  Each variant of the probe. */
static const char tamper_src[] =
  "local function f(x) return x + 1 end\n"
  "local name, probe = debug.getupvalue(f, 1)\n"
  "assert(name == '__LI', name)\n"
  "local _, map = debug.getupvalue(probe, 1)\n"
  "local _, prof = debug.getupvalue(probe, 2)\n"
  "assert(type(map) == 'userdata' and type(prof) == 'userdata')\n"
  "local bad = {'oops', 42, 2^53, false, io.stdout, prof, probe, print, {},\n"
  "             coroutine.create(f)}\n"
  "for i = 0, #bad do                       -- bad[0]: nil\n"
  "  debug.setupvalue(probe, 1, bad[i])\n"
  "  assert(f(1) == 2 and select('#', f(1)) == 1)\n"
  "  assert(coroutine.wrap(function() return f(2) end)() == 3)\n"
  "end\n"
  "debug.setupvalue(probe, 1, map)\n"
  "for _ = 1, 5 do assert(f(1) == 2) end\n"
  "debug.setupvalue(probe, 2, nil)\n"
  "collectgarbage()\n"
  "for _ = 1, 3 do assert(f(1) == 2) end\n";

Test(runtime, probe_upvalues_replaced) {
  static const char *kinds[] = {"api", "direct", "fast"};
  for (int k = 0; k < 3; k++) {
    lua_State *L = fresh();
    char *csv;
    if (k > 0 && strcmp(LI_TEST_PROBE_DEFAULT, "api") == 0) { lua_close(L); continue; }
    cr_assert_eq(luainstr_set_option(L, "probe", kinds[k]), LUAINSTR_OK, "%s: %s",
                 kinds[k], luainstr_errmsg(L));
    cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
    run_with(L, luainstr_loadbufferx, tamper_src, "=u");
    csv = csv_of(L);
    cr_expect_eq(calls_of(csv, "local f", "u"), 8, "probe %s: %s", kinds[k], csv);
    cr_expect_eq(calls_of(csv, "main chunk", "u"), 1, "probe %s: %s", kinds[k], csv);
    free(csv);
    lua_close(L);
  }
}

/* ---- a thread made where a collected one was (issue 18) ----------------- */

/* An allocator that hands a new thread the block of the thread freed last,
** so that a coroutine is made at the address of one just collected, as
** malloc often does, but every time.  Lua tells a new object's type in
** osize (LUA_TTHREAD); the blocks of live threads are remembered to know
** a thread's block when it is freed. */
typedef struct reuse_alloc {
  void *live[64];       /* blocks of the coroutines alive */
  int nlive;
  void *kept;           /* the block of the thread freed last, not freed */
  size_t kept_size;
  int reused;           /* new threads given a kept block */
} reuse_alloc;

static void *reuse_allocf(void *ud, void *ptr, size_t osize, size_t nsize) {
  reuse_alloc *a = ud;
  if (nsize == 0) {
    for (int i = 0; ptr != NULL && i < a->nlive; i++)
      if (a->live[i] == ptr) {
        a->live[i] = a->live[--a->nlive];
        free(a->kept);
        a->kept = ptr;
        a->kept_size = osize;
        return NULL;
      }
    free(ptr);
    return NULL;
  }
  if (ptr == NULL && osize == LUA_TTHREAD && a->nlive < 64) {
    void *p = a->kept != NULL && a->kept_size == nsize ? a->kept : malloc(nsize);
    if (p == a->kept) { a->kept = NULL; a->reused++; }
    if (p != NULL) a->live[a->nlive++] = p;
    return p;
  }
  return realloc(ptr, nsize);
}

/* The coroutines below run their body through the host's lua_resume, not
** through coroutine.resume, so nothing but their probes sees them: the
** profiler's "thread of the last probe" is the last coroutine that ran. */
static const char reuse_src[] =
  "local function c() end\n"
  "local function a() for _ = 1, 3 do c() end end\n"
  "local function b() for _ = 1, 3 do c(); coroutine.yield() end end\n"
  "function A() a() end\n"
  "function Ay() a(); coroutine.yield() end\n"
  "function B() b() end\n"
  "function As() a(); require('luainstr').stop() end\n";

static lua_State *reuse_T2;

/* __gc of an object made after the first coroutine: it runs after the
** coroutine's block was freed, before its stack is swept.  A host starts a new coroutine there. */
static int spawn_b(lua_State *L) {
  int nres;
  luainstr_start(L);            /* (stopped by As; else LUAINSTR_EORDER) */
  reuse_T2 = lua_newthread(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &reuse_T2);       /* keep it */
  lua_getglobal(reuse_T2, "B");
  cr_assert_eq(lua_resume(reuse_T2, L, 0, &nres), LUA_YIELD);
  return 0;
}

/* The first coroutine runs `body` (A: to its end; Ay: it stays suspended
** and is dropped), is collected, and a second one made at its address runs
** B: every call of B, b and c must hang under B's own root, not under the
** dead coroutine's frames nor on its stack. */
static void reuse_case(const char *body) {
  reuse_alloc a = {0};
  lua_State *L = lua_newstate(reuse_allocf, &a), *T1;
  li_profile prof;
  int nres;
  cr_assert_not_null(L);
  luaL_openlibs(L);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  run_with(L, luainstr_loadbufferx, reuse_src, "=reuse");
  T1 = lua_newthread(L);
  lua_getglobal(T1, body);
  if (strcmp(body, "As") == 0) {  /* through coroutine.resume */
    lua_getglobal(L, "coroutine");
    lua_getfield(L, -1, "resume");
    lua_pushvalue(L, -3);
    cr_assert_eq(lua_pcall(L, 1, 1, 0), LUA_OK);
    cr_assert(lua_toboolean(L, -1));
    lua_pop(L, 2);
  } else {
    nres = lua_resume(T1, L, 0, &nres);
    cr_assert_eq(nres, body[1] ? LUA_YIELD : LUA_OK);
  }
  lua_pop(L, 1);                                       /* T1 unreachable */
  lua_newtable(L);                                     /* its finalizer next */
  lua_newtable(L);
  lua_pushcfunction(L, spawn_b);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
  lua_gc(L, LUA_GCCOLLECT, 0);
  /* the block went to the new coroutine (the profiler held none), or the
  ** profiler held the old coroutine (its block kept, not reused) */
  cr_assert_eq(a.reused, (void *)reuse_T2 == (void *)T1);
  cr_assert_eq(lua_resume(reuse_T2, L, 0, &nres), LUA_YIELD);
  lua_gc(L, LUA_GCCOLLECT, 0);
  cr_assert_eq(lua_resume(reuse_T2, L, 0, &nres), LUA_YIELD);
  cr_assert_eq(lua_resume(reuse_T2, L, 0, &nres), LUA_OK);
  cr_assert_eq(li_snapshot(li_prof_get(L), &prof), 0);
  uint32_t B = node_of(&prof, "B"), b = node_of(&prof, "local b");
  uint32_t cb = UINT32_MAX, n_c = 0;
  for (uint32_t i = 1; i < prof.nnodes; i++) {
    if (strcmp(prof.funcs[prof.nodes[i].func].name, "local c") != 0) continue;
    n_c++;
    if (prof.nodes[i].parent == b) cb = i;
  }
  cr_assert_eq(prof.nodes[B].parent, 0, "B hangs under %s",
               prof.funcs[prof.nodes[prof.nodes[B].parent].func].name);
  cr_assert_eq(prof.nodes[B].calls, 1);
  cr_assert_eq(prof.nodes[b].parent, B);
  cr_assert_eq(prof.nodes[b].calls, 1);
  cr_assert_eq(prof.nodes[b].errors, 0);
  cr_assert_neq(cb, UINT32_MAX, "no node of c under b");
  cr_assert_eq(prof.nodes[cb].calls, 3);
  cr_assert_eq(n_c, 2, "c in %u contexts (under a and under b only)", n_c);
  li_snapshot_free(&prof);
  lua_close(L);
  free(a.kept);
}

Test(runtime, thread_at_a_collected_threads_address_finished) {
  reuse_case("A");
}

Test(runtime, thread_at_a_collected_threads_address_suspended) {
  reuse_case("Ay");
}

/* The coroutine stops the profiler as it ends (a resume then leaves the
** profiler's "thread of the last probe" alone); a host starts it again in
** the finalizer that makes the new coroutine. */
Test(runtime, thread_at_a_collected_threads_address_stopped) {
  reuse_case("As");
}
