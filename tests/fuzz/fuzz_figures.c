/*
** fuzz_figures.c -- libFuzzer target: the runtime's one derivation of the
** figures (runtime/figures.c) over raw tallies made from the fuzzer's
** bytes, and li_profile_check on the profile made of them as
** li_snapshot makes it (issue 32: figures that agree by construction).
**
** The bytes give a call tree whose calls nest in time as a run's do (a
** node's calls spanned no more ticks, and were preempted no longer, than
** what is left of its parent's), probe-pair and call counts up to one a
** tick of running time, any shortest and longest call (or none), any
** calibration (pair and inside cost, their spread, the figures the probes
** closed calls with) and any clock rate.
** Property: whatever the calibration's error, li_profile_check finds no
** contradiction: self <= total, children within their parent, min <= mean
** <= max, functions the sums of their nodes, no root past the wall time.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "profiler.h"
#include "report.h"

#define MAX_NODES 64
#define MAX_FUNCS 8
#define SPAN_LIMIT ((uint64_t)1 << 40)  /* ticks: days at GHz, no overflow */

/* The raw tallies: nodes after their parents, calls nested in time. */
static void raw_tree(li_tally *nd, uint32_t n, uint32_t nf, uint64_t wall,
                     fz_bytes *in) {
  uint64_t room[MAX_NODES], pre_room[MAX_NODES];
  memset(nd, 0, (size_t)n * sizeof *nd);
  nd[0].func = LI_NONE;
  nd[0].min = INT64_MAX;
  nd[0].max = INT64_MIN;
  room[0] = wall;
  pre_room[0] = fz_upto(in, wall);
  for (uint32_t i = 1; i < n; i++) {
    li_tally *t = &nd[i];
    uint32_t up = (uint32_t)fz_upto(in, i - 1);
    uint64_t run;
    t->parent = up;
    t->func = (uint32_t)fz_upto(in, nf - 1);
    t->counted = 0;
    if (fz_upto(in, 7) == 0) {                /* counted, not timed: calls, */
      t->counted = 1;                         /* no span (count_small) */
      t->ticks = t->pre = 0;
      room[i] = pre_room[i] = 0;
      t->calls = 1 + fz_upto(in, 1u << 20);
      t->errors = 0;
      t->pairs = 0;
      t->min = INT64_MAX;
      t->max = INT64_MIN;
      continue;
    }
    t->ticks = (int64_t)fz_upto(in, room[up]);
    room[up] -= (uint64_t)t->ticks;
    room[i] = (uint64_t)t->ticks;
    t->pre = (int64_t)fz_upto(in, pre_room[up] < room[i] ? pre_room[up] : room[i]);
    pre_room[up] -= (uint64_t)t->pre;
    pre_room[i] = (uint64_t)t->pre;
    /* a probe pair, and a call, takes at least a tick of running time:
       else the uncertainty of a node preempted all but a tick of its
       time, scaled back up by the dilation (figures.c), outgrows 64 bits */
    run = (uint64_t)(t->ticks - t->pre);
    t->calls = 1 + fz_upto(in, run < (1u << 20) ? run : (1u << 20));
    t->errors = fz_upto(in, t->calls);
    t->pairs = fz_upto(in, run);
    t->min = INT64_MAX;
    t->max = INT64_MIN;
    if (fz_upto(in, 3) != 0) {                /* calls that closed */
      t->min = (int64_t)fz_upto(in, room[i] + 1000000) - 1000000;
      t->max = t->calls == 1 ? t->min
             : (int64_t)fz_upto(in, room[i] + 1000000) - 1000000;
      t->min_pairs = fz_upto(in, t->pairs);
      t->max_pairs = t->calls == 1 ? t->min_pairs : fz_upto(in, t->pairs);
    }
  }
}

/* The report's cost from a calibration made of the bytes, in ns. */
static void calibration(li_cost *c, double k, fz_bytes *in) {
  static li_prof P;                           /* (large: not on the stack) */
  P.pair_least = fz_upto(in, 4000);
  P.inside_least = fz_upto(in, P.pair_least);
  P.pair_spread = fz_upto(in, 2000);
  P.pair_cost = P.pair_least + fz_upto(in, 2000);
  P.inside_cost = P.inside_least + fz_upto(in, P.pair_cost - P.pair_least);
  P.entries = fz_upto(in, 1000000);          /* (and what they timed of */
  P.own_clock = fz_upto(in, P.entries * 200); /* themselves, LI_INBAND) */
  P.count_cost = fz_upto(in, 2000);          /* a count probe (count_small) */
  P.count_spread = fz_upto(in, 1000);
  li_report_cost(&P, k, c);
}

static uint64_t err_ns(double e) {      /* (as runtime/snapshot.c's) */
  if (e >= 18446744073709551616.0) return UINT64_MAX;
  return e > 0 ? (uint64_t)ceil(e) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static li_tally nd[MAX_NODES], fn[MAX_FUNCS];
  static li_pnode pn[MAX_NODES];
  static li_pfunc pf[MAX_FUNCS];
  fz_bytes in = { data, size };
  uint32_t n = 1 + (uint32_t)fz_upto(&in, MAX_NODES - 1);
  uint32_t nf = 1 + (uint32_t)fz_upto(&in, MAX_FUNCS - 1);
  uint64_t wall = fz_upto(&in, SPAN_LIMIT);
  double k = (double)(1 + fz_upto(&in, 1000000)) / 100000.0;  /* ns per tick */
  li_cost cost;
  li_profile p;
  char why[512];
  raw_tree(nd, n, nf, wall, &in);
  calibration(&cost, k, &in);
  /* as li_snapshot: ticks made ns, then the figures derived */
  for (uint32_t i = 0; i < n; i++) li_tally_scale(&nd[i], k);
  li_derive_nodes(nd, n, &cost);
  memset(fn, 0, sizeof fn);
  FZ_CHECK(li_sum_functions(nd, n, fn, NULL, nf), "li_sum_functions: no memory");
  memset(&p, 0, sizeof p);
  for (uint32_t i = 0; i < n; i++) {
    pn[i] = (li_pnode){ .func = i == 0 ? UINT32_MAX : nd[i].func,
                        .parent = nd[i].parent, .calls = nd[i].calls,
                        .errors = nd[i].errors, .total_ns = (uint64_t)nd[i].total,
                        .self_ns = (uint64_t)nd[i].self,
                        .total_err_ns = err_ns(nd[i].total_err),
                        .self_err_ns = err_ns(nd[i].self_err) };
    FZ_CHECK(nd[i].total >= 0 && nd[i].self >= 0, "node %u: a negative time", i);
  }
  for (uint32_t f = 0; f < nf; f++) {
    const li_tally *t = &fn[f];
    pf[f] = (li_pfunc){ .name = "f", .source = "fuzz.lua", .line = f,
                        .calls = t->calls, .errors = t->errors,
                        .total_ns = (uint64_t)t->total, .self_ns = (uint64_t)t->self,
                        .min_ns = (uint64_t)t->mn, .max_ns = (uint64_t)t->mx,
                        .total_err_ns = err_ns(t->total_err),
                        .self_err_ns = err_ns(t->self_err),
                        .min_err_ns = err_ns(t->min_err),
                        .max_err_ns = err_ns(t->max_err) };
    FZ_CHECK(t->mn >= 0 && t->mx >= 0, "function %u: a negative min or max", f);
  }
  p.funcs = pf;
  p.nfuncs = nf;
  p.nodes = pn;
  p.nnodes = n;
  p.wall_ns = (uint64_t)((double)wall * k + 0.5);   /* (snapshot.c's to_ns) */
  FZ_CHECK(li_profile_check(&p, why, sizeof why) == 0,
           "the derived figures contradict each other: %s", why);
  return 0;
}
