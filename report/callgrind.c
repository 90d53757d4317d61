/*
** callgrind.c -- the `callgrind` report: the Callgrind profile format,
** version 1, for KCachegrind/QCachegrind and callgrind_annotate.  One event,
** `ns`: time in nanoseconds with the probes' cost subtracted; in memory
** mode a second one, `alloc`: bytes allocated, self on the cost lines and
** the callee's alloc_bytes_total on the call lines (by the same rule as
** time: nothing again for a call within a recursion).  Without memory mode
** the second column is left out, so that those files stay as they were.
**
** Per called function, in the text report's order: fl= its source, fn= its
** name, one cost line `LINE SELF` (LINE: the function's first line, 0 for a
** main chunk), then one call record per function it called, aggregated
** over the call tree by (caller, callee):
**
**   cfi=(2) lib.lua
**   cfn=(5) helper:10
**   calls=COUNT 10          the callee's first line
**   LINE INCLUSIVE          the caller's first line: no call sites are known
**
** INCLUSIVE adds up the callee's time once per outermost activation, as
** li_pfunc.total_ns does: a call to a function already running further up
** the stack (recursion) counts its calls but adds no time, since the outer
** activation holds it already.  So for a function reached only through
** recursion of itself, self + calls is its total_ns.  Mutual recursion
** (f -> g -> f) still counts g's time in f's call to g and f's inner time
** in g's self time: in a cycle, inclusive figures overlap, as they do in
** valgrind's own profiles.  `summary:` and `totals:` are the sum of the
** functions' self time.
**
** Names: fn= is the function's name and its first line, `M.parse:10` (a
** main chunk: `main chunk`), so two functions with one name in one file
** stay apart; should two still coincide (two chunks loaded under one name),
** the later ones get ` #2`, ` #3`... in report order.  Names and sources are
** written as the text report writes them (control characters and bytes
** that are not UTF-8 become \n, \r, \t, \xNN), so that every record is one
** line.  Files and functions use name compression (`(id) name` the first
** time, `(id)` after), which also keeps a name that starts with "(1)" from
** being read as an id.
*/
#define _XOPEN_SOURCE 700          /* open_memstream */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "writers.h"

#define NONE UINT32_MAX

/* What the writer works from; every array is indexed as its comment says. */
typedef struct cg_state {
  const li_profile *p;
  const li_pfunc **order;  /* called functions, report order (by rank) */
  uint32_t n;              /* their number */
  uint32_t *rank;          /* by funcs index: position in order, or NONE */
  char **fname;            /* by rank: the fn= name, escaped and unique */
  char **fsrc;             /* by rank: the fl= name, escaped */
  uint32_t *file;          /* by rank: file id (1-based, shared by sources) */
  unsigned char *fn_said;  /* by rank: fn name already given */
  unsigned char *fl_said;  /* by file id: fl name already given */
} cg_state;

/* One aggregated call: caller and callee by rank. */
typedef struct cg_edge {
  uint32_t caller, callee;
  uint64_t calls, cost;
  uint64_t alloc;          /* bytes, including the callee's callees' */
} cg_edge;

/* ---- names ------------------------------------------------------------- */

/* s escaped as one line, then suffix (printf-style), malloc'd. */
static char *escaped(const char *s, const char *fmt, uint64_t arg) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (m == NULL) return NULL;
  li_put_line_text(m, s != NULL && s[0] != '\0' ? s : "?", NULL);
  if (fmt != NULL) fprintf(m, fmt, arg);
  if (fclose(m) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

static cg_state *sort_state;   /* qsort has no context argument */

/* By source, then name, then rank: equal names end up side by side,
** earliest in report order first. */
static int cmp_by_name(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  int c = strcmp(sort_state->fsrc[x], sort_state->fsrc[y]);
  if (c == 0) c = strcmp(sort_state->fname[x], sort_state->fname[y]);
  if (c == 0) c = x < y ? -1 : (x > y);
  return c;
}

/* fn= and fl= names, unique function names, file ids.  0 or -1. */
static int make_names(cg_state *S) {
  uint32_t *by = malloc(((size_t)S->n + 1) * sizeof *by), files = 0;
  uint64_t *dupno = malloc(((size_t)S->n + 1) * sizeof *dupno);
  if (by == NULL || dupno == NULL) goto fail;
  for (uint32_t r = 0; r < S->n; r++) {
    const li_pfunc *fn = S->order[r];
    S->fsrc[r] = escaped(fn->source, NULL, 0);
    S->fname[r] = fn->line != 0 ? escaped(fn->name, ":%" PRIu64, fn->line)
                                : escaped(fn->name, NULL, 0);
    if (S->fsrc[r] == NULL || S->fname[r] == NULL) goto fail;
    by[r] = r;
  }
  sort_state = S;
  qsort(by, S->n, sizeof *by, cmp_by_name);
  /* file ids, and the number of each name within its run of equal
  ** (source, name), all before renaming any of them */
  for (uint32_t k = 0; k < S->n; k++) {
    uint32_t r = by[k], q = k > 0 ? by[k - 1] : NONE;
    int same_file = q != NONE && strcmp(S->fsrc[q], S->fsrc[r]) == 0;
    if (!same_file) files++;
    S->file[r] = files;
    dupno[r] = same_file && strcmp(S->fname[q], S->fname[r]) == 0
                   ? dupno[q] + 1 : 1;
  }
  for (uint32_t r = 0; r < S->n; r++) {
    if (dupno[r] > 1) {       /* escaping escaped text changes nothing */
      char *u = escaped(S->fname[r], " #%" PRIu64, dupno[r]);
      if (u == NULL) goto fail;
      free(S->fname[r]);
      S->fname[r] = u;
    }
  }
  free(dupno);
  S->fl_said = calloc((size_t)files + 1, 1);
  free(by);
  return S->fl_said != NULL ? 0 : -1;
fail:
  free(by);
  free(dupno);
  return -1;
}

/* ---- the call tree: outermost activations, aggregated calls ------------ */

/* nested[i]: node i's function is already running in an ancestor of i.
** A depth-first walk keeps a count of activations per function. */
static int mark_nested(const li_profile *p, unsigned char *nested) {
  uint32_t nn = p->nnodes;
  uint32_t *child = malloc(((size_t)nn + 1) * sizeof *child);
  uint32_t *next = malloc(((size_t)nn + 1) * sizeof *next);
  uint32_t *stack = malloc(((size_t)nn + 1) * sizeof *stack);
  uint32_t *active = calloc((size_t)p->nfuncs + 1, sizeof *active);
  uint32_t sp = 0;
  int st = -1;
  if (child == NULL || next == NULL || stack == NULL || active == NULL)
    goto done;
  for (uint32_t i = 0; i < nn; i++) child[i] = next[i] = NONE;
  for (uint32_t i = nn; i-- > 1;) {     /* backwards: siblings in order */
    uint32_t par = p->nodes[i].parent < i ? p->nodes[i].parent : 0;
    next[i] = child[par];
    child[par] = i;
  }
  stack[sp++] = 0;
  while (sp > 0) {
    uint32_t u = stack[sp - 1], c = child[u];
    if (c != NONE) {
      uint32_t fc = p->nodes[c].func;
      child[u] = next[c];               /* consumed: the next child next */
      nested[c] = fc < p->nfuncs && active[fc] > 0;
      if (fc < p->nfuncs) active[fc]++;
      stack[sp++] = c;
    } else {
      uint32_t fu = p->nodes[u].func;
      sp--;
      if (u != 0 && fu < p->nfuncs) active[fu]--;
    }
  }
  st = 0;
done:
  free(child);
  free(next);
  free(stack);
  free(active);
  return st;
}

static int cmp_edge(const void *a, const void *b) {
  const cg_edge *x = a, *y = b;
  if (x->caller != y->caller) return x->caller < y->caller ? -1 : 1;
  if (x->callee != y->callee) return x->callee < y->callee ? -1 : 1;
  return 0;
}

/* The calls between called functions, one per (caller, callee), sorted by
** caller then callee rank.  NULL when memory ran out. */
static cg_edge *make_edges(const cg_state *S, uint32_t *nedges) {
  const li_profile *p = S->p;
  unsigned char *nested = calloc((size_t)p->nnodes + 1, 1);
  cg_edge *e = malloc(((size_t)p->nnodes + 1) * sizeof *e);
  uint32_t k = 0, m = 0;
  *nedges = 0;
  if (nested == NULL || e == NULL ||
      (p->nnodes > 1 && mark_nested(p, nested) != 0)) {
    free(nested);
    free(e);
    return NULL;
  }
  for (uint32_t i = 1; i < p->nnodes; i++) {
    const li_pnode *nd = &p->nodes[i];
    uint32_t par = nd->parent < i ? nd->parent : 0;
    uint32_t fa = p->nodes[par].func, fb = nd->func;
    if (par == 0 || fa >= p->nfuncs || fb >= p->nfuncs) continue;
    if (S->rank[fa] == NONE || S->rank[fb] == NONE) continue;
    e[k].caller = S->rank[fa];
    e[k].callee = S->rank[fb];
    e[k].calls = nd->calls;
    e[k].cost = nested[i] ? 0 : nd->total_ns;
    e[k].alloc = nested[i] ? 0 : nd->mem.alloc_bytes_total;
    k++;
  }
  free(nested);
  qsort(e, k, sizeof *e, cmp_edge);
  for (uint32_t i = 0; i < k; i++) {
    if (m > 0 && cmp_edge(&e[m - 1], &e[i]) == 0) {
      e[m - 1].calls += e[i].calls;
      e[m - 1].cost += e[i].cost;
      e[m - 1].alloc += e[i].alloc;
    } else {
      e[m++] = e[i];
    }
  }
  *nedges = m;
  return e;
}

/* ---- output ------------------------------------------------------------ */

/* "(id) name" the first time, "(id)" after. */
static void put_file(FILE *f, const char *key, cg_state *S, uint32_t r) {
  uint32_t id = S->file[r];
  fprintf(f, "%s=(%" PRIu32 ")", key, id);
  if (!S->fl_said[id]) fprintf(f, " %s", S->fsrc[r]);
  S->fl_said[id] = 1;
  putc('\n', f);
}

static void put_func(FILE *f, const char *key, cg_state *S, uint32_t r) {
  fprintf(f, "%s=(%" PRIu32 ")", key, r + 1);
  if (!S->fn_said[r]) fprintf(f, " %s", S->fname[r]);
  S->fn_said[r] = 1;
  putc('\n', f);
}

/* A cost's figures: time, then (memory mode) bytes. */
static void put_cost(FILE *f, const li_profile *p, uint32_t line, uint64_t ns,
                     uint64_t bytes) {
  fprintf(f, "%" PRIu32 " %" PRIu64, line, ns);
  if (p->memory) fprintf(f, " %" PRIu64, bytes);
  putc('\n', f);
}

static void put_profile(FILE *f, cg_state *S, const cg_edge *e,
                        uint32_t nedges) {
  const li_profile *p = S->p;
  uint64_t total = 0, bytes = 0;
  for (uint32_t r = 0; r < S->n; r++) {
    total += S->order[r]->self_ns;
    bytes += S->order[r]->mem.alloc_bytes;
  }
  fputs("# callgrind format\n"
        "version: 1\n"
        "creator: luainstr", f);
  if (p->version != NULL) {
    putc(' ', f);
    li_put_line_text(f, p->version, NULL);
  }
  fputs("\n", f);
  if (p->count_small > 0)       /* (a comment line: viewers skip it) */
    fprintf(f, "# counted, not timed: functions of at most %" PRIu32 " tokens"
            " with no call or loop have calls and no time (their callers' self)\n",
            p->count_small);
  fputs("positions: line\n"
        "event: ns : Time (ns, probe cost subtracted)\n", f);
  if (p->memory)
    fputs("event: alloc : Bytes allocated\n"
          "events: ns alloc\n", f);
  else
    fputs("events: ns\n", f);
  fprintf(f, "summary: %" PRIu64, total);
  if (p->memory) fprintf(f, " %" PRIu64, bytes);
  putc('\n', f);
  for (uint32_t r = 0, k = 0; r < S->n; r++) {
    const li_pfunc *fn = S->order[r];
    putc('\n', f);
    put_file(f, "fl", S, r);
    put_func(f, "fn", S, r);
    put_cost(f, p, fn->line, fn->self_ns, fn->mem.alloc_bytes);
    for (; k < nedges && e[k].caller == r; k++) {
      uint32_t c = e[k].callee;
      put_file(f, "cfi", S, c);
      put_func(f, "cfn", S, c);
      fprintf(f, "calls=%" PRIu64 " %" PRIu32 "\n", e[k].calls,
              S->order[c]->line);
      put_cost(f, p, fn->line, e[k].cost, e[k].alloc);
    }
  }
  fprintf(f, "\ntotals: %" PRIu64, total);
  if (p->memory) fprintf(f, " %" PRIu64, bytes);
  putc('\n', f);
}

static void free_state(cg_state *S) {
  for (uint32_t r = 0; r < S->n; r++) {
    if (S->fname != NULL) free(S->fname[r]);
    if (S->fsrc != NULL) free(S->fsrc[r]);
  }
  free(S->fname);
  free(S->fsrc);
  free(S->file);
  free(S->fn_said);
  free(S->fl_said);
  free(S->rank);
  free(S->order);
}

int li_write_callgrind(const li_profile *p, FILE *f) {
  cg_state S;
  cg_edge *e = NULL;
  uint32_t nedges = 0;
  int st = -1;
  memset(&S, 0, sizeof S);
  S.p = p;
  S.order = li_report_order(p, &S.n);
  if (S.order == NULL) return -1;
  S.rank = malloc(((size_t)p->nfuncs + 1) * sizeof *S.rank);
  S.fname = calloc((size_t)S.n + 1, sizeof *S.fname);
  S.fsrc = calloc((size_t)S.n + 1, sizeof *S.fsrc);
  S.file = calloc((size_t)S.n + 1, sizeof *S.file);
  S.fn_said = calloc((size_t)S.n + 1, 1);
  if (S.rank == NULL || S.fname == NULL || S.fsrc == NULL || S.file == NULL ||
      S.fn_said == NULL)
    goto done;
  for (uint32_t i = 0; i < p->nfuncs; i++) S.rank[i] = NONE;
  for (uint32_t r = 0; r < S.n; r++)
    S.rank[(uint32_t)(S.order[r] - p->funcs)] = r;
  if (make_names(&S) != 0) goto done;
  if ((e = make_edges(&S, &nedges)) == NULL) goto done;
  put_profile(f, &S, e, nedges);
  st = ferror(f) ? -1 : 0;
done:
  if (st != 0 && !ferror(f)) errno = ENOMEM;
  free(e);
  free_state(&S);
  return st;
}
