/*
** csv.c -- the `csv` report (RFC 4180): a header row, then one row per
** called function in the text report's order.  Names and sources are
** written byte for byte, so that they read back exactly: any byte is fine
** inside a quoted field, and a spreadsheet's notion of text is its own.
** Rows end in "\n", as Unix tools expect (RFC 4180 readers accept it).
** The memory columns are the function's own (self) figures, 0 when memory
** mode was off, so that every profile has the same columns.
*/
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "writers.h"

/* Must the field be quoted?  For a separator, a quote or a line break
** (RFC 4180), and for spaces at either end, which many readers trim. */
static int needs_quotes(const char *s, size_t len) {
  if (len > 0 && (s[0] == ' ' || s[0] == '\t' ||
                  s[len - 1] == ' ' || s[len - 1] == '\t'))
    return 1;
  return strpbrk(s, ",\"\r\n") != NULL;
}

static void put_field(FILE *f, const char *s) {
  size_t len;
  if (s == NULL) s = "";
  len = strlen(s);
  if (!needs_quotes(s, len)) {
    fwrite(s, 1, len, f);
    return;
  }
  putc('"', f);
  for (const char *q; (q = strchr(s, '"')) != NULL; s = q + 1) {
    fwrite(s, 1, (size_t)(q - s) + 1, f);    /* up to the quote, then again */
    putc('"', f);
  }
  fputs(s, f);
  putc('"', f);
}

int li_write_csv(const li_profile *p, FILE *f) {
  uint32_t n;
  const li_pfunc **order = li_report_order(p, &n);
  if (order == NULL) return -1;
  fputs("name,source,line,lastline,calls,total_ns,self_ns,min_ns,max_ns,errors,"
        "alloc_bytes,alloc_count,free_bytes,live_bytes,peak_live_bytes,"
        "max_alloc_bytes,total_err_ns,self_err_ns,min_err_ns,max_err_ns,counted\n", f);
  for (uint32_t i = 0; i < n; i++) {
    const li_pfunc *fn = order[i];
    put_field(f, fn->name);
    putc(',', f);
    put_field(f, fn->source);
    fprintf(f, ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
            fn->line, fn->lastline, fn->calls, fn->total_ns, fn->self_ns,
            fn->min_ns, fn->max_ns, fn->errors);
    fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64, fn->mem.alloc_bytes, fn->mem.alloc_count,
            fn->mem.free_bytes, fn->mem.live_bytes, fn->mem.peak_live_bytes,
            fn->mem.max_alloc_bytes);
    /* counted: 1 when counted, not timed (its times are its callers') */
    fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d\n",
            fn->total_err_ns, fn->self_err_ns, fn->min_err_ns, fn->max_err_ns,
            fn->counted != 0);
  }
  free(order);
  return ferror(f) ? -1 : 0;
}
