/*
** figures.c -- every time a report shows, derived in one place from what
** the probes kept (raw spans and probe-pair counts per call-tree node), so
** that the figures agree by construction.
**
** The probes' cost is taken out here, once, with one figure per report
** (li_cost): a node's calls spanned `ticks` with `pairs` probe pairs inside;
** its estimate is ticks - pairs * pair - calls * inside.  Clamping each
** figure apart at zero broke every identity between them (a caller whose
** callee read below zero showed self > total), so the clamp is one rule,
** applied bottom-up: a node's total is at least what its children's totals
** (and the coroutine time charged to it) add up to, and its self time is
** what is left.  Then self <= total and the children fit inside their
** parent whatever the calibration's error; min <= mean <= max per node.
** Each figure carries its uncertainty: the pairs taken out of it times the
** pair figure's uncertainty, and the same for the inside part.
*/
#include <math.h>

#include "profiler.h"

/* x clamped to [lo, hi] (lo <= hi). */
static int64_t clamp64(int64_t x, int64_t lo, int64_t hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

/* The estimate of raw ticks with `pairs` pairs and `calls` insides in them. */
static int64_t estimate(const li_cost *c, double ticks, double pairs, double calls) {
  double v = ticks - pairs * c->pair - calls * c->inside;
  return (int64_t)llround(v);
}

/* How much longer than the thread ran a node's calls lasted (>= 1): their
** ticks over their ticks less the time they were preempted.  The probes'
** cost taken out is running time, and a preemption lands in the probes'
** share of it as often as in the program's: what is left of the running
** time, the program's, is scaled back up by this, so that a figure is
** what the code took in wall time on this machine, as a plain run would
** have seen it (not the probes' share of the waits as well: call-heavy
** code read 2-3 times its time beside two busy processes). */
static double dilation(const li_tally *t) {
  int64_t run = t->ticks - t->pre;
  return t->pre > 0 && run > 0 ? (double)t->ticks / (double)run : 1.0;
}

void li_derive_nodes(li_tally *nd, uint32_t n, const li_cost *c) {
  uint32_t i;
  if (n == 0) return;
  for (i = 0; i < n; i++) {
    nd[i].kid = 0;
    nd[i].kid_pairs = 0;
    nd[i].kid_calls = 0;
  }
  /* bottom-up: a node's children have larger indexes than it */
  for (i = n; i-- > 1;) {
    li_tally *t = &nd[i], *up = &nd[t->parent];
    double dil = dilation(t);
    int64_t est = estimate(c, (double)(t->ticks - t->pre), (double)t->pairs,
                           (double)t->calls);
    int64_t x = estimate(c, (double)t->xticks, (double)t->xpairs, 0);
    if (est > 0) est = (int64_t)llround((double)est * dil);
    int64_t in = t->kid + x;    /* ran inside its calls, not in them */
    uint64_t own;
    t->total = est;
    if (t->total < t->kid) t->total = t->kid;   /* children fit inside */
    if (t->total < in) t->total = in;           /* self >= 0 */
    if (t->total < 0) t->total = 0;
    t->self = t->total - (in > 0 ? in : 0);
    /* pairs of its own calls' children (and coroutines it resumed) */
    own = t->pairs > t->kid_pairs ? t->pairs - t->kid_pairs : 0;
    t->total_err = dil * ((double)t->pairs * c->pair_err + (double)t->calls * c->inside_err);
    t->self_err = dil * ((double)own * c->pair_err + (double)t->calls * c->inside_err);
    if (t->calls > 0) {
      int64_t lo = t->total / (int64_t)t->calls;
      int64_t hi = lo + (t->total % (int64_t)t->calls != 0);
      int64_t mn = estimate(c, (double)t->min + (double)t->min_pairs * c->start_pair + c->start_inside,
                            (double)t->min_pairs, 1);
      int64_t mx = estimate(c, (double)t->max + (double)t->max_pairs * c->start_pair + c->start_inside,
                            (double)t->max_pairs, 1);
      if (t->min == INT64_MAX) mn = lo;
      if (t->max == INT64_MIN) mx = hi;
      if (t->calls == 1) mn = mx = t->total;
      t->mn = clamp64(mn, 0, lo);
      t->mx = clamp64(mx, hi, t->total);
      t->min_err = (double)t->min_pairs * c->pair_err + c->inside_err;
      t->max_err = (double)t->max_pairs * c->pair_err + c->inside_err;
    } else {
      t->mn = t->mx = 0;
      t->min_err = t->max_err = 0;
    }
    up->kid += t->total;
    up->kid_pairs += t->pairs;
    up->kid_calls += t->calls;
  }
  nd[0].total = nd[0].kid;
  nd[0].self = 0;
  nd[0].total_err = nd[0].self_err = 0;
  nd[0].mn = nd[0].mx = 0;
}

/* The uncertainty of the pair figure, at least this share of it: the
** phase benchmark (bench/phases) finds the pair's real cost in the code
** that runs within this of the calibrated one (docs/measuring.md). */
#define LI_PAIR_ERR 0.10

void li_report_cost(const li_prof *P, double k, li_cost *c) {
  c->pair = (double)P->pair_least * k;
  c->inside = (double)P->inside_least * k;
  c->pair_err = fmax((double)P->pair_spread * k, LI_PAIR_ERR * c->pair);
  c->inside_err = fmax((double)P->pair_spread * k / 2, LI_PAIR_ERR * c->inside);
  c->start_pair = (double)P->pair_cost * k;
  c->start_inside = (double)P->inside_cost * k;
}

static int64_t scale(int64_t v, double k) {
  return (int64_t)llround((double)v * k);
}

void li_tally_scale(li_tally *t, double k) {
  t->ticks = scale(t->ticks, k);
  t->xticks = scale(t->xticks, k);
  t->pre = scale(t->pre, k);
  if (t->min != INT64_MAX) t->min = scale(t->min, k);
  if (t->max != INT64_MIN) t->max = scale(t->max, k);
}
