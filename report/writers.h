/*
** writers.h -- what the report writers share (internal).
**
**   report.c   the format table, writing to a FILE, a string or a path
**   text.c     `text`: a summary line and the top functions by self time
**   csv.c      `csv`: one RFC 4180 row per called function
**
** Each format is one module with one entry point, li_write_<name>.  Adding a
** format is one line in LI_REPORT_FORMATS (plus its .c in CMakeLists.txt):
** the prototype, the dispatch table and li_report_formats() follow from it.
*/
#ifndef LI_WRITERS_H
#define LI_WRITERS_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* X(name): every format, in the order li_report_formats() lists them. */
#define LI_REPORT_FORMATS(X) \
  X(text) \
  X(csv) \
  X(folded) \
  X(callgrind) \
  X(chrome) \
  X(html) \
  X(json)

/* A writer prints p to f and returns 0, or -1 (errno set) when f is in
** error or memory ran out.  It only reads p. */
#define LI_WRITER_PROTO(name) \
  int li_write_##name(const li_profile *p, FILE *f);
LI_REPORT_FORMATS(LI_WRITER_PROTO)
#undef LI_WRITER_PROTO

/* The functions with calls > 0, in report order: self time descending,
** then total time descending, then name, source and line ascending.  A
** malloc'd array of pointers into p->funcs (the caller frees it; NULL with
** errno ENOMEM when memory ran out), its length in *n. */
const li_pfunc **li_report_order(const li_profile *p, uint32_t *n);

/* Print s as a JSON string literal: valid UTF-8 as it is, every other byte
** as U+FFFD, control characters escaped, "</" as "<\/" and U+2028/2029
** escaped, so the literal is also safe inside an HTML <script>. */
void li_json_string(FILE *f, const char *s);

#endif
