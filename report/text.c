/*
** text.c -- the `text` report: one summary line, then the functions that
** were called, by self time, one row each; then the rewriter's warnings.
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

/* A duration with three significant digits and the unit that fits it:
** "999 ns", "1.50 us", "12.3 ms", "123 s"; above 999 s, whole seconds.
** Integer arithmetic, so a value never rounds to "1000 us". */
static void fmt_ns(char *buf, uint64_t v) {
  static const char *const unit[] = { "ns", "us", "ms", "s" };
  uint64_t scale = 1, r = v;
  int digits = 1, decimals, u;
  if (v < 1000) {
    snprintf(buf, CELL, "%" PRIu64 " ns", v);
    return;
  }
  for (uint64_t t = v; t >= 10; t /= 10) digits++;
  if (digits > 12) {                        /* 1000 s and more */
    snprintf(buf, CELL, "%" PRIu64 " s",
             v / 1000000000u + (v % 1000000000u >= 500000000u));
    return;
  }
  for (int i = 3; i < digits; i++) scale *= 10;
  r = v / scale + (v % scale >= scale / 2);   /* round half up */
  if (r == 1000) r = 100, digits++;           /* 9995 -> "10.0 us" */
  if (digits > 12) {
    snprintf(buf, CELL, "1000 s");
    return;
  }
  u = (digits - 1) / 3;
  decimals = 3 - (digits - 3 * u);
  if (decimals == 0)
    snprintf(buf, CELL, "%" PRIu64 " %s", r, unit[u]);
  else if (decimals == 1)
    snprintf(buf, CELL, "%" PRIu64 ".%" PRIu64 " %s", r / 10, r % 10, unit[u]);
  else
    snprintf(buf, CELL, "%" PRIu64 ".%02" PRIu64 " %s", r / 100, r % 100, unit[u]);
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

/* ---- the table ---------------------------------------------------------- */

enum { C_PCT, C_SELF, C_TOTAL, C_CALLS, C_MIN, C_MAX, C_ERRORS, NUMCOLS };

/* ORDER NUMCOLS */
static const char *const heading[NUMCOLS] = {
  "self%", "self", "total", "calls", "min", "max", "errors"
};

/* One call's time: below the clock's resolution (res ns, 0: unknown) a
** reading says only that the call was shorter than a step: "<100 us". */
static void fmt_call(char *buf, uint64_t v, uint64_t res) {
  if (res > 0 && v < res) {
    buf[0] = '<';
    fmt_ns(buf + 1, res);
  } else {
    fmt_ns(buf, v);
  }
}

/* The numeric cells of one row (res: the clock's resolution in ns). */
static void row_cells(const li_pfunc *fn, uint64_t base, uint64_t res,
                      char cell[NUMCOLS][CELL]) {
  if (base > 0)
    snprintf(cell[C_PCT], CELL, "%.1f%%", 100.0 * (double)fn->self_ns / (double)base);
  else
    snprintf(cell[C_PCT], CELL, "-");
  fmt_ns(cell[C_SELF], fn->self_ns);
  fmt_ns(cell[C_TOTAL], fn->total_ns);
  fmt_u64(cell[C_CALLS], fn->calls);
  fmt_call(cell[C_MIN], fn->min_ns, res);
  fmt_call(cell[C_MAX], fn->max_ns, res);
  fmt_u64(cell[C_ERRORS], fn->errors);
}

/* "f.lua:12", or "f.lua:main" for the main chunk (line 0). */
static size_t put_where(FILE *f, const li_pfunc *fn) {
  char line[CELL];
  size_t w = put_text(f, fn->source);
  if (fn->line == 0) snprintf(line, sizeof line, ":main");
  else snprintf(line, sizeof line, ":%" PRIu32, fn->line);
  if (f != NULL) fputs(line, f);
  return w + strlen(line);
}

/* One row: numbers right-aligned, the name padded (but never cut). */
static void put_row(FILE *f, char cell[NUMCOLS][CELL], const size_t *width,
                    const char *name, size_t namew, const li_pfunc *fn) {
  for (int c = 0; c < NUMCOLS; c++) {
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
static void measure(const li_pfunc **order, uint32_t n, uint64_t base,
                    uint64_t res, size_t *width, size_t *namew) {
  char cell[NUMCOLS][CELL];
  for (int c = 0; c < NUMCOLS; c++) width[c] = strlen(heading[c]);
  *namew = strlen("function");
  for (uint32_t i = 0; i < n; i++) {
    row_cells(order[i], base, res, cell);
    for (int c = 0; c < NUMCOLS; c++)
      if (strlen(cell[c]) > width[c]) width[c] = strlen(cell[c]);
    size_t w = put_text(NULL, order[i]->name);
    if (w > *namew) *namew = w;
  }
  if (*namew > NAME_WIDTH_MAX) *namew = NAME_WIDTH_MAX;
}

static void put_table(FILE *f, const li_pfunc **order, uint32_t n,
                      uint64_t base, uint64_t res) {
  char cell[NUMCOLS][CELL];
  size_t width[NUMCOLS], namew;
  measure(order, n, base, res, width, &namew);
  for (int c = 0; c < NUMCOLS; c++) snprintf(cell[c], CELL, "%s", heading[c]);
  put_row(f, cell, width, "function", namew, NULL);
  for (uint32_t i = 0; i < n; i++) {
    row_cells(order[i], base, res, cell);
    put_row(f, cell, width, order[i]->name, namew, order[i]);
  }
}

/* ---- summary and warnings ----------------------------------------------- */

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
  if (p->open_frames > 0)
    fprintf(f, ", %" PRIu32 " frame%s still open", p->open_frames,
            p->open_frames == 1 ? "" : "s");
  putc('\n', f);
}

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
  else put_table(f, order, n, base, res_ns(p));
  free(order);
  if (p->warnings != NULL && p->warnings[0] != '\0') put_warnings(f, p->warnings);
  return ferror(f) ? -1 : 0;
}
