/*
** test_snapshot.c -- Criterion tests of the profile model's functions when
** a chunk defines many and calls few (issue 24: a function-dense chunk).
**
** li_snapshot gives figures only to the functions that have call-tree
** nodes; the live view's li_snapshot_tally sums every function.  Both must
** say the same of each one, called or not, so a report is the same bytes
** whichever way its model was made.  Time is virtual (vtime.h), so the
** figures are exact and the two are compared field by field.
*/
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"
#include "vtime.h"

/* A chunk of n small functions (the shape of bench/load/gen.lua's dense
** chunk) of which every 37th is called, besides recursion, a coroutine
** that stays suspended and an error: the model's every kind of figure, on
** few of many functions. */
static char *dense_chunk(int n) {
  size_t cap = (size_t)n * 96 + 4096, len = 0;
  char *s = malloc(cap);
  cr_assert_not_null(s);
  len += (size_t)snprintf(s + len, cap - len,
    "local t = {}\n"
    "local function fib(k) spin(100) if k < 2 then return k end "
    "return fib(k - 1) + fib(k - 2) end\n"
    "local function leaf(x) spin(x) return x end\n"
    "local co = coroutine.create(function() leaf(7) coroutine.yield() "
    "leaf(9) end)\n");
  for (int i = 1; i <= n; i++)
    len += (size_t)snprintf(s + len, cap - len,
      "t[%d] = function(a) if a < 0 then return -a end spin(%d) "
      "return a + %d end\n", i, i % 13, i);
  snprintf(s + len, cap - len,
    "for i = 1, %d, 37 do t[i](i) t[i](-i) end\n"
    "fib(10)\n"
    "coroutine.resume(co)\n"                 /* left suspended */
    "pcall(function() leaf(3) error('x') end)\n"
    "local M = {}\n"
    "function M.z() spin(11) end\n"
    "M.z()\n", n);
  return s;
}

/* (li_snapshot_tally's figures are derived already, in ns: the model
** copies them) */
static void same_tally(const li_pfunc *o, const li_tally *t, const char *what) {
  cr_assert_eq(o->calls, t->calls, "%s: calls", what);
  cr_assert_eq(o->errors, t->errors, "%s: errors", what);
  cr_assert_eq(o->total_ns, (uint64_t)t->total, "%s: total", what);
  cr_assert_eq(o->self_ns, (uint64_t)t->self, "%s: self", what);
  cr_assert_eq(o->min_ns, (uint64_t)t->mn, "%s: min", what);
  cr_assert_eq(o->max_ns, (uint64_t)t->mx, "%s: max", what);
  cr_assert_leq(o->self_ns, o->total_ns, "%s: self within total", what);
  if (o->calls > 0)
    cr_assert(o->min_ns <= o->max_ns && o->max_ns <= o->total_ns,
              "%s: min %llu max %llu total %llu", what,
              (unsigned long long)o->min_ns, (unsigned long long)o->max_ns,
              (unsigned long long)o->total_ns);
  cr_assert_eq(o->mem.alloc_bytes, t->mem.alloc_bytes, "%s: alloc", what);
  cr_assert_eq(o->mem.alloc_count, t->mem.alloc_count, "%s: count", what);
  cr_assert_eq(o->mem.alloc_bytes_total, t->mem.alloc_bytes_total, "%s: alloc total", what);
  cr_assert_eq(o->mem.alloc_count_total, t->mem.alloc_count_total, "%s: count total", what);
  cr_assert_eq(o->mem.free_bytes, t->mem.free_bytes, "%s: freed", what);
  cr_assert_eq(o->mem.max_alloc_bytes, t->mem.max_alloc_bytes, "%s: max alloc", what);
}

/* The model's functions against every function's tally. */
static void check_against_tally(lua_State *L, int n) {
  li_prof *P = li_prof_get(L);
  li_profile p;
  li_tally *nd, *fn;
  uint32_t open, called = 0, i;
  char what[64];
  cr_assert_not_null(P);
  snap(L, &p);
  cr_assert_eq(p.nfuncs, P->nfn);
  cr_assert_geq(p.nfuncs, (uint32_t)n + 1, "every function of the chunk is listed");
  nd = calloc(P->nnode, sizeof *nd);
  fn = calloc(P->nfn, sizeof *fn);
  cr_assert(nd != NULL && fn != NULL);
  /* (the coroutine's open call is closed where it was suspended: the
  ** same figures at any later time) */
  cr_assert(li_snapshot_tally(P, li_clock_ticks(&P->clock), nd, fn, &open));
  cr_assert_eq(open, p.open_calls);
  cr_assert_gt(open, 0, "the suspended coroutine's calls are open");
  for (i = 0; i < p.nfuncs; i++) {
    snprintf(what, sizeof what, "%s:%u", p.funcs[i].name, p.funcs[i].line);
    same_tally(&p.funcs[i], &fn[i], what);
    cr_assert_eq(p.funcs[i].name, P->fn[i].name);
    cr_assert_eq(p.funcs[i].line, P->fn[i].line);
    if (p.funcs[i].calls > 0) called++;
  }
  /* known counts: every 37th of n, fib, leaf, the coroutine's function,
  ** the pcall'd one, M.z, the main chunk */
  cr_assert_eq(called, (uint32_t)((n + 36) / 37) + 6, "%u functions called", called);
  cr_assert_eq(func(&p, "M.z")->calls, 1);
  cr_assert_eq(func(&p, "local fib")->calls, 177);   /* fib(10): 2*fib(11)-1 */
  free(nd);
  free(fn);
  li_snapshot_free(&p);
}

Test(snapshot, uncalled_functions_as_the_full_tally_says) {
  lua_State *L = vstate(NULL);
  char *src = dense_chunk(3000);
  vrun(L, src);
  check_against_tally(L, 3000);
  free(src);
  lua_close(L);
}

Test(snapshot, uncalled_functions_as_the_full_tally_says_in_memory_mode) {
  lua_State *L = vstate("memory", "on", NULL);
  char *src = dense_chunk(3000);
  vrun(L, src);
  check_against_tally(L, 3000);
  free(src);
  lua_close(L);
}

/* A chunk loaded again finds its functions' records (one per function,
** whatever the loads); another chunk name gets its own.  The records of a
** big chunk are sized for it at once, not by doubling. */
Test(snapshot, records_of_a_chunk_loaded_again) {
  lua_State *L = vstate(NULL);
  li_prof *P = li_prof_get(L);
  char *src = dense_chunk(5000);
  li_profile p;
  uint32_t after_one;
  vrun(L, src);
  after_one = P->nfn;
  cr_assert_geq(after_one, 5001);
  cr_assert_lt(P->capfn - after_one, 64, "%u records for %u functions",
               P->capfn, after_one);
  vrun(L, src);
  cr_assert_eq(P->nfn, after_one, "the same chunk again: no new record");
  cr_assert_eq(luainstr_loadbufferx(L, src, strlen(src), "=u", "t"), LUA_OK);
  lua_pop(L, 1);
  cr_assert_eq(P->nfn, 2 * after_one, "another chunk name: its own records");
  snap(L, &p);
  cr_assert_eq(func(&p, "M.z")->calls, 2, "both runs counted in one record");
  li_snapshot_free(&p);
  free(src);
  lua_close(L);
}
