/*
** test_clock.c -- Criterion tests of the host-supplied clock
** (luainstr_set_clock): a coarse clock still gives right sums, the report
** states the resolution, and calibration sees through a warming-up probe.
**
** Time here is virtual, so that every figure is known exactly and no test
** depends on how busy the machine is: spin(ns) advances it by ns, and each
** read of the clock costs READ_NS of it (what a probe's clock read costs,
** so that the probes have a cost to calibrate and subtract).  The coarse
** clocks read it rounded down to 100 us and to 5 us steps (what browsers
** give performance.now() without and with cross-origin isolation).  A
** function's truth is the time its spins took.
*/
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"

/* ---- clocks ------------------------------------------------------------- */

#define READ_NS 25ull                /* what one read of the clock costs */
static unsigned long long vtime;     /* virtual ns */

/* A clock of *(step ns) steps, read in ns. */
static unsigned long long coarse_ns(void *ud) {
  unsigned long long step = *(const unsigned long long *)ud;
  vtime += READ_NS;
  return vtime / step * step;
}

/* The same in whole microseconds (ns_per_tick 1000). */
static unsigned long long coarse_us(void *ud) {
  return coarse_ns(ud) / 1000u;
}

static unsigned long long mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000u + (unsigned long long)ts.tv_nsec;
}

/* ---- the known-answer program ------------------------------------------- */

/* What spin() spent, by the argument `slot` it was given. */
static double spun_ns[4];

/* spin(ns, slot): ns of virtual time pass. */
static int l_spin(lua_State *L) {
  unsigned long long ns = (unsigned long long)luaL_checkinteger(L, 1);
  int slot = (int)luaL_checkinteger(L, 2);
  vtime += ns;
  spun_ns[slot] += (double)ns;
  return 0;
}

/* short: 2 us, 20,000 times (40 ms, each call far below a 100 us step);
** long: 3 ms, 10 times; outer: 50 short calls of its own, 100 times
** (self time only the loop, inclusive its callees'). */
static const char program[] =
  "local spin = ...\n"
  "local function short() spin(2000, 0) end\n"
  "local function long() spin(3000000, 1) end\n"
  "local function inner() spin(2000, 2) end\n"
  "local function outer() for _ = 1, 50 do inner() end end\n"
  "for _ = 1, 20000 do short() end\n"
  "for _ = 1, 10 do long() end\n"
  "for _ = 1, 100 do outer() end\n";

static const li_pfunc *find(const li_profile *p, const char *name) {
  for (uint32_t i = 0; i < p->nfuncs; i++)
    if (strcmp(p->funcs[i].name, name) == 0) return &p->funcs[i];
  cr_assert_fail("no function %s in the profile", name);
  return NULL;
}

/* Run the program on a fresh state with the given clock (ticks NULL: the
** default); the profile is left in *out (free with li_snapshot_free). */
static lua_State *run_program(luainstr_clock ticks, void *ud, double ns_per_tick,
                              li_profile *out) {
  lua_State *L = luaL_newstate();
  cr_assert_not_null(L);
  luaL_openlibs(L);
  memset(spun_ns, 0, sizeof spun_ns);
  if (ticks != NULL)
    cr_assert_eq(luainstr_set_clock(L, "coarse", ticks, ud, ns_per_tick),
                 LUAINSTR_OK, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_loadbufferx(L, program, sizeof program - 1, "=known", "t"),
               LUA_OK, "%s", lua_tostring(L, -1));
  lua_pushcfunction(L, l_spin);
  cr_assert_eq(lua_pcall(L, 1, 0, 0), LUA_OK, "%s", lua_tostring(L, -1));
  cr_assert_eq(li_snapshot(li_prof_get(L), out), 0);
  return L;
}

/* How far a figure is from the truth, relative. */
static double rel(double got, double truth) {
  return fabs(got - truth) / truth;
}

#define TOL 0.05        /* 5 % */

/* A run's figures: total ns of short, long, inner, outer; what spin()
** spent in short, long and inner (outer's truth is inner's spin). */
typedef struct figures {
  double total[4], spun[4], resolution, pair;
} figures;

static void run_figures(luainstr_clock ticks, void *ud, double ns_per_tick,
                        figures *fg) {
  static const char *const names[4] = {
    "local short", "local long", "local inner", "local outer"
  };
  static const uint64_t calls[4] = { 20000, 10, 5000, 100 };
  li_profile p;
  lua_State *L = run_program(ticks, ud, ns_per_tick, &p);
  for (int i = 0; i < 4; i++) {
    const li_pfunc *f = find(&p, names[i]);
    cr_assert_eq(f->calls, calls[i], "%s: %llu calls", names[i],
                 (unsigned long long)f->calls);
    fg->total[i] = (double)f->total_ns;
    fg->spun[i] = spun_ns[i < 3 ? i : 2];
  }
  fg->resolution = p.clock_resolution_ns;
  fg->pair = p.probe_pair_ns;
  li_snapshot_free(&p);
  lua_close(L);
}

/* Every known answer within TOL of the truth, the clock's resolution the
** step; the figures are in the message either way. */
static void known_answers(luainstr_clock ticks, void *ud, double ns_per_tick,
                          double step_ns) {
  static const char *const names[4] = { "short", "long", "inner", "outer" };
  char why[600];
  figures got;
  int ok = 1;
  size_t n;
  run_figures(ticks, ud, ns_per_tick, &got);
  n = (size_t)snprintf(why, sizeof why, "step %.0f ns: resolution %.0f ns, pair %.1f ns;",
                       step_ns, got.resolution, got.pair);
  for (int i = 0; i < 4; i++) {
    double truth = got.spun[i];
    if (rel(got.total[i], truth) > TOL) ok = 0;
    if (n < sizeof why)
      n += (size_t)snprintf(why + n, sizeof why - n, " %s %.0f / %.0f ns (%+.1f%%)",
                            names[i], got.total[i], truth,
                            100 * (got.total[i] - truth) / truth);
  }
  if (got.resolution < step_ns * 0.99 || got.resolution > step_ns * 1.01) ok = 0;
  cr_log_info("%s", why);
  cr_assert(ok, "totals off by more than %.0f%%, or the resolution: %s", 100 * TOL, why);
}

/* ---- coarse clocks give right sums -------------------------------------- */

Test(clock, steps_of_100us_give_right_totals, .timeout = 60) {
  static unsigned long long step = 100000;
  known_answers(coarse_ns, &step, 1.0, 100000);
}

Test(clock, steps_of_5us_give_right_totals, .timeout = 60) {
  static unsigned long long step = 5000;
  known_answers(coarse_ns, &step, 1.0, 5000);
}

/* Ticks of 1 us, the length given: the same sums. */
Test(clock, microsecond_ticks_of_5us_steps, .timeout = 60) {
  static unsigned long long step = 5000;
  known_answers(coarse_us, &step, 1000.0, 5000);
}

/* A fine clock (its resolution is then what a read costs). */
Test(clock, fine_steps_give_right_totals, .timeout = 60) {
  static unsigned long long step = 1;
  known_answers(coarse_ns, &step, 1.0, READ_NS);
}

/* A tick length the host does not know (0) is measured against
** CLOCK_MONOTONIC: a real clock counting microseconds. */
static unsigned long long real_us(void *ud) {
  (void)ud;
  return mono_ns() / 1000u;
}

Test(clock, unknown_tick_length_is_measured) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  cr_assert_eq(luainstr_set_clock(L, "us", real_us, NULL, 0.0), LUAINSTR_OK);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  li_clock *c = &li_prof_get(L)->clock;
  li_clock_calibrate(c);
  double tick = c->ns_per_tick * (double)(1ull << c->shift);
  cr_expect(fabs(tick - 1000.0) < 10.0, "a tick measured as %.3f ns", tick);
  lua_close(L);
}

/* ---- the report says what the clock can tell ---------------------------- */

/* With 100 us steps, a 2 us call's min reads as "<100 us" in the text
** report; the header and the json summary state the resolution. */
Test(clock, reports_state_the_resolution) {
  static unsigned long long step = 100000;
  li_profile p;
  char *text, *json;
  size_t n;
  lua_State *L = run_program(coarse_ns, &step, 1.0, &p);
  cr_assert_eq(li_report_to_string(&p, "text", &text, &n), 0);
  cr_assert_eq(li_report_to_string(&p, "json", &json, &n), 0);
  cr_expect(strstr(text, "clock coarse (resolution 100 us)") != NULL, "%s", text);
  const char *row = strstr(text, "local short");
  cr_assert_not_null(row, "%s", text);
  while (row > text && row[-1] != '\n') row--;
  cr_expect(strstr(row, "<100 us") != NULL && strstr(row, "<100 us") < strchr(row, '\n'),
            "the min of short is not marked: %s", text);
  cr_expect(strstr(json, "\"clock\": \"coarse\", \"clock_resolution_ns\": 100000,") != NULL,
            "%s", json);
  free(text);
  free(json);
  li_snapshot_free(&p);
  lua_close(L);
}

/* ---- the API's order ---------------------------------------------------- */

Test(clock, set_clock_after_start_is_refused) {
  static unsigned long long step = 5000;
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  cr_assert_eq(luainstr_set_clock(NULL, NULL, coarse_ns, &step, 1.0), LUAINSTR_EARG);
  cr_assert_eq(luainstr_set_clock(L, "a", coarse_ns, &step, 1.0), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_clock(L, NULL, NULL, NULL, 0), LUAINSTR_OK);  /* default again */
  cr_assert_str_eq(li_clock_name(&li_prof_get(L)->clock),
                   li_prof_get(L)->clock.tsc ? "tsc" : "clock_gettime(CLOCK_MONOTONIC)");
  cr_assert_eq(luainstr_set_clock(L, "b", coarse_ns, &step, 1.0), LUAINSTR_OK);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  cr_assert_str_eq(li_clock_name(&li_prof_get(L)->clock), "b");
  cr_assert_eq(luainstr_set_clock(L, "c", coarse_ns, &step, 1.0), LUAINSTR_EORDER);
  cr_assert(strstr(luainstr_errmsg(L), "before luainstr_open") != NULL);
  cr_assert_str_eq(li_clock_name(&li_prof_get(L)->clock), "b");
  lua_close(L);
}

/* ---- calibration sees through a warm-up --------------------------------- */

/* A fine clock whose first *ud reads are slow (250 ns more each), as a
** probe run by a JIT that has not optimised it yet: the probe pair costs
** 500 ns more over its first 2,000 calls, the first 8 calibration rounds
** natively (250 calls each, windows of 6 rounds: runtime/calibrate.c; in
** WebAssembly, where JITs warm up, rounds are of 500 calls and windows of
** 8).  The cost subtracted must be the later one. */
static unsigned long long warming_ns(void *ud) {
  unsigned long long *slow = ud;
  vtime += READ_NS;
  if (*slow > 0) {
    (*slow)--;
    vtime += 250;
  }
  return vtime;
}

static double pair_with(unsigned long long slow_reads) {
  static unsigned long long slow;
  lua_State *L = luaL_newstate();
  double pair;
  luaL_openlibs(L);
  slow = slow_reads;
  cr_assert_eq(luainstr_set_clock(L, "warming", warming_ns, &slow, 1.0), LUAINSTR_OK);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  pair = (double)li_prof_get(L)->pair_cost * li_prof_get(L)->clock.ns_per_tick;
  lua_close(L);
  return pair;
}

Test(clock, calibration_waits_for_a_warm_probe, .timeout = 60) {
  double warm = pair_with(0), cold = pair_with(4000);
  cr_assert(warm >= 2 * READ_NS - 1 && warm <= 2 * READ_NS + 1,
            "a warm pair costs two reads (%llu ns), measured %.1f", 2 * READ_NS, warm);
  cr_assert(cold < warm + 10, "the warm-up was taken for the cost: %.1f ns, warm %.1f",
            cold, warm);
}
