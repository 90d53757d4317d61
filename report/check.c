/*
** check.c -- do a profile's figures agree with each other (issue 32)?
** The runtime derives them so that they do (runtime/figures.c), the
** readers rebuild them from what a file holds, merge adds them up; this
** checks the result from the model alone, with code of its own, so that
** a slip in any of those shows as a contradiction here and not as a
** figure a user cannot trust.  LUAINSTR_CHECK makes every report check
** its profile first (report.c); the suite runs with it set.
**
** Sums are over whole nanoseconds that were each rounded once: a sum of
** n figures may be off by n ns (SLACK), and no more.
*/
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"

/* What a function's nodes add up to. */
typedef struct fsum {
  uint64_t calls, errors, self;
  uint64_t outer;       /* totals of its outermost nodes (none of the same
                           function above them): its total */
  uint64_t all;         /* totals of all its nodes: the sum of its calls'
                           times, each call counted once */
  uint64_t nodes, nouter;
} fsum;

/* The state of one check. */
typedef struct checker {
  const li_profile *p;
  char *why;
  size_t len;
} checker;

/* Rounding allowed in a sum of n figures (1 ns each). */
#define SLACK(n) ((uint64_t)(n))

static uint64_t add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Is a within slack of b? */
static int near(uint64_t a, uint64_t b, uint64_t slack) {
  return a > b ? a - b <= slack : b - a <= slack;
}

static int fail(checker *c, const char *fmt, ...) {
  va_list ap;
  if (c->why != NULL && c->len > 0) {
    va_start(ap, fmt);
    vsnprintf(c->why, c->len, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static const char *fname(const checker *c, uint32_t f) {
  const char *s = f < c->p->nfuncs ? c->p->funcs[f].name : NULL;
  return s != NULL ? s : "?";
}

/* ---- a call tree ------------------------------------------------------- */

/* The rules of every node of nd[0..n): the model's shape (parents first,
** functions in range), errors <= calls, self <= total, and its total is
** its self time plus its children's totals (a root node given as 0 tells
** nothing: hand-made profiles leave it so). */
static int check_nodes(checker *c, const li_pnode *nd, uint32_t n,
                       const char *tree) {
  uint64_t *kid = calloc(n, sizeof *kid);
  uint32_t *nkid = calloc(n, sizeof *nkid);
  int r = 0;
  if (kid == NULL || nkid == NULL) goto done;     /* cannot tell: pass */
  for (uint32_t i = 1; i < n && r == 0; i++) {
    if (nd[i].parent >= i)
      r = fail(c, "%s: node %" PRIu32 " has parent %" PRIu32 ", not one "
               "before it", tree, i, nd[i].parent);
    else if (nd[i].func >= c->p->nfuncs)
      r = fail(c, "%s: node %" PRIu32 " has function %" PRIu32 " of %"
               PRIu32, tree, i, nd[i].func, c->p->nfuncs);
    else {
      kid[nd[i].parent] = add(kid[nd[i].parent], nd[i].total_ns);
      nkid[nd[i].parent]++;
    }
  }
  for (uint32_t i = 0; i < n && r == 0; i++) {
    const li_pnode *v = &nd[i];
    const char *name = i > 0 ? fname(c, v->func) : "root";
    if (v->errors > v->calls)
      r = fail(c, "%s: node %" PRIu32 " (%s): errors %" PRIu64 " > calls %"
               PRIu64, tree, i, name, v->errors, v->calls);
    else if (v->self_ns > v->total_ns)
      r = fail(c, "%s: node %" PRIu32 " (%s): self_ns %" PRIu64 " > "
               "total_ns %" PRIu64, tree, i, name, v->self_ns, v->total_ns);
    else if (i == 0 && v->total_ns == 0)
      continue;
    else if (kid[i] > add(v->total_ns, SLACK(nkid[i])))
      r = fail(c, "%s: node %" PRIu32 " (%s): its %" PRIu32 " children's "
               "total_ns add up to %" PRIu64 " > its total_ns %" PRIu64,
               tree, i, name, nkid[i], kid[i], v->total_ns);
    else if (!near(v->total_ns, add(v->self_ns, kid[i]), SLACK(nkid[i])))
      r = fail(c, "%s: node %" PRIu32 " (%s): total_ns %" PRIu64 " is not "
               "self_ns %" PRIu64 " + its children's %" PRIu64, tree, i,
               name, v->total_ns, v->self_ns, kid[i]);
  }
done:
  free(kid);
  free(nkid);
  return r;
}

/* What each function's nodes add up to (fs: nfuncs of them, zeroed), by
** a depth-first walk that keeps how many nodes of each function are on
** the path from the root.  The tree's shape was checked.  0, or -1 when
** memory ran out. */
static int sum_nodes(const li_profile *p, fsum *fs) {
  uint32_t n = p->nnodes, sp = 0;
  uint32_t *first = calloc((size_t)n + 1, sizeof *first);
  uint32_t *kids = malloc((size_t)n * sizeof *kids);
  uint32_t *next = malloc((size_t)n * sizeof *next);
  uint32_t *stack = malloc((size_t)n * sizeof *stack);
  uint32_t *onpath = calloc((size_t)p->nfuncs + 1, sizeof *onpath);
  int r = -1;
  if (first == NULL || kids == NULL || next == NULL || stack == NULL ||
      onpath == NULL)
    goto done;
  /* children of v: kids[first[v] .. first[v + 1]) */
  for (uint32_t i = 1; i < n; i++) first[p->nodes[i].parent + 1]++;
  for (uint32_t i = 0; i < n; i++) first[i + 1] += first[i];
  for (uint32_t i = 0; i < n; i++) next[i] = first[i];
  for (uint32_t i = 1; i < n; i++) kids[next[p->nodes[i].parent]++] = i;
  for (uint32_t i = 0; i < n; i++) next[i] = first[i];
  stack[sp++] = 0;
  while (sp > 0) {
    uint32_t v = stack[sp - 1];
    const li_pnode *nd = &p->nodes[v];
    if (v > 0 && next[v] == first[v]) {           /* first visit */
      fsum *s = &fs[nd->func];
      s->calls = add(s->calls, nd->calls);
      s->errors = add(s->errors, nd->errors);
      s->self = add(s->self, nd->self_ns);
      s->all = add(s->all, nd->total_ns);
      s->nodes++;
      if (onpath[nd->func]++ == 0) {
        s->outer = add(s->outer, nd->total_ns);
        s->nouter++;
      }
    }
    if (next[v] < first[v + 1]) {
      stack[sp++] = kids[next[v]++];
    } else {
      if (v > 0) onpath[nd->func]--;
      sp--;
    }
  }
  r = 0;
done:
  free(first);
  free(kids);
  free(next);
  free(stack);
  free(onpath);
  return r;
}

/* ---- functions ----------------------------------------------------------- */

/* Function f's own rules, and with a tree (s != NULL) that its figures
** are its nodes' sums.  min and max are one call's: min <= the mean <=
** max, where the mean is over the times of all its calls (s->all: in a
** recursion the inner calls' times lie inside the outer ones', which its
** total counts once).  A profile read from pprof knows no min or max: 0
** for both. */
static int check_func(checker *c, uint32_t i, const fsum *s) {
  const li_pfunc *f = &c->p->funcs[i];
  const char *src = f->source != NULL ? f->source : "?";
  uint64_t times = s != NULL ? s->all : f->total_ns;
#define FN "function '%s' (%s:%" PRIu32 "): "
#define FA fname(c, i), src, f->line
  if (f->errors > f->calls)
    return fail(c, FN "errors %" PRIu64 " > calls %" PRIu64, FA, f->errors,
                f->calls);
  if (f->self_ns > f->total_ns)
    return fail(c, FN "self_ns %" PRIu64 " > total_ns %" PRIu64, FA,
                f->self_ns, f->total_ns);
  if (s != NULL) {
    if (f->calls != s->calls || f->errors != s->errors)
      return fail(c, FN "calls %" PRIu64 ", errors %" PRIu64 ", but its %"
                  PRIu64 " nodes' add up to %" PRIu64 ", %" PRIu64, FA,
                  f->calls, f->errors, s->nodes, s->calls, s->errors);
    if (!near(f->self_ns, s->self, SLACK(s->nodes)))
      return fail(c, FN "self_ns %" PRIu64 ", but its %" PRIu64 " nodes' "
                  "add up to %" PRIu64, FA, f->self_ns, s->nodes, s->self);
    if (!near(f->total_ns, s->outer, SLACK(s->nouter)))
      return fail(c, FN "total_ns %" PRIu64 ", but its %" PRIu64 " outermost "
                  "nodes' add up to %" PRIu64, FA, f->total_ns, s->nouter,
                  s->outer);
  }
  if (f->calls == 0 || (f->min_ns == 0 && f->max_ns == 0))
    return 0;
  if (f->min_ns > f->max_ns || f->max_ns > f->total_ns)
    return fail(c, FN "min_ns %" PRIu64 ", max_ns %" PRIu64 ", total_ns %"
                PRIu64 " out of order", FA, f->min_ns, f->max_ns, f->total_ns);
  if (f->calls == 1 && (f->min_ns != f->total_ns || f->max_ns != f->total_ns))
    return fail(c, FN "one call, but min_ns %" PRIu64 ", max_ns %" PRIu64
                ", total_ns %" PRIu64, FA, f->min_ns, f->max_ns, f->total_ns);
  /* min * calls <= times <= max * calls, the mean within 1 ns; without a
     tree a recursion's times are not known, and its total is less */
  if ((s != NULL && f->min_ns > times / f->calls + 1) ||
      add(f->max_ns, 1) < times / f->calls + (times % f->calls != 0))
    return fail(c, FN "min_ns %" PRIu64 ", max_ns %" PRIu64 ", but %" PRIu64
                " calls took %" PRIu64 " ns", FA, f->min_ns, f->max_ns,
                f->calls, times);
#undef FN
#undef FA
  return 0;
}

/* ---- the profile --------------------------------------------------------- */

static int check_funcs(checker *c) {
  const li_profile *p = c->p;
  fsum *fs = NULL;
  int r = 0;
  if (p->nnodes > 0) {
    fs = calloc((size_t)p->nfuncs + 1, sizeof *fs);
    if (fs == NULL || sum_nodes(p, fs) != 0) {
      free(fs);                               /* cannot tell: pass */
      return 0;
    }
  }
  for (uint32_t i = 0; i < p->nfuncs && r == 0; i++)
    r = check_func(c, i, fs != NULL ? &fs[i] : NULL);
  free(fs);
  return r;
}

/* No call that began at the root lasted longer than the profiler ran. */
static int check_wall(checker *c) {
  const li_profile *p = c->p;
  if (p->wall_ns == 0) return 0;              /* not known (pprof) */
  for (uint32_t i = 1; i < p->nnodes; i++)
    if (p->nodes[i].parent == 0 && p->nodes[i].total_ns > add(p->wall_ns, 1))
      return fail(c, "tree: node %" PRIu32 " (%s): total_ns %" PRIu64
                  " > wall_ns %" PRIu64, i, fname(c, p->nodes[i].func),
                  p->nodes[i].total_ns, p->wall_ns);
  return 0;
}

static int check_frames(checker *c) {
  const li_profile *p = c->p;
  char buf[64];
  for (uint64_t i = 0; p->frames != NULL && i < p->nframes; i++)
    if (p->frames[i].idle_ns > p->frames[i].duration_ns)
      return fail(c, "frame %" PRIu64 ": idle_ns %" PRIu64 " > duration_ns %"
                  PRIu64, p->frames[i].index, p->frames[i].idle_ns,
                  p->frames[i].duration_ns);
  for (uint32_t i = 0; p->spikes != NULL && i < p->nspikes; i++) {
    const li_pspike *s = &p->spikes[i];
    snprintf(buf, sizeof buf, "spike frame %" PRIu64 "'s tree", s->frame);
    if (check_nodes(c, s->nodes, s->nnodes, buf) != 0) return -1;
  }
  return 0;
}

int li_profile_check(const li_profile *p, char *why, size_t len) {
  checker c = { p, why, len };
  if (why != NULL && len > 0) why[0] = '\0';
  if (p->nnodes > 0 && check_nodes(&c, p->nodes, p->nnodes, "tree") != 0)
    return -1;
  if (check_funcs(&c) != 0 || check_wall(&c) != 0 || check_frames(&c) != 0)
    return -1;
  return 0;
}
