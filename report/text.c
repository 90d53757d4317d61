/*
** text.c -- the `text` report: one summary line, then the functions that
** were called, by self time, one row each; with frame marking, the frames'
** statistics and each kept spike frame's top functions; in memory mode, the
** functions by bytes allocated and by bytes still live; then the
** rewriter's warnings.
** Names are shown as UTF-8 text with every control character and every
** byte that is not UTF-8 escaped, so that each function stays on one row
** and a terminal never receives an escape sequence from a script.
*/
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "writers.h"

#define NAME_WIDTH_MAX 48   /* wider names push the last column right */
#define CELL 32             /* room for any one formatted number */

/* ---- numbers ------------------------------------------------------------ */

/* Times and bytes as the html report shows them (writers.h). */
static void fmt_ns(char *buf, uint64_t v) {
  li_fmt_ns(buf, CELL, v);
}

static void fmt_bytes(char *buf, uint64_t v) {
  li_fmt_bytes(buf, CELL, v);
}

static void fmt_u64(char *buf, uint64_t v) {
  snprintf(buf, CELL, "%" PRIu64, v);
}

/* ---- text from any bytes ------------------------------------------------ */

/* Print len bytes of s as one line of text (f NULL: only measure) and
** return its width in columns (one per character).  Control characters
** become \n, \r, \t or \xNN, as do bytes that are not UTF-8; the rest
** passes through. */
static size_t put_bytes(FILE *f, const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s, *end = p + len;
  size_t width = 0;
  char esc[8];
  while (p < end) {
    size_t n = li_utf8_len(p, (size_t)(end - p));
    if (n > 1 || (n == 1 && *p >= 0x20 && *p != 0x7f)) {
      if (f != NULL) fwrite(p, 1, n, f);
      p += n;
      width++;
      continue;
    }
    if (*p == '\n') strcpy(esc, "\\n");
    else if (*p == '\r') strcpy(esc, "\\r");
    else if (*p == '\t') strcpy(esc, "\\t");
    else snprintf(esc, sizeof esc, "\\x%02X", *p);
    if (f != NULL) fputs(esc, f);
    width += strlen(esc);
    p++;
  }
  return width;
}

static size_t put_text(FILE *f, const char *s) {
  return s != NULL ? put_bytes(f, s, strlen(s)) : 0;
}

static void put_spaces(FILE *f, size_t n) {
  while (n-- > 0) putc(' ', f);
}

/* ---- tables ----------------------------------------------------------- */

#define MAXCOLS 8

/* A table of functions: numeric columns, then the name and where it is. */
typedef struct table {
  int ncols;                  /* numeric columns, at most MAXCOLS */
  const char *const *heading; /* their headings */
  void (*cells)(const struct table *t, const li_pfunc *fn,
                char cell[MAXCOLS][CELL]);  /* one row's numeric cells */
  uint64_t base;              /* time table: what self% is a share of */
  uint64_t res;               /* time table: the clock's resolution, ns */
} table;

enum { C_PCT, C_SELF, C_TOTAL, C_CALLS, C_MIN, C_MAX, C_ERRORS, NUMCOLS };

/* ORDER NUMCOLS */
static const char *const heading[NUMCOLS] = {
  "self%", "self", "total", "calls", "min", "max", "errors"
};

/* A time with uncertainty err (li_estimate): "~1.2 ms" when it could be
** off by more than a quarter of itself, "<3 ms" (its bound) when by all
** of it: never a bare "0 ns" for calls whose time was mostly the probes'
** cost taken out. */
static void fmt_est(char *buf, uint64_t v, uint64_t err) {
  if (!li_estimate(v, err)) {
    fmt_ns(buf, v);
  } else if (v <= err) {
    buf[0] = '<';
    fmt_ns(buf + 1, v + err);
  } else {
    buf[0] = '~';
    fmt_ns(buf + 1, v);
  }
}

/* One call's time: below the clock's resolution (res ns, 0: unknown) a
** reading says only that the call was shorter than a step: "<100 us". */
static void fmt_call(char *buf, uint64_t v, uint64_t err, uint64_t res) {
  if (res > 0 && v + err < res) {
    buf[0] = '<';
    fmt_ns(buf + 1, res);
  } else {
    fmt_est(buf, v, err);
  }
}

/* The numeric cells of one row of the time table. */
static void time_cells(const table *t, const li_pfunc *fn,
                       char cell[MAXCOLS][CELL]) {
  if (fn->counted) {            /* its times are its callers' */
    snprintf(cell[C_PCT], CELL, "-");
    snprintf(cell[C_SELF], CELL, "counted");
    snprintf(cell[C_TOTAL], CELL, "-");
    fmt_u64(cell[C_CALLS], fn->calls);
    snprintf(cell[C_MIN], CELL, "-");
    snprintf(cell[C_MAX], CELL, "-");
    fmt_u64(cell[C_ERRORS], fn->errors);
    return;
  }
  if (t->base > 0)
    snprintf(cell[C_PCT], CELL, "%.1f%%",
             100.0 * (double)fn->self_ns / (double)t->base);
  else
    snprintf(cell[C_PCT], CELL, "-");
  fmt_est(cell[C_SELF], fn->self_ns, fn->self_err_ns);
  fmt_est(cell[C_TOTAL], fn->total_ns, fn->total_err_ns);
  fmt_u64(cell[C_CALLS], fn->calls);
  fmt_call(cell[C_MIN], fn->min_ns, fn->min_err_ns, t->res);
  fmt_call(cell[C_MAX], fn->max_ns, fn->max_err_ns, t->res);
  fmt_u64(cell[C_ERRORS], fn->errors);
}

enum { M_ALLOC, M_COUNT, M_FREED, M_LIVE, M_PEAK, M_MAX, MEMCOLS };

/* ORDER MEMCOLS */
static const char *const mem_heading[MEMCOLS] = {
  "alloc", "count", "freed", "live", "peak live", "max alloc"
};

static void mem_cells(const table *t, const li_pfunc *fn,
                      char cell[MAXCOLS][CELL]) {
  (void)t;
  fmt_bytes(cell[M_ALLOC], fn->mem.alloc_bytes);
  fmt_u64(cell[M_COUNT], fn->mem.alloc_count);
  fmt_bytes(cell[M_FREED], fn->mem.free_bytes);
  fmt_bytes(cell[M_LIVE], fn->mem.live_bytes);
  fmt_bytes(cell[M_PEAK], fn->mem.peak_live_bytes);
  fmt_bytes(cell[M_MAX], fn->mem.max_alloc_bytes);
}

/* "f.lua:12", "f.lua:main" for the main chunk (line 0), "zone" for a
** zone, which has no place in a chunk. */
static size_t put_where(FILE *f, const li_pfunc *fn) {
  char line[CELL];
  size_t w = put_text(f, fn->source);
  if (fn->zone) return w;
  if (fn->line == 0) snprintf(line, sizeof line, ":main");
  else snprintf(line, sizeof line, ":%" PRIu32, fn->line);
  if (f != NULL) fputs(line, f);
  return w + strlen(line);
}

/* One row: numbers right-aligned, the name padded (but never cut). */
static void put_row(FILE *f, const table *t, char cell[MAXCOLS][CELL],
                    const size_t *width, const char *name, size_t namew,
                    const li_pfunc *fn) {
  for (int c = 0; c < t->ncols; c++) {
    if (c > 0) fputs("  ", f);
    put_spaces(f, width[c] - strlen(cell[c]));
    fputs(cell[c], f);
  }
  fputs("  ", f);
  if (fn == NULL) {                        /* the heading row */
    fputs(name, f);
    put_spaces(f, namew - strlen(name));
    fputs("  source:line\n", f);
    return;
  }
  size_t w = put_text(f, name);
  put_spaces(f, w < namew ? namew - w : 0);
  fputs("  ", f);
  put_where(f, fn);
  putc('\n', f);
}

/* Column widths: the widest cell of each column, heading included. */
static void measure(const table *t, const li_pfunc *const *rows, uint32_t n,
                    size_t *width, size_t *namew) {
  char cell[MAXCOLS][CELL];
  for (int c = 0; c < t->ncols; c++) width[c] = strlen(t->heading[c]);
  *namew = strlen("function");
  for (uint32_t i = 0; i < n; i++) {
    t->cells(t, rows[i], cell);
    for (int c = 0; c < t->ncols; c++)
      if (strlen(cell[c]) > width[c]) width[c] = strlen(cell[c]);
    size_t w = put_text(NULL, rows[i]->name);
    if (w > *namew) *namew = w;
  }
  if (*namew > NAME_WIDTH_MAX) *namew = NAME_WIDTH_MAX;
}

static void put_table(FILE *f, const table *t, const li_pfunc *const *rows,
                      uint32_t n) {
  char cell[MAXCOLS][CELL];
  size_t width[MAXCOLS] = { 0 }, namew;
  measure(t, rows, n, width, &namew);
  for (int c = 0; c < t->ncols; c++) snprintf(cell[c], CELL, "%s", t->heading[c]);
  put_row(f, t, cell, width, "function", namew, NULL);
  for (uint32_t i = 0; i < n; i++) {
    t->cells(t, rows[i], cell);
    put_row(f, t, cell, width, rows[i]->name, namew, rows[i]);
  }
}

/* ---- summary ----------------------------------------------- */

/* The clock's resolution in whole ns, at least 1 when known (0: unknown). */
static uint64_t res_ns(const li_profile *p) {
  double r = p->clock_resolution_ns;
  if (!(r > 0)) return 0;
  return r < 1 ? 1 : r > 1e15 ? (uint64_t)1e15 : (uint64_t)(r + 0.5);
}

static void put_summary(FILE *f, const li_profile *p, uint32_t called) {
  char wall[CELL], cost[CELL];
  fmt_ns(wall, p->wall_ns);
  fmt_ns(cost, p->overhead_ns);
  fprintf(f, "luainstr profile: %s wall, %" PRIu32 " of %" PRIu32
          " functions called, %" PRIu64 " probes, %s probe cost subtracted"
          " (%.1f ns per call), clock ",
          wall, called, p->nfuncs, p->probes, cost, p->probe_pair_ns);
  put_text(f, p->clock != NULL ? p->clock : "unknown");
  if (res_ns(p) > 0) {
    char res[CELL];
    fmt_ns(res, res_ns(p));
    fprintf(f, " (resolution %s)", res);
  }
  if (p->probe != NULL && strcmp(p->probe, "api") == 0)
    fputs(", probe through the C API", f);
  else if (p->probe != NULL && strcmp(p->probe, "direct") == 0)
    fputs(", probe without its fast path", f);
  if (p->count_small > 0)
    fprintf(f, ", functions of at most %" PRIu32 " tokens counted, not timed"
            " (%.1f ns a count)", p->count_small, p->count_probe_ns);
  if (p->preempted_ns > 0) {
    char pre[CELL];
    fmt_ns(pre, p->preempted_ns);
    fprintf(f, ", %s preempted (taken out)", pre);
  }
  if (p->open_calls > 0)  /* "calls": frames are frame mode's */
    fprintf(f, ", %" PRIu32 " call%s still open", p->open_calls,
            p->open_calls == 1 ? "" : "s");
  /* last: the line's start, "luainstr profile: WALL wall", is what scripts
  ** look for, and stays as it was */
  if (p->version != NULL) {
    fputs(", luainstr ", f);
    put_text(f, p->version);
  }
  putc('\n', f);
}

/* ---- frames ------------------------------------------------------------ */

#define SPIKE_TOP 3         /* functions shown for each spike frame */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : (x > y);
}

/* Nearest rank: the smallest of the n sorted values with at least pct% of
** them at or below it, so that it is always a frame that happened. */
static uint64_t percentile(const uint64_t *sorted, uint64_t n, unsigned pct) {
  uint64_t rank = (n * pct + 99) / 100;
  return sorted[rank > 0 ? rank - 1 : 0];
}

/* The mean of n values, exact and without overflow: whole quotients and
** remainders are summed apart. */
static uint64_t mean_of(const uint64_t *v, uint64_t n) {
  uint64_t q = 0, r = 0;
  for (uint64_t i = 0; i < n; i++) {
    q += v[i] / n;
    r += v[i] % n;
    if (r >= n) q++, r -= n;
  }
  return q;
}

/* ": mean X, p50 X, p95 X, p99 X, max X" of the n values of d (sorted
** here). */
static void put_stats(FILE *f, uint64_t *d, uint64_t n) {
  static const unsigned pct[] = { 50, 95, 99 };
  char cell[CELL];
  qsort(d, (size_t)n, sizeof *d, cmp_u64);
  fmt_ns(cell, mean_of(d, n));
  fprintf(f, ": mean %s", cell);
  for (size_t k = 0; k < sizeof pct / sizeof pct[0]; k++) {
    fmt_ns(cell, percentile(d, n, pct[k]));
    fprintf(f, ", p%u %s", pct[k], cell);
  }
  fmt_ns(cell, d[n - 1]);
  fprintf(f, ", max %s", cell);
}

/* "frames: ...", the kept frames' statistics, and with idle spans the
** same of their busy time (what the spike rule reads) and their mean
** idle time.  -1: out of memory. */
static int put_frame_stats(FILE *f, const li_profile *p) {
  uint64_t n = p->frames != NULL ? p->nframes : 0, *d, idle = 0;
  fprintf(f, "\nframes: %" PRIu64 " marked, %" PRIu64 " kept", p->frames_marked, n);
  if (n == 0) { putc('\n', f); return 0; }
  d = malloc((size_t)n * sizeof *d);
  if (d == NULL) return -1;
  for (uint64_t i = 0; i < n; i++) d[i] = p->frames[i].duration_ns;
  put_stats(f, d, n);
  putc('\n', f);
  for (uint64_t i = 0; i < n; i++) {
    d[i] = li_frame_busy(&p->frames[i]);
    idle |= p->frames[i].idle_ns;
  }
  if (idle != 0) {
    char cell[CELL];
    fputs("  busy (less idle spans)", f);
    put_stats(f, d, n);
    for (uint64_t i = 0; i < n; i++) d[i] = p->frames[i].idle_ns;
    fmt_ns(cell, mean_of(d, n));
    fprintf(f, "; idle: mean %s\n", cell);
  }
  free(d);
  return 0;
}

/* The spike rule, then what was seen and kept. */
static void put_spike_rule(FILE *f, const li_profile *p) {
  fprintf(f, "spikes: frames over %.3gx the running median", p->spike_factor);
  if (p->spike_min_ns > 0) {
    char cell[CELL];
    fmt_ns(cell, p->spike_min_ns);
    fprintf(f, " and over %s", cell);
  }
  fprintf(f, "; %" PRIu64 " seen, %" PRIu32 " kept (the slowest %" PRIu32
          " keep their call trees)\n", p->spikes_seen,
          p->spikes != NULL ? p->nspikes : 0, p->spike_keep);
}

/* "name (where) time": a function as the spike lines show it. */
static void put_named_time(FILE *f, const li_pfunc *fn, uint64_t ns) {
  char cell[CELL];
  put_text(f, fn->name);
  if (!fn->zone) {                      /* a zone's name says what it is */
    fputs(" (", f);
    put_where(f, fn);
    putc(')', f);
  }
  fmt_ns(cell, ns);
  fprintf(f, " %s", cell);
}

/* The kept frame of that index, or NULL (frames are kept in order, one
** index after the other). */
static const li_pframe *frame_of(const li_profile *p, uint64_t index) {
  uint64_t first;
  if (p->frames == NULL || p->nframes == 0) return NULL;
  first = p->frames[0].index;
  if (index < first || index - first >= p->nframes) return NULL;
  return p->frames[index - first].index == index ? &p->frames[index - first] : NULL;
}

/* One spike frame: its index, duration (and busy time, when it had idle
** spans) and the SPIKE_TOP functions with
** the most self time in its tree.  self: room for p->nfuncs sums. */
static void put_spike(FILE *f, const li_profile *p, const li_pspike *sp,
                      uint64_t *self) {
  char cell[CELL];
  const li_pframe *fr;
  int shown = 0;
  memset(self, 0, (size_t)p->nfuncs * sizeof *self);
  for (uint32_t i = 1; sp->nodes != NULL && i < sp->nnodes; i++)
    if (sp->nodes[i].func < p->nfuncs)
      self[sp->nodes[i].func] += sp->nodes[i].self_ns;
  fmt_ns(cell, sp->duration_ns);
  fprintf(f, "  frame %" PRIu64 "  %s", sp->frame, cell);
  if ((fr = frame_of(p, sp->frame)) != NULL && fr->idle_ns > 0) {
    fmt_ns(cell, li_frame_busy(fr));     /* what the spike rule read */
    fprintf(f, " (busy %s)", cell);
  }
  for (; shown < SPIKE_TOP; shown++) {
    uint32_t best = UINT32_MAX;      /* most self time; ties: lower index */
    for (uint32_t i = 0; i < p->nfuncs; i++)
      if (self[i] > 0 && (best == UINT32_MAX || self[i] > self[best])) best = i;
    if (best == UINT32_MAX) break;
    fputs(shown == 0 ? ": " : ", ", f);
    put_named_time(f, &p->funcs[best], self[best]);
    self[best] = 0;                     /* taken */
  }
  if (shown == 0) fputs(": no function ran in it", f);
  putc('\n', f);
}

static int put_frames(FILE *f, const li_profile *p) {
  uint32_t ns = p->spikes != NULL ? p->nspikes : 0;
  uint64_t *self;
  if (put_frame_stats(f, p) != 0) return -1;
  put_spike_rule(f, p);
  if (ns == 0) return 0;
  self = malloc(((size_t)p->nfuncs + 1) * sizeof *self);
  if (self == NULL) return -1;
  for (uint32_t i = 0; i < ns; i++) put_spike(f, p, &p->spikes[i], self);
  free(self);
  return 0;
}

/* ---- memory ------------------------------------------------------------ */

#define MEM_ROWS 20         /* functions in the table by allocated bytes */
#define LIVE_ROWS 10        /* functions in the ranking by live bytes */

/* By allocated bytes, then by live bytes, both descending; ties keep the
** time table's order (the entries point into that array). */
static int cmp_alloc(const void *a, const void *b) {
  const li_pfunc *const *x = *(const li_pfunc *const *const *)a;
  const li_pfunc *const *y = *(const li_pfunc *const *const *)b;
  if ((*x)->mem.alloc_bytes != (*y)->mem.alloc_bytes)
    return (*x)->mem.alloc_bytes > (*y)->mem.alloc_bytes ? -1 : 1;
  if ((*x)->mem.live_bytes != (*y)->mem.live_bytes)
    return (*x)->mem.live_bytes > (*y)->mem.live_bytes ? -1 : 1;
  return x < y ? -1 : (x > y);
}

/* By live bytes descending; ties keep the time table's order. */
static int cmp_live(const void *a, const void *b) {
  const li_pfunc *const *x = *(const li_pfunc *const *const *)a;
  const li_pfunc *const *y = *(const li_pfunc *const *const *)b;
  if ((*x)->mem.live_bytes != (*y)->mem.live_bytes)
    return (*x)->mem.live_bytes > (*y)->mem.live_bytes ? -1 : 1;
  return x < y ? -1 : (x > y);
}

/* Into rows, at most max of the n functions of order: those with live
** bytes by live bytes (live), else those that allocated by allocated
** bytes; their number.  slot: room for n entries. */
static uint32_t pick(const li_pfunc **order, uint32_t n, int live,
                     const li_pfunc ***slot, const li_pfunc **rows,
                     uint32_t max) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    const li_pmem *m = &order[i]->mem;
    if (live ? m->live_bytes > 0 : (m->alloc_bytes > 0 || m->live_bytes > 0))
      slot[k++] = &order[i];
  }
  qsort(slot, k, sizeof *slot, live ? cmp_live : cmp_alloc);
  if (k > max) k = max;
  for (uint32_t i = 0; i < k; i++) rows[i] = *slot[i];
  return k;
}

/* The totals of user code and outside it, and the block map's cost. */
static void put_mem_summary(FILE *f, const li_profile *p,
                            const li_pfunc **order, uint32_t n) {
  uint64_t bytes = 0, count = 0, live = 0;
  char a[CELL], l[CELL];
  for (uint32_t i = 0; i < n; i++) {
    bytes += order[i]->mem.alloc_bytes;
    count += order[i]->mem.alloc_count;
    live += order[i]->mem.live_bytes;
  }
  fmt_bytes(a, bytes);
  fmt_bytes(l, live);
  fprintf(f, "\nmemory: %s allocated by user code in %" PRIu64
          " allocations, %s of it live", a, count, l);
  fmt_bytes(a, p->mem_outside.alloc_bytes);
  fmt_bytes(l, p->mem_outside.live_bytes);
  fprintf(f, "; outside user code %s in %" PRIu64 " allocations, %s live\n",
          a, p->mem_outside.alloc_count, l);
  fmt_bytes(a, p->mem_map_bytes);
  fprintf(f, "block map: %" PRIu64 " blocks tracked in %s; %" PRIu64
          " frees of blocks allocated before memory mode\n",
          p->mem_blocks, a, p->mem_untracked_frees);
}

static int put_memory(FILE *f, const li_profile *p, const li_pfunc **order,
                      uint32_t n) {
  const li_pfunc ***slot = malloc(((size_t)n + 1) * sizeof *slot);
  const li_pfunc **rows = malloc(((size_t)n + 1) * sizeof *rows);
  uint32_t k;
  if (slot == NULL || rows == NULL) {
    free(slot);
    free(rows);
    return -1;
  }
  put_mem_summary(f, p, order, n);
  putc('\n', f);
  k = pick(order, n, 0, slot, rows, MEM_ROWS);
  if (k == 0) {
    fputs("no function allocated\n", f);
  } else {
    table t = { MEMCOLS, mem_heading, mem_cells, 0, 0 };
    put_table(f, &t, rows, k);
  }
  k = pick(order, n, 1, slot, rows, LIVE_ROWS);
  if (k > 0) {
    /* a function that leaks keeps what it allocated: it tops this list */
    fputs("\nlive at the end, most first:\n", f);
    for (uint32_t i = 0; i < k; i++) {
      char cell[CELL];
      fmt_bytes(cell, rows[i]->mem.live_bytes);
      fprintf(f, "  %9s  ", cell);
      put_text(f, rows[i]->name);
      fputs("  ", f);
      put_where(f, rows[i]);
      putc('\n', f);
    }
  }
  free(slot);
  free(rows);
  return 0;
}

/* A note under the table when it shows estimates: what "~" and "<" say. */
static void put_estimates(FILE *f, const li_pfunc *const *order, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const li_pfunc *fn = order[i];
    if (li_estimate(fn->self_ns, fn->self_err_ns) ||
        li_estimate(fn->total_ns, fn->total_err_ns) ||
        li_estimate(fn->min_ns, fn->min_err_ns) ||
        li_estimate(fn->max_ns, fn->max_err_ns)) {
      fputs("\n~ an estimate: the probes' cost taken out of it is large "
            "against it (docs/measuring.md); <x: less than x\n", f);
      break;
    }
  }
  for (uint32_t i = 0; i < n; i++)
    if (order[i]->counted) {
      fputs("counted: its calls counted, not timed (option count_small): its time "
            "is in its callers' self\n", f);
      return;
    }
}

/* ---- warnings ------------------------------------------------------------ */

/* "warnings:", then each line of p->warnings indented. */
static void put_warnings(FILE *f, const char *w) {
  fputs("\nwarnings:\n", f);
  while (*w != '\0') {
    const char *nl = strchr(w, '\n');
    size_t len = nl != NULL ? (size_t)(nl - w) : strlen(w);
    fputs("  ", f);
    put_bytes(f, w, len);
    putc('\n', f);
    w += len + (nl != NULL);
  }
}

int li_write_text(const li_profile *p, FILE *f) {
  uint32_t n;
  const li_pfunc **order = li_report_order(p, &n);
  uint64_t base = 0;
  if (order == NULL) return -1;
  /* shares are of the measured time (all self time): the wall time also
  ** holds the probes' cost, which the figures leave out */
  for (uint32_t i = 0; i < n; i++) base += order[i]->self_ns;
  if (base == 0) base = p->wall_ns;
  put_summary(f, p, n);
  putc('\n', f);
  if (n == 0) fputs("no function was called\n", f);
  else {
    table t = { NUMCOLS, heading, time_cells, base, res_ns(p) };
    put_table(f, &t, order, n);
    put_estimates(f, order, n);
  }
  if ((p->framing && put_frames(f, p) != 0) ||
      (p->memory && put_memory(f, p, order, n) != 0)) {
    free(order);
    return -1;
  }
  free(order);
  if (p->warnings != NULL && p->warnings[0] != '\0') put_warnings(f, p->warnings);
  return ferror(f) ? -1 : 0;
}
