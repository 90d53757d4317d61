/*
** merge.c -- many profiles of the same program summed into one (li_merge,
** reader.h): a fleet's reports, or one process's reports taken one after
** another, made into the one profile every writer can write.
**
** Functions are matched by what names them in every report (zone flag,
** name, source, line, lastline), call-tree nodes by their path of
** functions from the root: a hash table each, the output's functions and
** nodes in the order they are first met (so parents still come before
** their children).  Figures that count add up (saturating, never
** wrapping); min_ns is the least of the reports' and max_ns the most,
** unless a report where the function took time does not know them (pprof
** holds neither): then both are unknown (0), as the least and most of the
** others' calls could contradict the mean of all; max_alloc_bytes and
** peak_live_bytes are the most (a peak is one process's: processes do not
** share memory).  What belongs to one run's timeline
** (frames, spike frames, trace events) cannot be added up: it is left out
** and a warning line says so.
*/
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptree.h"
#include "reader.h"
#include "writers.h"      /* li_hash_keyed */

/* An open-addressing table of indexes into an array the caller keeps. */
typedef struct table {
  uint32_t *slot;       /* index + 1; 0: empty */
  size_t mask;          /* slots - 1 (a power of 2) */
  uint32_t n;           /* entries */
} table;

/* The merge's state. */
typedef struct merger {
  li_profile *out;
  li_pfunc *funcs;      /* the output's functions (owned by out at the end) */
  uint8_t *unknown;     /* unknown[i]: funcs[i]'s min and max are not known */
  uint32_t nfuncs, fcap;
  li_ptree tree;        /* the output's call tree */
  table ft;             /* functions by identity */
  char *warnings;       /* merged warning lines, each once */
  size_t wlen, wcap;
  size_t *woff;         /* where each line begins in warnings... */
  uint32_t nw, wocap;
  table wt;             /* ...and the lines by content (a scan of them all
                           for each took 21 s for 40,000 in a 400 KB file) */
} merger;

static uint64_t add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t max64(uint64_t a, uint64_t b) {
  return a > b ? a : b;
}

static void add_mem(li_pmem *to, const li_pmem *m) {
  to->alloc_bytes = add(to->alloc_bytes, m->alloc_bytes);
  to->alloc_count = add(to->alloc_count, m->alloc_count);
  to->alloc_bytes_total = add(to->alloc_bytes_total, m->alloc_bytes_total);
  to->alloc_count_total = add(to->alloc_count_total, m->alloc_count_total);
  to->free_bytes = add(to->free_bytes, m->free_bytes);
  to->live_bytes = add(to->live_bytes, m->live_bytes);
  to->peak_live_bytes = max64(to->peak_live_bytes, m->peak_live_bytes);
  to->max_alloc_bytes = max64(to->max_alloc_bytes, m->max_alloc_bytes);
}

/* ---- hashing ------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
  return h;
}

static uint64_t hash_str(uint64_t h, const char *s) {
  h ^= 14695981039346656037u;
  for (; s != NULL && *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return mix(h, s == NULL);
}

/* (keyed: mix alone let functions whose lines differ in high bits only
** fall into one slot, 5.5 s against 0.19) */
static uint64_t hash_func(const li_pfunc *f) {
  uint64_t h = hash_str(hash_str((uint64_t)f->zone, f->name), f->source);
  return li_hash_keyed(mix(li_hash_keyed(mix(h, f->line)), f->lastline));
}

static int same_str(const char *a, const char *b) {
  return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

static int same_func(const li_pfunc *a, const li_pfunc *b) {
  return !a->zone == !b->zone && a->line == b->line &&
         a->lastline == b->lastline && same_str(a->name, b->name) &&
         same_str(a->source, b->source);
}

/* Make room for one more entry (rehashing with hashof): 0 or -1. */
static int table_grow(table *t, const merger *m,
                      uint64_t (*hashof)(const merger *, uint32_t)) {
  size_t nslots;
  uint32_t *slot;
  if (t->slot != NULL && (size_t)t->n + 1 <= (t->mask + 1) / 2) return 0;
  nslots = t->slot != NULL ? (t->mask + 1) * 2 : 256;
  if (nslots > SIZE_MAX / sizeof *slot) return -1;
  slot = calloc(nslots, sizeof *slot);
  if (slot == NULL) return -1;
  for (size_t i = 0; t->slot != NULL && i <= t->mask; i++) {
    size_t j;
    if (t->slot[i] == 0) continue;
    j = (size_t)hashof(m, t->slot[i] - 1) & (nslots - 1);
    while (slot[j] != 0) j = (j + 1) & (nslots - 1);
    slot[j] = t->slot[i];
  }
  free(t->slot);
  t->slot = slot;
  t->mask = nslots - 1;
  return 0;
}

static uint64_t func_hash_at(const merger *m, uint32_t i) {
  return hash_func(&m->funcs[i]);
}

/* ---- functions and nodes ------------------------------------------------- */

/* The output's index of function f (added, its strings copied, if new):
** 0, or -1 when memory ran out. */
static int func_index(merger *m, const li_pfunc *f, uint32_t *index) {
  size_t j;
  li_pfunc *o;
  if (table_grow(&m->ft, m, func_hash_at) < 0) return -1;
  j = (size_t)hash_func(f) & m->ft.mask;
  for (; m->ft.slot[j] != 0; j = (j + 1) & m->ft.mask)
    if (same_func(&m->funcs[m->ft.slot[j] - 1], f)) {
      *index = m->ft.slot[j] - 1;
      return 0;
    }
  if (m->nfuncs == m->fcap) {
    uint32_t ncap = m->fcap ? m->fcap * 2 : 64;
    li_pfunc *nf = m->fcap >= UINT32_MAX / 2 ? NULL
                 : realloc(m->funcs, (size_t)ncap * sizeof *nf);
    uint8_t *nu;
    if (nf == NULL) return -1;
    m->funcs = nf;
    if ((nu = realloc(m->unknown, ncap)) == NULL) return -1;
    m->unknown = nu;
    m->fcap = ncap;
  }
  o = &m->funcs[m->nfuncs];
  memset(o, 0, sizeof *o);
  m->unknown[m->nfuncs] = 0;
  o->zone = f->zone;
  o->line = f->line;
  o->lastline = f->lastline;
  if (f->name != NULL &&
      (o->name = li_profile_strdup(m->out, f->name, strlen(f->name))) == NULL)
    return -1;
  if (f->source != NULL &&
      (o->source = li_profile_strdup(m->out, f->source,
                                     strlen(f->source))) == NULL)
    return -1;
  m->ft.slot[j] = ++m->nfuncs;
  m->ft.n++;
  *index = m->nfuncs - 1;
  return 0;
}

/* ---- warnings ------------------------------------------------------------ */

static uint64_t hash_bytes(const char *s, size_t n) {
  uint64_t h = 14695981039346656037u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  return li_hash_keyed(h ^ n);
}

static uint64_t warn_hash_at(const merger *m, uint32_t i) {
  const char *l = m->warnings + m->woff[i];
  return hash_bytes(l, strcspn(l, "\n"));
}

/* Add the line of len bytes (a newline after it) unless it is there. */
static int warn_line(merger *m, const char *line, size_t len) {
  size_t j;
  if (table_grow(&m->wt, m, warn_hash_at) < 0) return -1;
  j = (size_t)hash_bytes(line, len) & m->wt.mask;
  for (; m->wt.slot[j] != 0; j = (j + 1) & m->wt.mask) {
    const char *l = m->warnings + m->woff[m->wt.slot[j] - 1];
    if (strncmp(l, line, len) == 0 && l[len] == '\n') return 0;
  }
  if (m->nw == m->wocap) {
    uint32_t ncap = m->wocap ? m->wocap * 2 : 16;
    size_t *nw = m->wocap >= UINT32_MAX / 2 ? NULL
               : realloc(m->woff, (size_t)ncap * sizeof *nw);
    if (nw == NULL) return -1;
    m->woff = nw;
    m->wocap = ncap;
  }
  if (m->wlen + len + 2 > m->wcap) {
    size_t ncap = m->wcap ? m->wcap : 256;
    char *nb;
    while (ncap < m->wlen + len + 2) ncap *= 2;
    nb = realloc(m->warnings, ncap);
    if (nb == NULL) return -1;
    m->warnings = nb;
    m->wcap = ncap;
  }
  m->woff[m->nw] = m->wlen;
  memcpy(m->warnings + m->wlen, line, len);
  m->wlen += len;
  m->warnings[m->wlen++] = '\n';
  m->warnings[m->wlen] = '\0';
  m->wt.slot[j] = ++m->nw;
  m->wt.n++;
  return 0;
}

static int warn_lines(merger *m, const char *w) {
  while (w != NULL && *w != '\0') {
    size_t len = strcspn(w, "\n");
    if (warn_line(m, w, len) < 0) return -1;
    w += len + (w[len] == '\n');
  }
  return 0;
}

/* ---- one input ----------------------------------------------------------- */

/* Add profile k, in, to the sums; fmap: room for its functions' indexes,
** nmap for its nodes'.  0, or -1 with err. */
static int add_profile(merger *m, const li_profile *in, size_t k,
                       uint32_t *fmap, uint32_t *nmap, char *err,
                       size_t errlen) {
  for (uint32_t i = 0; i < in->nfuncs; i++) {
    const li_pfunc *f = &in->funcs[i];
    li_pfunc *o;
    if (func_index(m, f, &fmap[i]) < 0) goto nomem;
    o = &m->funcs[fmap[i]];
    /* the least and the most of the reports where it ran; pprof holds no
       min or max (both 0 though its calls took time): then unknown */
    if (f->calls > 0 && f->max_ns == 0 && f->total_ns > 0)
      m->unknown[fmap[i]] = 1;
    if (f->calls > 0 && (o->calls == 0 || f->min_ns < o->min_ns))
      o->min_ns = f->min_ns, o->min_err_ns = f->min_err_ns;
    if (f->max_ns >= o->max_ns) o->max_err_ns = f->max_err_ns;
    o->max_ns = max64(o->max_ns, f->max_ns);
    o->total_err_ns = add(o->total_err_ns, f->total_err_ns);
    o->self_err_ns = add(o->self_err_ns, f->self_err_ns);
    o->calls = add(o->calls, f->calls);
    o->errors = add(o->errors, f->errors);
    o->counted |= f->counted != 0;    /* (some of its calls had no time) */
    o->total_ns = add(o->total_ns, f->total_ns);
    o->self_ns = add(o->self_ns, f->self_ns);
    add_mem(&o->mem, &f->mem);
  }
  for (uint32_t i = 0; i < in->nnodes; i++) {
    const li_pnode *n = &in->nodes[i];
    li_pnode *o;
    if (i == 0) {
      nmap[0] = 0;
    } else {
      if (n->parent >= i || n->func >= in->nfuncs) {
        snprintf(err, errlen, "merge: profile %zu: node %" PRIu32 " has %s",
                 k + 1, i, n->parent >= i ? "no parent before it"
                                          : "no function");
        return -1;
      }
      if (li_ptree_child(&m->tree, nmap[n->parent], fmap[n->func],
                         &nmap[i]) != 0)
        goto nomem;
    }
    o = &m->tree.nodes[nmap[i]];
    o->calls = add(o->calls, n->calls);
    o->errors = add(o->errors, n->errors);
    o->total_ns = add(o->total_ns, n->total_ns);
    o->self_ns = add(o->self_ns, n->self_ns);
    o->total_err_ns = add(o->total_err_ns, n->total_err_ns);
    o->self_err_ns = add(o->self_err_ns, n->self_err_ns);
    add_mem(&o->mem, &n->mem);
  }
  if (warn_lines(m, in->warnings) < 0) goto nomem;
  return 0;
nomem:
  snprintf(err, errlen, "merge: out of memory");
  return -1;
}

/* ---- the summary --------------------------------------------------------- */

/* The string the n profiles agree on (at offset off), copied: those that
** do not know it (NULL: a pprof report has no clock) do not count; NULL
** when two differ or none has one.  -1 when memory ran out. */
static int common_str(merger *m, const li_profile *const *in, size_t n,
                      size_t off, const char **out) {
  const char *s = NULL;
  *out = NULL;
  for (size_t k = 0; k < n; k++) {
    const char *t = *(const char *const *)((const char *)in[k] + off);
    if (t == NULL) continue;
    if (s != NULL && strcmp(s, t) != 0) return 0;
    s = t;
  }
  if (s != NULL && (*out = li_profile_strdup(m->out, s, strlen(s))) == NULL)
    return -1;
  return 0;
}

static int merge_summary(merger *m, const li_profile *const *in, size_t n) {
  li_profile *o = m->out;
  double pair = 0, inside = 0;
  uint64_t probes = 0, open = 0;
  int lost = 0;
  for (size_t k = 0; k < n; k++) {
    const li_profile *p = in[k];
    /* (0: not known, as pprof's; then nor is the sum) */
    o->wall_ns = p->wall_ns == 0 || (k > 0 && o->wall_ns == 0)
                 ? 0 : add(o->wall_ns, p->wall_ns);
    o->probes = add(o->probes, p->probes);
    o->overhead_ns = add(o->overhead_ns, p->overhead_ns);
    o->preempted_ns = add(o->preempted_ns, p->preempted_ns);
    /* the probe's cost, per probe: the mean of the runs', weighted by
       their probes (a calibration each; NaN: json's null, not known) */
    if (p->probes > 0 && isfinite(p->probe_pair_ns) &&
        isfinite(p->probe_inside_ns)) {
      pair += p->probe_pair_ns * (double)p->probes;
      inside += p->probe_inside_ns * (double)p->probes;
      probes += p->probes;
    }
    if (p->clock_resolution_ns > o->clock_resolution_ns)
      o->clock_resolution_ns = p->clock_resolution_ns;
    open = add(open, p->open_calls);
    o->time_ns = max64(o->time_ns, p->time_ns);
    o->memory |= p->memory != 0;
    if (p->count_small > o->count_small) o->count_small = p->count_small;
    if (p->count_probe_ns > o->count_probe_ns) o->count_probe_ns = p->count_probe_ns;
    add_mem(&o->mem_outside, &p->mem_outside);
    o->mem_blocks = add(o->mem_blocks, p->mem_blocks);
    o->mem_map_bytes = add(o->mem_map_bytes, p->mem_map_bytes);
    o->mem_untracked_frees = add(o->mem_untracked_frees,
                                 p->mem_untracked_frees);
    lost |= p->tracing || p->framing || (p->events != NULL && p->nevents) ||
            (p->frames != NULL && p->nframes) || (p->spikes && p->nspikes);
  }
  o->probe_pair_ns = probes > 0 ? pair / (double)probes : in[0]->probe_pair_ns;
  o->probe_inside_ns = probes > 0 ? inside / (double)probes
                                  : in[0]->probe_inside_ns;
  o->open_calls = open > UINT32_MAX ? UINT32_MAX : (uint32_t)open;
  if (common_str(m, in, n, offsetof(li_profile, clock), &o->clock) < 0 ||
      common_str(m, in, n, offsetof(li_profile, probe), &o->probe) < 0 ||
      common_str(m, in, n, offsetof(li_profile, version), &o->version) < 0)
    return -1;
  if (lost) {
    static const char note[] = "merge: frames, spike frames and trace "
      "events belong to one run each: left out of the merged profile";
    if (warn_line(m, note, sizeof note - 1) < 0) return -1;
  }
  return 0;
}

/* ---- li_merge ------------------------------------------------------------ */

li_profile *li_merge(const li_profile *const *in, size_t n, char *err,
                     size_t errlen) {
  merger m;
  int rc = 0;
  if (n == 0) {
    snprintf(err, errlen, "merge: no profile to merge");
    return NULL;
  }
  memset(&m, 0, sizeof m);
  m.out = li_profile_new();
  if (m.out == NULL || li_ptree_init(&m.tree) < 0) goto nomem;
  for (size_t k = 0; k < n && rc == 0; k++) {
    const li_profile *p = in[k];
    uint32_t *fmap = malloc(((size_t)p->nfuncs + 1) * sizeof *fmap);
    uint32_t *nmap = malloc(((size_t)p->nnodes + 1) * sizeof *nmap);
    if (fmap == NULL || nmap == NULL) {
      free(fmap);
      free(nmap);
      goto nomem;
    }
    rc = add_profile(&m, p, k, fmap, nmap, err, errlen);
    free(fmap);
    free(nmap);
  }
  if (rc < 0) goto fail;
  for (uint32_t i = 0; i < m.nfuncs; i++)
    if (m.unknown[i]) {
      m.funcs[i].min_ns = m.funcs[i].max_ns = 0;
      m.funcs[i].min_err_ns = m.funcs[i].max_err_ns = 0;
    }
  if (merge_summary(&m, in, n) < 0) goto nomem;
  /* a merged root is the sum of some of the runs' roots, each rounded
  ** (found by fuzz_report: a root 4 ns over the walls' sum of 2 runs) */
  uint64_t nroots = 0;
  for (size_t k = 0; k < n; k++)
    for (uint32_t i = 1; i < in[k]->nnodes; i++)
      nroots += in[k]->nodes[i].parent == 0;
  li_ptree_wall_rounding(&m.tree, &m.out->wall_ns, nroots);
  /* hand everything to the output */
  if (li_profile_own(m.out, m.funcs) < 0) {
    m.funcs = NULL;
    goto nomem;
  }
  m.out->funcs = m.funcs;
  m.out->nfuncs = m.nfuncs;
  m.funcs = NULL;
  if (li_profile_own(m.out, m.tree.nodes) < 0) {
    m.tree.nodes = NULL;
    goto nomem;
  }
  m.out->nodes = m.tree.nodes;
  m.out->nnodes = m.tree.n;
  m.tree.nodes = NULL;
  if (li_profile_own(m.out, m.warnings) < 0) {
    m.warnings = NULL;
    goto nomem;
  }
  m.out->warnings = m.warnings;
  free(m.unknown);
  free(m.ft.slot);
  free(m.wt.slot);
  free(m.woff);
  li_ptree_free(&m.tree);
  return m.out;
nomem:
  snprintf(err, errlen, "merge: out of memory");
fail:
  free(m.funcs);
  free(m.unknown);
  free(m.warnings);
  free(m.ft.slot);
  free(m.wt.slot);
  free(m.woff);
  li_ptree_free(&m.tree);
  li_profile_free(m.out);
  return NULL;
}
