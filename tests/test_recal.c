/*
** test_recal.c -- the probe pair calibrated again at the report
** (runtime/calibrate.c, snapshot.c): on a virtual clock whose reads cost
** more while the first calibration runs (a slow stretch), the report must
** give the figures of a state whose calibration was right, to the ns.
*/
#include <criterion/criterion.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"

static unsigned long long vt;
static int slow;                /* reads cost SLOW_NS instead of READ_NS */
#define READ_NS 25ull
#define SLOW_NS 70ull

static unsigned long long vclock(void *ud) {
  (void)ud;
  vt += slow ? SLOW_NS : READ_NS;
  return vt;
}

static int l_spin(lua_State *L) {
  vt += (unsigned long long)luaL_checkinteger(L, 1);
  return 0;
}

static int l_mark(lua_State *L) {
  cr_assert_eq(luainstr_frame(L), LUAINSTR_OK);
  return 0;
}

/* 100 calls of a leaf of 1000 ns under mid, which spins 500 ns itself;
** a frame marked after each 50 leaves; the last frame is left open */
static const char program[] =
  "local function leaf() spin(1000) end\n"
  "local function mid() for i = 1, 100 do leaf(); if i % 50 == 0 then mark() end end spin(500) end\n"
  "mid()\n";

/* The profile of `program` on a state whose first calibration ran with
** the clock slow or not. */
static lua_State *profile(int slow_start, li_profile *p) {
  lua_State *L = luaL_newstate();
  cr_assert_not_null(L);
  luaL_openlibs(L);
  vt = 1000000;
  slow = slow_start;
  cr_assert_eq(luainstr_set_clock(L, "virtual", vclock, NULL, 1.0), LUAINSTR_OK);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_set_option(L, "frames", "on"), LUAINSTR_OK);
  li_prof_get(L)->recal_min = 1;   /* (its 100 calls: natively 20,000) */
  lua_register(L, "spin", l_spin);
  lua_register(L, "mark", l_mark);
  if (!li_prof_get(L)->started)
    cr_assert_eq(luainstr_start(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  cr_assert(li_prof_get(L)->calibrated);
  slow = 0;
  cr_assert_eq(luainstr_loadbufferx(L, program, sizeof program - 1, "=t", "t"), LUA_OK,
               "%s", lua_tostring(L, -1));
  cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK, "%s", lua_tostring(L, -1));
  cr_assert_eq(li_snapshot(li_prof_get(L), p), 0);
  return L;
}

static const li_pfunc *fn(const li_profile *p, const char *name) {
  for (uint32_t i = 0; i < p->nfuncs; i++)
    if (p->funcs[i].calls > 0 && strstr(p->funcs[i].name, name) != NULL)
      return &p->funcs[i];
  cr_assert_fail("no function %s", name);
  return NULL;
}

Test(recal, slow_first_calibration_corrected_at_report) {
  li_profile good, bad;
  lua_State *G = profile(0, &good), *B = profile(1, &bad);
  const li_prof *PB = li_prof_get(B), *PG = li_prof_get(G);
  /* the stretch did inflate the first calibration, and the report's
  ** measurement found the cost of the good state's */
  cr_assert_gt(PB->pair_cost, PG->pair_cost);
  cr_assert_gt(PB->inside_cost, PG->inside_cost);
  cr_assert_eq(PB->pair_least, PG->pair_cost);
  cr_assert_eq(PB->inside_least, PG->inside_cost);
  cr_assert_eq(PG->pair_least, PG->pair_cost);     /* (nothing to correct) */
  /* known answers: the probes' cost taken out exactly */
  cr_assert_eq(fn(&good, "leaf")->total_ns, 100000u);
  cr_assert_eq(fn(&good, "leaf")->self_ns, 100000u);
  cr_assert_eq(fn(&good, "leaf")->min_ns, 1000u);
  cr_assert_eq(fn(&good, "leaf")->max_ns, 1000u);
  /* mid: its 500 ns and the frame marks' clock reads, no probe's */
  cr_assert_geq(fn(&good, "mid")->self_ns, 500u);
  cr_assert_lt(fn(&good, "mid")->self_ns, 1000u);
  /* the bad state's report is the good state's, figure by figure */
  cr_assert_eq(bad.probe_pair_ns, good.probe_pair_ns);
  cr_assert_eq(bad.probe_inside_ns, good.probe_inside_ns);
  cr_assert_eq(bad.overhead_ns, good.overhead_ns);
  cr_assert_eq(bad.nfuncs, good.nfuncs);
  for (uint32_t i = 0; i < good.nfuncs; i++) {
    const li_pfunc *a = &good.funcs[i], *b = &bad.funcs[i];
    cr_assert_str_eq(a->name, b->name);
    cr_assert_eq(a->calls, b->calls, "%s", a->name);
    cr_assert_eq(a->total_ns, b->total_ns, "%s total: %llu, slow start %llu", a->name,
                 (unsigned long long)a->total_ns, (unsigned long long)b->total_ns);
    cr_assert_eq(a->self_ns, b->self_ns, "%s self: %llu, slow start %llu", a->name,
                 (unsigned long long)a->self_ns, (unsigned long long)b->self_ns);
  }
  cr_assert_eq(bad.nnodes, good.nnodes);
  for (uint32_t i = 0; i < good.nnodes; i++) {
    cr_assert_eq(bad.nodes[i].total_ns, good.nodes[i].total_ns, "node %u", i);
    cr_assert_eq(bad.nodes[i].self_ns, good.nodes[i].self_ns, "node %u", i);
  }
  cr_assert_eq(good.nframes, 2);
  cr_assert_eq(bad.nframes, good.nframes);
  for (uint64_t i = 0; i < good.nframes; i++)
    cr_assert_eq(bad.frames[i].duration_ns, good.frames[i].duration_ns,
                 "frame %llu: %llu ns, slow start %llu", (unsigned long long)i,
                 (unsigned long long)good.frames[i].duration_ns,
                 (unsigned long long)bad.frames[i].duration_ns);
  li_snapshot_free(&good);
  li_snapshot_free(&bad);
  lua_close(G);
  lua_close(B);
}
