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
** add up to, and its self time is what is left (total = self + children:
** a report that rebuilds totals from self times, pprof, agrees).  Then self <= total and the children fit inside their
** parent whatever the calibration's error; min <= mean <= max per node.
** Each figure carries its uncertainty: the pairs taken out of it times the
** pair figure's uncertainty, and the same for the inside part.
*/
#include <math.h>
#include <stdlib.h>

#include "profiler.h"

/* x clamped to [lo, hi] (lo <= hi). */
static int64_t clamp64(int64_t x, int64_t lo, int64_t hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

/* The estimate of raw ticks with `pairs` pairs and `calls` insides in them. */
static int64_t estimate(const li_cost *c, double ticks, double pairs, double calls,
                        double counts) {
  double v = ticks - pairs * c->pair - calls * c->inside - counts * c->count;
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
/* The ticks are the spans less what the probes timed of themselves
** (LI_INBAND): their wall time has that back, on average own a pair
** (without it, a call-heavy node's wait was a larger share of its ticks
** than of its wall time, and it read 2-3 times its time under load). */
static double dilation(const li_tally *t, const li_cost *c) {
  double wall = (double)t->ticks + (double)t->pairs * c->own;
  double run = wall - (double)t->pre;
  return t->pre > 0 && run > 0 ? wall / run : 1.0;
}

void li_derive_nodes(li_tally *nd, uint32_t n, const li_cost *c) {
  uint32_t i;
  if (n == 0) return;
  for (i = 0; i < n; i++) {
    nd[i].kid = 0;
    nd[i].kid_pairs = 0;
    nd[i].kid_calls = 0;
    nd[i].kid_counts = 0;
    nd[i].counts = 0;
  }
  /* bottom-up: a node's children have larger indexes than it */
  for (i = n; i-- > 1;) {
    li_tally *t = &nd[i], *up = &nd[t->parent];
    double dil = dilation(t, c);
    /* (a counted function's node: calls, no span, no pair; its time is
    ** its caller's, less the count probes' cost) */
    double timed = t->counted ? 0 : (double)t->calls;
    int64_t est = estimate(c, (double)(t->ticks - t->pre), (double)t->pairs,
                           timed, (double)t->counts);
    uint64_t own;
    if (est > 0) est = (int64_t)llround((double)est * dil);
    t->total = est > t->kid ? est : t->kid;     /* children fit inside */
    t->self = t->total - t->kid;
    /* pairs of its own calls' children (and coroutines it resumed) */
    own = t->pairs > t->kid_pairs ? t->pairs - t->kid_pairs : 0;
    t->total_err = dil * ((double)t->pairs * c->pair_err + timed * c->inside_err +
                          (double)t->counts * c->count_err);
    t->self_err = dil * ((double)own * c->pair_err + timed * c->inside_err +
                         (double)(t->counts > t->kid_counts ? t->counts - t->kid_counts : 0) *
                         c->count_err);
    if (t->calls > 0) {
      int64_t lo = t->total / (int64_t)t->calls;
      int64_t hi = lo + (t->total % (int64_t)t->calls != 0);
      int64_t mn = estimate(c, (double)t->min + (double)t->min_pairs * c->start_pair + c->start_inside,
                            (double)t->min_pairs, 1, 0);
      int64_t mx = estimate(c, (double)t->max + (double)t->max_pairs * c->start_pair + c->start_inside,
                            (double)t->max_pairs, 1, 0);
      if (t->min == INT64_MAX) mn = lo;
      if (t->max == INT64_MIN) mx = hi;
      if (t->calls == 1) mn = mx = t->total;
      t->mn = clamp64(mn, 0, lo);
      t->mx = clamp64(mx, hi, t->total);
      t->min_err = (double)t->min_pairs * c->pair_err + c->inside_err;
      t->max_err = (double)t->max_pairs * c->pair_err + c->inside_err;
      if (t->counted) t->min_err = t->max_err = 0;   /* (no time: 0) */
    } else {
      t->mn = t->mx = 0;
      t->min_err = t->max_err = 0;
    }
    up->kid += t->total;
    up->kid_pairs += t->pairs;
    up->kid_calls += t->calls;
    /* the count probes inside the parent's spans: every counted node
    ** below it counted one a call, inside its caller's span and so inside
    ** every span above (a coroutine's nodes hang under its resumer's) */
    up->counts += t->counts + (t->counted ? t->calls : 0);
    up->kid_counts += t->counts;      /* (the rest are in up's self) */
  }
  nd[0].total = nd[0].kid;
  nd[0].self = 0;
  nd[0].total_err = nd[0].self_err = 0;
  nd[0].mn = nd[0].mx = 0;
}

/* The uncertainty of the pair figure, at least this share of it: on a
** shared machine the phase benchmark (bench/phases) found the pair's real
** cost in call-heavy code up to 30-40 % off the calibrated one, from run
** to run (docs/measuring.md); 10 % marked none of those figures. */
#define LI_PAIR_ERR 0.40

void li_report_cost(const li_prof *P, double k, li_cost *c) {
  c->pair = (double)P->pair_least * k;
  c->inside = (double)P->inside_least * k;
  c->pair_err = fmax((double)P->pair_spread * k, LI_PAIR_ERR * c->pair);
  c->inside_err = fmax((double)P->pair_spread * k / 2, LI_PAIR_ERR * c->inside);
  c->start_pair = (double)P->pair_cost * k;
  c->start_inside = (double)P->inside_cost * k;
  c->own = P->entries > 0 ? (double)(P->own_clock - P->own_base) / (double)P->entries * k : 0;
  c->count = (double)P->count_cost * k;
  c->count_err = fmax((double)P->count_spread * k, LI_PAIR_ERR * c->count);
}

static int64_t scale(int64_t v, double k) {
  return (int64_t)llround((double)v * k);
}

void li_tally_scale(li_tally *t, double k) {
  t->ticks = scale(t->ticks, k);
  t->pre = scale(t->pre, k);
  if (t->min != INT64_MAX) t->min = scale(t->min, k);
  if (t->max != INT64_MIN) t->max = scale(t->max, k);
}

/* Add node v's figures (derived) to its function's; `outer`: no node of
** the same function above it. */
static void add_node(li_tally *a, li_tally *b, int outer) {
  b->outer = outer;
  a->calls += b->calls;
  a->errors += b->errors;
  a->self += b->self;
  a->self_err += b->self_err;
  a->kid += b->total;           /* (the times of all its calls: the mean's) */
  if (b->calls > 0 && (a->calls == b->calls || b->mn < a->mn))
    a->mn = b->mn, a->min_err = b->min_err;
  if (b->calls > 0 && (a->calls == b->calls || b->mx > a->mx))
    a->mx = b->mx, a->max_err = b->max_err;
  a->mem.alloc_bytes += b->mem.alloc_bytes;
  a->mem.alloc_count += b->mem.alloc_count;
  a->mem.free_bytes += b->mem.free_bytes;
  if (b->mem.max_alloc_bytes > a->mem.max_alloc_bytes)
    a->mem.max_alloc_bytes = b->mem.max_alloc_bytes;
  if (outer) {
    a->total += b->total;
    a->total_err += b->total_err;
    a->mem.alloc_bytes_total += b->mem.alloc_bytes_total;
    a->mem.alloc_count_total += b->mem.alloc_count_total;
  }
}

/* Where function f's figures are (sum_functions). */
static uint32_t slot_of(const uint32_t *slot, uint32_t f) {
  return slot != NULL ? slot[f] : f;
}

/* A function's figures from its nodes: calls, errors and self time add
** up; min and max are over all its calls; its inclusive time counts only
** the nodes with no node of the same function above them (in a recursion
** the outermost activation already includes the inner ones).  A depth-first
** walk of the tree keeps, for every function, how many of its nodes are on
** the path from the root.  fn holds nfn figures: function f's at
** fn[slot[f]], or at fn[f] when slot is NULL (the report gives figures only
** to the functions that have nodes, not to every one a chunk defined). */
int li_sum_functions(li_tally *nd, uint32_t nn, li_tally *fn,
                     const uint32_t *slot, uint32_t nfn) {
  uint32_t *first, *kids, *onpath, *stack, *next, sp = 0;
  first = calloc((size_t)nn + 1, sizeof *first);
  kids = malloc((size_t)nn * sizeof *kids);
  next = malloc((size_t)nn * sizeof *next);
  stack = malloc((size_t)nn * sizeof *stack);
  onpath = calloc(nfn ? nfn : 1, sizeof *onpath);
  if (first == NULL || kids == NULL || next == NULL || stack == NULL || onpath == NULL) {
    free(first); free(kids); free(next); free(stack); free(onpath);
    return 0;
  }
  /* children of node p: kids[first[p] .. first[p+1]) */
  for (uint32_t i = 1; i < nn; i++) first[nd[i].parent + 1]++;
  for (uint32_t i = 0; i < nn; i++) first[i + 1] += first[i];
  for (uint32_t i = 0; i < nn; i++) next[i] = first[i];
  for (uint32_t i = 1; i < nn; i++) kids[next[nd[i].parent]++] = i;
  for (uint32_t i = 0; i < nn; i++) next[i] = first[i];
  stack[sp++] = 0;                  /* the root: no function */
  while (sp > 0) {
    uint32_t v = stack[sp - 1], fv = nd[v].func;
    if (fv != LI_NONE) fv = slot_of(slot, fv);
    if (next[v] == first[v] && fv != LI_NONE)       /* first visit */
      add_node(&fn[fv], &nd[v], onpath[fv]++ == 0);
    if (next[v] < first[v + 1]) {
      uint32_t c = kids[next[v]++], fc = slot_of(slot, nd[c].func);
      if (first[c] == first[c + 1])                  /* a leaf: no push */
        add_node(&fn[fc], &nd[c], onpath[fc] == 0);
      else
        stack[sp++] = c;
    } else {
      if (fv != LI_NONE) onpath[fv]--;
      sp--;
    }
  }
  free(first); free(kids); free(next); free(stack); free(onpath);
  /* min <= mean <= max <= total for the function too: its nodes' are, but
  ** a call that ran in two nodes (a coroutine resumed from two places,
  ** li_stack_rebase) has its length in neither */
  for (uint32_t f = 0; f < nfn; f++) {
    li_tally *t = &fn[f];
    int64_t lo, hi;
    if (t->calls == 0) continue;
    /* (the mean of its calls' times, a recursion's inner ones too, which
    ** its total counts once) */
    lo = t->kid / (int64_t)t->calls;
    hi = lo + (t->kid % (int64_t)t->calls != 0);
    if (hi > t->total) hi = t->total;
    if (lo > hi) lo = hi;
    if (t->calls == 1) t->mn = t->mx = t->total;
    t->mn = clamp64(t->mn, 0, lo);
    t->mx = clamp64(t->mx, hi, t->total);
  }
  return 1;
}

