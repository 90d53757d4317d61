/*
** writers.h -- what the report writers share (internal).
**
**   report.c   the format table, writing to a FILE, a string or a path
**   text.c     `text`: a summary line and the top functions by self time
**   csv.c      `csv`: one RFC 4180 row per called function
**   folded.c   `folded`, `folded-calls`, `folded-alloc`: collapsed stacks
**              for flame graphs
**   callgrind.c `callgrind`: the Callgrind format (KCachegrind,
**              callgrind_annotate)
**   json.c     `json`: the whole profile (docs/json-schema.md)
**   pprof.c    `pprof`: pprof's profile.proto, gzipped (docs/pprof.md);
**              only in builds with protobuf-c and zlib (LI_PPROF)
**
** Each format is one module with one entry point, li_write_<id>.  Adding a
** format is one line in LI_REPORT_FORMATS (plus its .c in CMakeLists.txt):
** the prototype, the dispatch table and li_report_formats() follow from it.
*/
#ifndef LI_WRITERS_H
#define LI_WRITERS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "report.h"

/* X(id, name, binary): every format of this build, in the order
** li_report_formats() lists them; id names the entry point li_write_<id>,
** name is what -f and the API take (it may hold characters an identifier
** cannot, as in "folded-calls"), binary is 1 for a format no terminal
** should be given (li_report_binary_tty). */
#define LI_REPORT_FORMATS(X) \
  X(text, "text", 0) \
  X(csv, "csv", 0) \
  X(folded, "folded", 0) \
  X(folded_calls, "folded-calls", 0) \
  X(folded_alloc, "folded-alloc", 0) \
  X(callgrind, "callgrind", 0) \
  X(chrome, "chrome", 0) \
  X(html, "html", 0) \
  X(json, "json", 0) \
  LI_REPORT_FORMAT_PPROF(X)

/* A(name, why): formats that some builds have and this one lacks, with
** why (li_report_format_error says so rather than "unknown").  pprof is
** built where CMake's LUAINSTR_PPROF found protobuf-c and zlib. */
#ifdef LI_PPROF
#define LI_REPORT_FORMAT_PPROF(X) X(pprof, "pprof", 1)
#define LI_REPORT_ABSENT(A)
#else
#define LI_REPORT_FORMAT_PPROF(X)
#define LI_REPORT_ABSENT(A) A("pprof", "this build has no protobuf-c")
#endif

/* A writer prints p to f and returns 0, or -1 (errno set) when f is in
** error or memory ran out.  It only reads p. */
#define LI_WRITER_PROTO(id, name, binary) \
  int li_write_##id(const li_profile *p, FILE *f);
LI_REPORT_FORMATS(LI_WRITER_PROTO)
#undef LI_WRITER_PROTO

/* Figures for people, one convention in every report a person reads (text
** and html; csv and json write integers of ns and of bytes): times in
** ns, us, ms, s (powers of 1000), bytes in B, KiB, MiB, GiB, TiB (powers
** of 1024, as allocators count), three significant digits: "999 ns",
** "1.50 us", "12.3 ms", "123 s", "1023 B", "1.50 KiB"; whole ones from
** 1000 of a unit up to the next unit, and above the last ("1235 s").
** li_fmt_units: v in the largest of nunit units (each step times the one
** before) it reaches; the result is cut to fit len (32 always suffices). */
void li_fmt_units(char *buf, size_t len, uint64_t v, const char *const *unit,
                  int nunit, uint64_t step);
void li_fmt_ns(char *buf, size_t len, uint64_t ns);
void li_fmt_bytes(char *buf, size_t len, uint64_t bytes);

/* The functions with calls > 0, in report order: self time descending,
** then total time descending, then name, source and line ascending.  A
** malloc'd array of pointers into p->funcs (the caller frees it; NULL with
** errno ENOMEM when memory ran out), its length in *n. */
const li_pfunc **li_report_order(const li_profile *p, uint32_t *n);

/* Length of the well-formed UTF-8 sequence at s, of at most n bytes (RFC
** 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or 0. */
size_t li_utf8_len(const unsigned char *s, size_t n);
/* x mixed with this process's random key (drawn once): what the readers'
** hash tables index by, so that input cannot be made to collide in them
** (ids, lines and names crafted to one slot made them quadratic). */
uint64_t li_hash_keyed(uint64_t x);

/* Print s (NULL: nothing) as one line of text: control characters become
** \n, \r, \t or \xNN, as do bytes that are not UTF-8 and every byte
** in also (NULL: none), e.g. a format's separators; the rest passes
** through.  The text report's escapes, for formats read line by line. */
void li_put_line_text(FILE *f, const char *s, const char *also);

/* Print len bytes of s as a JSON string literal: valid UTF-8 as it is,
** every other byte as \u00XX (its Latin-1 reading), control characters,
** '<', '>', '&' and U+2028/2029 as \uXXXX, so the literal is also safe
** inside an HTML <script>.  li_json_string: a
** NUL-terminated string, or null for NULL. */
void li_json_lstring(FILE *f, const char *s, size_t len);
void li_json_string(FILE *f, const char *s);

/* Create "<path>.XXXXXX" exclusively (open flags oflag, O_WRONLY or
** O_RDWR, and mode less the umask), for a file written whole and renamed
** into place: the fd, and the name in *tmpname (malloc'd); or -1 with
** errno (report.c). */
int li_create_temp(const char *path, int oflag, mode_t mode, char **tmpname);

/* The html report's application in live mode (docs/live-protocol.md): no
** profile in it; it takes the token from its own URL and streams from the
** WebSocket at /live (or, in an iframe of the WebAssembly page, from
** postMessage).  0, or -1 (errno set) (html.c; the live server serves it
** at /). */
int li_write_html_live(FILE *f);

#endif
