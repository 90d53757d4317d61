/*
** fuzz_report.c -- libFuzzer target: every report writer over a profile
** made from the fuzzer's bytes (any names and sources, any figures, any
** call tree, trace, frames, spike trees and memory figures that keep
** report.h's invariants: node 0 the root, parents before children,
** function indices in range, events and frames in time order, spikes in
** frame order and flagged on their frames).
**
** Properties: no writer crashes, leaks or fails; `json` and `chrome` are
** valid JSON (json_check.c, strict); `csv` has 20 fields in every record,
** one record per called function after the header, in li_report_order's
** order, with names and sources read back byte for byte; `folded` values
** add up to the rounded total self time (docs/reports.md), `folded-calls` values
** to the calls, with one frame per level of the node's path, and
** `folded-alloc` values to the nodes' own allocated bytes.  (helper-merge)
** The `json` report reads back (li_read_json) into a profile whose `json`
** report is the same bytes, and li_merge of the profile with itself
** doubles every function's calls.  (Issue 32) Half the profiles have
** figures that agree, as a snapshot's do (add_up: totals from self times,
** functions from their nodes, min and max about the mean): li_profile_check
** passes on them, on what the json and pprof readers read back, and on
** their merge, and pprof's functions read back with the same calls, self
** and total times.  li_profile_check also runs on every other profile,
** for its own sake: it must not crash on any model.
*/
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "json_check.h"
#include "reader.h"
#include "report.h"
#include "writers.h"

#define MAX_FUNCS 12
#define MAX_NODES 48
#define MAX_EVENTS 64
#define MAX_FRAMES 16
#define MAX_SPIKES 3
#define MAX_SPIKE_NODES 8
#define SELF_LIMIT ((uint64_t)1 << 48)  /* so that sums of nodes never wrap */

/* ---- the profile ---------------------------------------------------------- */

typedef struct built {
  li_profile p;
  li_pfunc funcs[MAX_FUNCS];
  li_pnode nodes[MAX_NODES];
  li_pevent events[MAX_EVENTS];
  li_pframe frames[MAX_FRAMES];
  li_pspike spikes[MAX_SPIKES];
  li_pnode spike_nodes[MAX_SPIKES][MAX_SPIKE_NODES];
  char *strings[2 * MAX_FUNCS + 2];     /* every malloc'd string */
  size_t nstrings;
  int agree;                            /* figures made to agree (add_up) */
} built;

static char *keep(built *b, char *s) {
  b->strings[b->nstrings++] = s;
  return s;
}

/* Any u64, but often a small one, which is what real profiles hold. */
static uint64_t figure(fz_bytes *in) {
  unsigned k = (unsigned)fz_upto(in, 3);
  return k == 0 ? fz_upto(in, 10) : k == 1 ? fz_upto(in, 1000000)
       : k == 2 ? fz_u64(in, 5) : fz_u64(in, 8);
}

/* Memory figures; alloc_bytes bounded so that sums of nodes never wrap. */
static void build_mem(li_pmem *m, fz_bytes *in) {
  if (fz_upto(in, 1) == 0) return;             /* often none at all */
  m->alloc_bytes = figure(in) % SELF_LIMIT;
  m->alloc_count = figure(in);
  m->alloc_bytes_total = figure(in);
  m->alloc_count_total = figure(in);
  m->free_bytes = figure(in);
  m->live_bytes = figure(in);
  m->peak_live_bytes = figure(in);
  m->max_alloc_bytes = figure(in);
}

static void build_funcs(built *b, fz_bytes *in) {
  b->p.nfuncs = (uint32_t)fz_upto(in, MAX_FUNCS);
  for (uint32_t i = 0; i < b->p.nfuncs; i++) {
    li_pfunc *f = &b->funcs[i];
    f->name = keep(b, fz_string(in, 48));
    f->source = keep(b, fz_string(in, 48));
    f->line = (uint32_t)figure(in);
    f->lastline = (uint32_t)figure(in);
    f->calls = figure(in);
    f->errors = figure(in);
    f->total_ns = figure(in);
    f->self_ns = figure(in);
    f->min_ns = figure(in);
    f->max_ns = figure(in);
    f->zone = fz_upto(in, 3) == 0;
    build_mem(&f->mem, in);
  }
}

static void build_nodes(built *b, fz_bytes *in) {
  b->p.nnodes = b->p.nfuncs == 0 ? 1 : 1 + (uint32_t)fz_upto(in, MAX_NODES - 1);
  memset(&b->nodes[0], 0, sizeof b->nodes[0]);
  b->nodes[0].func = UINT32_MAX;
  for (uint32_t i = 1; i < b->p.nnodes; i++) {
    li_pnode *n = &b->nodes[i];
    n->parent = (uint32_t)fz_upto(in, i - 1);
    n->func = (uint32_t)fz_upto(in, b->p.nfuncs - 1);
    n->calls = fz_upto(in, 1000000000);
    n->errors = figure(in);
    n->total_ns = figure(in);
    n->self_ns = figure(in) % SELF_LIMIT;
    build_mem(&n->mem, in);
  }
}

/* A spike frame's tree: like the run's, smaller. */
static void build_spike_tree(built *b, fz_bytes *in, uint32_t k) {
  li_pnode *nodes = b->spike_nodes[k];
  uint32_t n = 1 + (uint32_t)fz_upto(in, MAX_SPIKE_NODES - 1);
  nodes[0].func = UINT32_MAX;
  for (uint32_t i = 1; i < n; i++) {
    nodes[i].parent = (uint32_t)fz_upto(in, i - 1);
    nodes[i].func = (uint32_t)fz_upto(in, b->p.nfuncs - 1);
    nodes[i].calls = figure(in);
    nodes[i].total_ns = figure(in);
    nodes[i].self_ns = figure(in);
    build_mem(&nodes[i].mem, in);
  }
  b->spikes[k].nodes = nodes;
  b->spikes[k].nnodes = n;
}

static void build_frames(built *b, fz_bytes *in) {
  uint64_t ts = figure(in) % SELF_LIMIT, index = 1 + fz_upto(in, 1000);
  b->p.framing = (int)fz_upto(in, 1);
  if (!b->p.framing) return;
  b->p.nframes = fz_upto(in, MAX_FRAMES);
  for (uint64_t i = 0; i < b->p.nframes; i++) {
    li_pframe *fr = &b->frames[i];
    fr->index = index + i;
    fr->start_ns = ts;
    fr->duration_ns = figure(in) % SELF_LIMIT;
    ts += fr->duration_ns + fz_upto(in, 1000);
    fr->calls = figure(in);
    fr->alloc_bytes = figure(in);
    /* idle spans: within the frame, or (a model no snapshot makes) past it */
    fr->idle_ns = figure(in) % (fr->duration_ns + 2);
    if (b->p.nfuncs > 0 && b->p.nspikes < MAX_SPIKES && fz_upto(in, 3) == 0) {
      li_pspike *sp = &b->spikes[b->p.nspikes];
      sp->frame = fr->index;
      sp->duration_ns = fr->duration_ns;
      build_spike_tree(b, in, b->p.nspikes);
      fr->spike = ++b->p.nspikes;
    }
  }
  b->p.frames = b->frames;
  b->p.spikes = b->spikes;
  b->p.frames_marked = b->p.nframes + fz_upto(in, 100);
  b->p.frame_capacity = figure(in);
  b->p.spike_factor = (double)fz_upto(in, 100000) / 1000.0;
  b->p.spike_min_ns = figure(in);
  b->p.spike_keep = (uint32_t)fz_upto(in, 64);
  b->p.spikes_seen = b->p.nspikes + fz_upto(in, 100);
}

static void build_trace(built *b, fz_bytes *in) {
  static const char kinds[] = "BEXYRF";
  uint64_t ts = 0;
  b->p.tracing = (int)fz_upto(in, 1);
  if (!b->p.tracing || b->p.nfuncs == 0) return;
  b->p.nevents = fz_upto(in, MAX_EVENTS);
  for (uint64_t i = 0; i < b->p.nevents; i++) {
    li_pevent *e = &b->events[i];
    ts += fz_upto(in, 3) == 0 ? 0 : figure(in) % SELF_LIMIT;
    e->ts_ns = ts;
    e->func = (uint32_t)fz_upto(in, b->p.nfuncs - 1);
    e->thread = (uint32_t)fz_upto(in, 3);
    e->kind = kinds[fz_upto(in, 5)];
    if (e->kind == 'F') e->func = UINT32_MAX;
  }
  b->p.events = b->events;
  b->p.events_dropped = figure(in);
  b->p.trace_capacity = figure(in);
  b->p.trace_recent = (int)fz_upto(in, 1);   /* a ring: may begin with ends */
}

/* ---- figures that agree ---------------------------------------------------- */

/* Totals from self times, children after their parents; every node of the
** run's tree ran (calls >= 1), errors within calls. */
static void add_up_tree(li_pnode *nd, uint32_t n, int ran, fz_bytes *in) {
  for (uint32_t i = 0; i < n; i++) {
    if (i == 0) nd[i].self_ns = 0;
    nd[i].self_ns %= SELF_LIMIT;
    nd[i].total_ns = nd[i].self_ns;
    if (ran && i > 0 && nd[i].calls == 0) nd[i].calls = 1;
    if (nd[i].errors > nd[i].calls) nd[i].errors = nd[i].calls;
  }
  for (uint32_t i = n; i-- > 1;)
    nd[nd[i].parent].total_ns += nd[i].total_ns;
  if (n > 0 && fz_upto(in, 1) == 0) nd[0].total_ns = 0;   /* a root not given */
}

/* A number in [lo, hi]. */
static uint64_t between(fz_bytes *in, uint64_t lo, uint64_t hi) {
  return lo + fz_upto(in, hi - lo);
}

/* Function f's figures from its nodes: its total the outermost ones'
** (none of f above them), min and max one call's, about the mean of all
** its calls' times. */
static void add_up_func(built *b, uint32_t f, fz_bytes *in) {
  li_pfunc *fn = &b->funcs[f];
  uint64_t all = 0;
  fn->calls = fn->errors = fn->total_ns = fn->self_ns = 0;
  fn->min_ns = fn->max_ns = 0;
  for (uint32_t i = 1; i < b->p.nnodes; i++) {
    const li_pnode *n = &b->nodes[i];
    uint32_t up = n->parent;
    if (n->func != f) continue;
    while (up != 0 && b->nodes[up].func != f) up = b->nodes[up].parent;
    fn->calls += n->calls;
    fn->errors += n->errors;
    fn->self_ns += n->self_ns;
    if (up == 0) fn->total_ns += n->total_ns;
    all += n->total_ns;
  }
  if (fn->calls == 1) {
    fn->min_ns = fn->max_ns = fn->total_ns;
  } else if (fn->calls > 1 && fz_upto(in, 7) != 0) {    /* else unknown (pprof) */
    uint64_t lo = all / fn->calls, hi = lo + (all % fn->calls != 0);
    fn->min_ns = between(in, lo / 2, lo);
    fn->max_ns = between(in, hi, hi + (fn->total_ns - hi) / 2);
  }
}

/* Make b's figures agree, as a snapshot's do.  Its functions are told
** apart by their lines, as a snapshot's are by chunk and line: li_merge
** takes functions alike in name, source and lines for one, and two such
** in one tree would make a call of one by the other a recursion whose
** inner total the sum of the two functions' totals still counts. */
static void add_up(built *b, fz_bytes *in) {
  uint64_t root = 0;
  for (uint32_t f = 0; f < b->p.nfuncs; f++)
    b->funcs[f].line = b->funcs[f].line % (UINT32_MAX / MAX_FUNCS) * MAX_FUNCS + f;
  add_up_tree(b->nodes, b->p.nnodes, 1, in);
  for (uint32_t f = 0; f < b->p.nfuncs; f++) add_up_func(b, f, in);
  for (uint32_t i = 1; i < b->p.nnodes; i++)
    if (b->nodes[i].parent == 0 && b->nodes[i].total_ns > root)
      root = b->nodes[i].total_ns;
  b->p.wall_ns = fz_upto(in, 3) == 0 ? 0 : root + figure(in) % SELF_LIMIT;
  for (uint64_t i = 0; i < b->p.nframes; i++)
    b->frames[i].idle_ns %= b->frames[i].duration_ns + 1;
  for (uint32_t k = 0; k < b->p.nspikes; k++)
    add_up_tree(b->spike_nodes[k], b->spikes[k].nnodes, 0, in);
}

static void build(built *b, fz_bytes *in) {
  static const char *const clocks[] = { "tsc", "clock_gettime(CLOCK_MONOTONIC)" };
  memset(b, 0, sizeof *b);
  b->agree = (int)fz_upto(in, 1);
  b->p.funcs = b->funcs;
  b->p.nodes = b->nodes;
  build_funcs(b, in);
  build_nodes(b, in);
  b->p.wall_ns = figure(in);
  b->p.probes = figure(in);
  b->p.overhead_ns = figure(in);
  b->p.probe_pair_ns = (double)fz_upto(in, 100000000) / 1000.0;
  b->p.open_calls = (uint32_t)figure(in);
  if (fz_upto(in, 2) == 2) b->p.clock = keep(b, fz_string(in, 32));
  else b->p.clock = clocks[fz_upto(in, 1)];
  if (fz_upto(in, 1)) b->p.warnings = keep(b, fz_string(in, 200));
  build_trace(b, in);
  build_frames(b, in);
  b->p.memory = (int)fz_upto(in, 1);
  if (b->p.memory) {
    build_mem(&b->p.mem_outside, in);
    b->p.mem_blocks = figure(in);
    b->p.mem_map_bytes = figure(in);
    b->p.mem_untracked_frees = figure(in);
  }
  if (b->agree) add_up(b, in);
}

static void unbuild(built *b) {
  for (size_t i = 0; i < b->nstrings; i++) free(b->strings[i]);
}

/* ---- csv ------------------------------------------------------------------- */

/* One RFC 4180 field at *pos (quoted or not); its unquoted bytes go to
** field (up to cap).  Returns the byte that ended it (',', '\n' or 0 at the
** end of the text), or -1 if it is malformed. */
static int csv_field(const char *s, size_t n, size_t *pos, char *field,
                     size_t cap, size_t *flen) {
  size_t i = *pos, k = 0;
  if (i < n && s[i] == '"') {
    for (i++;; i++) {
      if (i >= n) return -1;
      if (s[i] == '"') {
        if (i + 1 < n && s[i + 1] == '"') i++;
        else { i++; break; }
      }
      if (k < cap) field[k] = s[i];
      k++;
    }
  } else {
    for (; i < n && s[i] != ',' && s[i] != '\n'; i++) {
      if (s[i] == '"' || s[i] == '\r') return -1;
      if (k < cap) field[k] = s[i];
      k++;
    }
  }
  *flen = k;
  *pos = i + (i < n);
  if (i >= n) return 0;
  return s[i] == ',' || s[i] == '\n' ? s[i] : -1;
}

static void check_csv(const li_profile *p, const char *s, size_t n) {
  uint32_t nrows;
  const li_pfunc **order = li_report_order(p, &nrows);
  size_t pos = 0, record = 0;
  char name[256], source[256], scratch[64];
  FZ_CHECK(order != NULL || nrows == 0, "li_report_order failed");
  while (pos < n) {
    int fields = 0, end;
    size_t len = 0, nlen = 0, slen = 0;
    do {
      char *buf = fields == 0 ? name : fields == 1 ? source : scratch;
      size_t cap = fields <= 1 ? sizeof name : sizeof scratch;
      end = csv_field(s, n, &pos, buf, cap, &len);
      FZ_CHECK(end >= 0, "csv: malformed field in record %zu", record);
      if (fields == 0) nlen = len;
      if (fields == 1) slen = len;
      fields++;
    } while (end == ',');
    FZ_CHECK(fields == 21, "csv: record %zu has %d fields", record, fields);
    FZ_CHECK(end == '\n', "csv: record %zu does not end in a line break", record);
    if (record > 0) {
      const li_pfunc *f = record <= nrows ? order[record - 1] : NULL;
      FZ_CHECK(f != NULL, "csv: more records than called functions (%u)", (unsigned)nrows);
      FZ_CHECK(nlen == strlen(f->name) && memcmp(name, f->name, nlen) == 0,
               "csv: record %zu's name does not read back", record);
      FZ_CHECK(slen == strlen(f->source) && memcmp(source, f->source, slen) == 0,
               "csv: record %zu's source does not read back", record);
    }
    record++;
  }
  FZ_CHECK(record == (size_t)nrows + 1, "csv: %zu records for %u called "
           "functions", record, (unsigned)nrows);
  free(order);
}

/* ---- folded ---------------------------------------------------------------- */

static uint32_t depth_of(const li_profile *p, uint32_t i) {
  uint32_t d = 0;
  for (; i != 0; i = p->nodes[i].parent) d++;
  return d;
}

/* Lines "frames VALUE": the values' sum, and (folded-calls) one line per
** node with calls, in order, with as many frames as the node is deep.
** what: 0 folded, 1 folded-calls, 2 folded-alloc. */
static void check_folded(const li_profile *p, const char *s, size_t n, int what) {
  static const char *const names[] = { "folded", "folded-calls", "folded-alloc" };
  int calls = what == 1;
  uint64_t sum = 0, want = 0, self = 0;
  uint32_t node = 1;
  const char *line = s, *end = s + n;
  FZ_CHECK(n == 0 || s[n - 1] == '\n', "folded: last line unterminated");
  while (line < end) {
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    const char *sp = nl - 1;
    uint64_t v = 0;
    while (sp > line && *sp != ' ') sp--;
    FZ_CHECK(*sp == ' ' && sp > line && sp + 1 < nl, "folded: no value");
    for (const char *q = sp + 1; q < nl; q++) {
      FZ_CHECK(*q >= '0' && *q <= '9', "folded: value is not a number");
      v = v * 10 + (uint64_t)(*q - '0');
    }
    FZ_CHECK(v > 0, "folded: a line with value 0");
    FZ_CHECK(sp[-1] == ')', "folded: last frame does not end in ')'");
    if (calls) {
      uint32_t frames = 1;
      while (node < p->nnodes && p->nodes[node].calls == 0) node++;
      FZ_CHECK(node < p->nnodes && p->nodes[node].calls == v,
               "folded-calls: line does not match node %u", (unsigned)node);
      for (const char *q = line; q < sp; q++) frames += *q == ';';
      FZ_CHECK(frames == depth_of(p, node), "folded-calls: %u frames for "
               "a node %u deep", (unsigned)frames, (unsigned)depth_of(p, node));
      node++;
    }
    sum += v;
    line = nl + 1;
  }
  for (uint32_t i = 1; i < p->nnodes; i++) {
    self += p->nodes[i].self_ns;
    want += what == 1 ? p->nodes[i].calls
          : what == 2 ? p->nodes[i].mem.alloc_bytes : 0;
  }
  if (what == 0) want = self / 1000 + (self % 1000 >= 500);
  FZ_CHECK(sum == want, "%s: values add up to %" PRIu64 ", not %" PRIu64,
           names[what], sum, want);
}

/* ---- json, read back ------------------------------------------------------- */

/* li_profile_check passes on p (what) when its figures should agree. */
static void check_agrees(const li_profile *p, int agree, const char *what) {
  char why[512];
  int r = li_profile_check(p, why, sizeof why);
  FZ_CHECK(!agree || r == 0, "%s contradicts itself: %s", what, why);
}

/* Do p's roots fit in its wall time together, as a run's do (they ran one
** after another), each rounded once?  The merge adds up the roots of one
** function that p keeps apart (a chunk loaded twice): a random tree whose
** roots overlap in time can make one longer than the wall. */
static int roots_fit(const li_profile *p) {
  uint64_t sum = 0, n = 0;
  if (p->wall_ns == 0) return 1;
  for (uint32_t i = 1; i < p->nnodes; i++)
    if (p->nodes[i].parent == 0) {
      if (p->nodes[i].total_ns > UINT64_MAX - sum) return 0;
      sum += p->nodes[i].total_ns;
      n++;
    }
  return sum <= p->wall_ns || sum - p->wall_ns <= n;
}

static void check_read_back(const li_profile *p, const char *json, size_t len,
                            int agree) {
  char err[256], *again = NULL;
  size_t alen = 0;
  const li_profile *two[2];
  li_profile *back = li_read_json(json, len, "fuzz.json", err, sizeof err), *m;
  FZ_CHECK(back != NULL, "json: does not read back: %s\n%.*s", err, (int)len,
           json);
  FZ_CHECK(li_report_to_string(back, "json", &again, &alen) == 0,
           "json: the profile read back is not written");
  FZ_CHECK(alen == len && memcmp(again, json, len) == 0,
           "json: read back and written again, it differs:\n%.*s\n%.*s",
           (int)len, json, (int)alen, again);
  free(again);
  check_agrees(back, agree, "the json read back");
  two[0] = two[1] = back;
  m = li_merge(two, 2, err, sizeof err);
  FZ_CHECK(m != NULL, "li_merge: %s", err);
  check_agrees(m, agree && roots_fit(back), "the merge");
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    uint64_t calls = 0, want = 0;
    for (uint32_t k = 0; k < m->nfuncs; k++)
      if (strcmp(m->funcs[k].name, p->funcs[i].name) == 0 &&
          strcmp(m->funcs[k].source, p->funcs[i].source) == 0 &&
          m->funcs[k].line == p->funcs[i].line &&
          m->funcs[k].lastline == p->funcs[i].lastline &&
          !m->funcs[k].zone == !p->funcs[i].zone)
        calls = m->funcs[k].calls;
    /* (functions alike in all of that are one function in a merge) */
    for (uint32_t k = 0; k < p->nfuncs; k++)
      if (strcmp(p->funcs[k].name, p->funcs[i].name) == 0 &&
          strcmp(p->funcs[k].source, p->funcs[i].source) == 0 &&
          p->funcs[k].line == p->funcs[i].line &&
          p->funcs[k].lastline == p->funcs[i].lastline &&
          !p->funcs[k].zone == !p->funcs[i].zone)
        for (int twice = 0; twice < 2; twice++)   /* (li_merge saturates) */
          want = want > UINT64_MAX - p->funcs[k].calls
                     ? UINT64_MAX : want + p->funcs[k].calls;
    FZ_CHECK(calls == want,
             "li_merge: function %u has %" PRIu64 " calls, not %" PRIu64, i,
             calls, want);
  }
  li_profile_free(m);
  li_profile_free(back);
}

/* ---- pprof, read back ------------------------------------------------------ */

#ifdef LI_PPROF
/* What pprof holds of figures that agree reads back agreeing, with every
** function's calls, self and total times (its total rebuilt from the
** paths' self times, as the runtime counts it). */
static void check_pprof(const li_profile *p, const char *data, size_t len) {
  char err[256];
  li_profile *q = li_read_pprof(data, len, "fuzz.pb.gz", err, sizeof err);
  FZ_CHECK(q != NULL, "pprof: does not read back: %s", err);
  check_agrees(q, roots_fit(p), "the pprof read back");
  FZ_CHECK(q->nfuncs == p->nfuncs, "pprof: %u functions, not %u",
           (unsigned)q->nfuncs, (unsigned)p->nfuncs);
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    const li_pfunc *a = &p->funcs[i], *c = &q->funcs[i];
    FZ_CHECK(a->calls == c->calls && a->self_ns == c->self_ns &&
             a->total_ns == c->total_ns, "pprof: function %u reads back "
             "%" PRIu64 " calls, %" PRIu64 " self, %" PRIu64 " total, not %"
             PRIu64 ", %" PRIu64 ", %" PRIu64, i, c->calls, c->self_ns,
             c->total_ns, a->calls, a->self_ns, a->total_ns);
  }
  li_profile_free(q);
}
#endif

/* ---- the target ------------------------------------------------------------ */

static void check_format(const li_profile *p, const char *format, int agree) {
  char *out = NULL, err[200];
  size_t len = 0;
  FZ_CHECK(li_report_to_string(p, format, &out, &len) == 0, "%s: writer failed",
           format);
  FZ_CHECK(out != NULL, "%s: no output", format);
  if (strcmp(format, "json") == 0 || strcmp(format, "chrome") == 0)
    FZ_CHECK(fz_json_valid(out, len, err, sizeof err), "%s: invalid JSON: %s",
             format, err);
  if (strcmp(format, "json") == 0) check_read_back(p, out, len, agree);
#ifdef LI_PPROF
  else if (strcmp(format, "pprof") == 0 && agree) check_pprof(p, out, len);
#endif
  else if (strcmp(format, "csv") == 0) check_csv(p, out, len);
  else if (strcmp(format, "folded") == 0) check_folded(p, out, len, 0);
  else if (strcmp(format, "folded-calls") == 0) check_folded(p, out, len, 1);
  else if (strcmp(format, "folded-alloc") == 0) check_folded(p, out, len, 2);
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
#define FORMAT_NAME(id, name, binary) name,
  static const char *const formats[] = { LI_REPORT_FORMATS(FORMAT_NAME) };
#undef FORMAT_NAME
  fz_bytes in = { data, size };
  built *b = malloc(sizeof *b);
  if (b == NULL) abort();
  build(b, &in);
  check_agrees(&b->p, b->agree, "the profile built");
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    check_format(&b->p, formats[i], b->agree);
  unbuild(b);
  free(b);
  return 0;
}
