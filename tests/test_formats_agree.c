/*
** test_formats_agree.c -- every format shows the same numbers (issue 32):
** a profile written as json and read back, written as pprof and read back,
** merged alone, and written as csv holds the very figures it had, and
** li_profile_check finds nothing in any of them.  Two profiles: the
** report tests' known one (names that need escaping everywhere) and a real
** one, derived by the runtime from a run on virtual time with recursion,
** errors and memory mode.
*/
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vtime.h"
#include "reader.h"
#include "report.h"
#include "writers.h"
#include "known_profile.h"

static li_pfunc known_funcs[] = { LI_KNOWN_FUNCS };
static li_pnode known_nodes[] = { LI_KNOWN_NODES };

static li_profile known(void) {
  li_profile p;
  memset(&p, 0, sizeof p);
  p.funcs = known_funcs;
  p.nfuncs = sizeof known_funcs / sizeof known_funcs[0];
  p.nodes = known_nodes;
  p.nnodes = sizeof known_nodes / sizeof known_nodes[0];
  p.wall_ns = 2000000000;
  p.clock = "tsc";
  return p;
}

/* A run's profile: a recursion, calls that end in an error, a leaf called
** from two places, allocations. */
static const char *const program =
  "local function leaf(n) spin(n) local t = {} return t end\n"
  "local function rec(d) spin(100) if d > 0 then rec(d - 1) end leaf(50) end\n"
  "local function boom() spin(10) error('x') end\n"
  "for i = 1, 5 do rec(3) pcall(boom) leaf(7) end\n";

static void check_agrees(const li_profile *p, const char *what) {
  char why[512];
  cr_assert_eq(li_profile_check(p, why, sizeof why), 0, "%s: %s", what, why);
}

static int same_str(const char *a, const char *b) {
  return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* Everything json holds of the figures is the same in q as in p. */
static void same_figures(const li_profile *p, const li_profile *q, const char *what) {
  cr_assert_eq(q->nfuncs, p->nfuncs, "%s", what);
  cr_assert_eq(q->nnodes, p->nnodes, "%s", what);
  cr_assert_eq(q->wall_ns, p->wall_ns, "%s", what);
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    const li_pfunc *a = &p->funcs[i], *b = &q->funcs[i];
    cr_assert(same_str(a->name, b->name) && same_str(a->source, b->source) &&
              a->line == b->line && a->lastline == b->lastline &&
              !a->zone == !b->zone, "%s: function %u is another", what, i);
    cr_assert(a->calls == b->calls && a->errors == b->errors &&
              a->total_ns == b->total_ns && a->self_ns == b->self_ns &&
              a->min_ns == b->min_ns && a->max_ns == b->max_ns,
              "%s: %s: %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
              " %" PRIu64 " became %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
              " %" PRIu64 " %" PRIu64, what, a->name, a->calls, a->errors,
              a->total_ns, a->self_ns, a->min_ns, a->max_ns, b->calls, b->errors,
              b->total_ns, b->self_ns, b->min_ns, b->max_ns);
    cr_assert(a->total_err_ns == b->total_err_ns && a->self_err_ns == b->self_err_ns &&
              a->min_err_ns == b->min_err_ns && a->max_err_ns == b->max_err_ns,
              "%s: %s: uncertainties differ", what, a->name);
    cr_assert(memcmp(&a->mem, &b->mem, sizeof a->mem) == 0,
              "%s: %s: memory figures differ", what, a->name);
  }
  for (uint32_t i = 0; i < p->nnodes; i++) {
    const li_pnode *a = &p->nodes[i], *b = &q->nodes[i];
    cr_assert(a->func == b->func && a->parent == b->parent &&
              a->calls == b->calls && a->errors == b->errors &&
              a->total_ns == b->total_ns && a->self_ns == b->self_ns &&
              a->total_err_ns == b->total_err_ns && a->self_err_ns == b->self_err_ns,
              "%s: node %u differs", what, i);
    /* (a node's peak is not kept: 0 in the model, left out of json) */
    cr_assert(a->mem.alloc_bytes == b->mem.alloc_bytes &&
              a->mem.alloc_bytes_total == b->mem.alloc_bytes_total &&
              a->mem.alloc_count == b->mem.alloc_count &&
              a->mem.live_bytes == b->mem.live_bytes,
              "%s: node %u's memory figures differ", what, i);
  }
}

static void via_json(const li_profile *p) {
  char *out, err[256];
  size_t len;
  cr_assert_eq(li_report_to_string(p, "json", &out, &len), 0);
  li_profile *q = li_read_json(out, len, "agree.json", err, sizeof err);
  cr_assert_not_null(q, "%s", err);
  check_agrees(q, "json read back");
  same_figures(p, q, "json");
  li_profile_free(q);
  free(out);
}

static void via_merge(const li_profile *p) {
  char err[256];
  li_profile *m = li_merge(&p, 1, err, sizeof err);
  cr_assert_not_null(m, "%s", err);
  check_agrees(m, "merged alone");
  same_figures(p, m, "merge of one");
  li_profile_free(m);
}

/* pprof holds each path's calls and self time: the functions' calls,
** self and total times come back (min, max and errors it has no room for). */
static void via_pprof(const li_profile *p) {
#ifdef LI_PPROF
  char *out, err[256];
  size_t len;
  cr_assert_eq(li_report_to_string(p, "pprof", &out, &len), 0);
  li_profile *q = li_read_pprof(out, len, "agree.pb.gz", err, sizeof err);
  cr_assert_not_null(q, "%s", err);
  check_agrees(q, "pprof read back");
  cr_assert_eq(q->nfuncs, p->nfuncs);
  cr_assert_eq(q->wall_ns, p->wall_ns);
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    const li_pfunc *a = &p->funcs[i], *b = &q->funcs[i];
    cr_assert(a->calls == b->calls && a->self_ns == b->self_ns &&
              a->total_ns == b->total_ns, "pprof: %s: %" PRIu64 " calls, %"
              PRIu64 " self, %" PRIu64 " total became %" PRIu64 ", %" PRIu64
              ", %" PRIu64, a->name, a->calls, a->self_ns, a->total_ns,
              b->calls, b->self_ns, b->total_ns);
  }
  li_profile_free(q);
  free(out);
#else
  (void)p;
#endif
}

/* The csv rows (names without quotes or commas: the run's) hold the
** functions' figures in the report's order. */
static void via_csv(const li_profile *p) {
  char *out, *line, *save = NULL;
  size_t len;
  uint32_t n, row = 0;
  const li_pfunc **order = li_report_order(p, &n);
  cr_assert_eq(li_report_to_string(p, "csv", &out, &len), 0);
  strtok_r(out, "\n", &save);                           /* the header */
  while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
    char name[128], source[128];
    unsigned long long v[18];
    cr_assert_lt(row, n, "more rows than called functions");
    cr_assert_eq(sscanf(line, "%127[^,],%127[^,],%llu,%llu,%llu,%llu,%llu,%llu,"
                        "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu",
                        name, source, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                        &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12],
                        &v[13], &v[14], &v[15], &v[16], &v[17]), 20, "%s", line);
    const li_pfunc *f = order[row++];
    cr_assert_str_eq(name, f->name);
    cr_assert(v[2] == f->calls && v[3] == f->total_ns && v[4] == f->self_ns &&
              v[5] == f->min_ns && v[6] == f->max_ns && v[7] == f->errors &&
              v[14] == f->total_err_ns && v[15] == f->self_err_ns &&
              v[16] == f->min_err_ns && v[17] == f->max_err_ns, "csv: %s", line);
  }
  cr_assert_eq(row, n);
  free(order);
  free(out);
}

Test(formats_agree, the_known_profile) {
  li_profile p = known();
  check_agrees(&p, "the known profile");
  via_json(&p);
  via_merge(&p);
  via_pprof(&p);
}

Test(formats_agree, a_run) {
  lua_State *L = vstate("memory", "on", NULL);
  li_profile p;
  vrun(L, program);
  snap(L, &p);
  cr_assert_gt(p.nnodes, 5);
  cr_assert_not_null(func(&p, "local rec"));
  cr_assert_gt(func(&p, "local boom")->errors, 0);
  check_agrees(&p, "the run's profile");
  via_json(&p);
  via_merge(&p);
  via_pprof(&p);
  via_csv(&p);
  li_snapshot_free(&p);
  lua_close(L);
}
