/*
** jscan.h -- the one strict JSON scanner of the tree (internal): a cursor
** over bytes that never passes their end, and the primitives the readers
** build on (a value of each JSON type, white space, ',' or a closing
** bracket, any value passed over).  The readers walk their own documents
** with it: heap/read.c the .heapsnapshot, report/readjson.c the `json`
** report.  There is no tree of values: each reader reads what it expects
** where it expects it, and skips the rest (checked as JSON all the same).
**
** Errors: the first problem is kept as "NAME:OFFSET: what CTX" in err (the
** caller's buffer) and every later call fails at once; a function that
** fails returns -1 (or NULL), one that succeeds 0.  Nothing here allocates
** but li_js_dup_string.
*/
#ifndef LI_JSCAN_H
#define LI_JSCAN_H

#include <stddef.h>
#include <stdint.h>

/* The cursor and the error. */
typedef struct li_jscan {
  const unsigned char *start, *p, *end;  /* the bytes, the cursor, the end */
  const char *name;          /* the file, for messages */
  const char *ctx;           /* what is being read, for messages: "in nodes" */
  char *err;                 /* the caller's message buffer */
  size_t errsz;
  int failed;                /* the first error is kept */
  int latin1;                /* \u0080..\u00ff decode to the byte of that
                                value, not to UTF-8: the json report writes
                                a byte that is not UTF-8 so (json.c) */
  /* the array element being read, for li_js_integer's messages
     ("node 12's self_size"; item_kind NULL: none) */
  const char *item_kind;
  uint64_t item;
  const char *field;
} li_jscan;

/* A cursor at the start of size bytes of data. */
void li_js_init(li_jscan *s, const char *name, const void *data, size_t size,
                char *err, size_t errsz);

/* Keep the first error: "NAME:OFFSET: ..." (at NULL: "NAME: ..."); -1. */
int li_js_fail_at(li_jscan *s, const unsigned char *at, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;

/* "expected WHAT CTX, found X" at the cursor; -1. */
int li_js_fail_expect(li_jscan *s, const char *what);

/* "NAME: out of memory"; -1. */
int li_js_oom(li_jscan *s);

/* What the cursor sees, for messages: "'x'", "byte 0x07" or "the end of the
** file" (buf: 16 bytes suffice). */
const char *li_js_seen(const li_jscan *s, char *buf, size_t len);

/* Skip white space. */
void li_js_ws(li_jscan *s);

/* Skip white space; is the next byte c?  (Then consume it.) */
int li_js_accept(li_jscan *s, int c);

/* c, after white space, or an error. */
int li_js_expect(li_jscan *s, int c);

/* After a member or element: ',' (1: another follows), close (0) or an
** error (-1). */
int li_js_more(li_jscan *s, int close);

/* The string at the cursor decoded into out (NULL: checked, not kept),
** which holds at least as many bytes as its JSON text (li_js_string_end:
** decoding never lengthens it).  Its length in *len; no NUL is added. */
int li_js_string(li_jscan *s, unsigned char *out, size_t *len);

/* Where the string at the cursor ends: its closing quote (or the end of
** the bytes).  Its JSON text is no shorter than its value. */
const unsigned char *li_js_string_end(const li_jscan *s);

/* A short string (a key, a name) into buf, NUL-terminated; one that does
** not fit, or holds a NUL, is read and made "\1", which matches no name. */
int li_js_short_string(li_jscan *s, char *buf, size_t size);

/* The string at the cursor, malloc'd and NUL-terminated (its length in
** *len unless len is NULL); NULL on an error. */
char *li_js_dup_string(li_jscan *s, size_t *len);

/* An integer (no fraction, no exponent; negative ones when neg_ok), its
** magnitude in *u and its sign in *negative; what names it in messages. */
int li_js_integer(li_jscan *s, uint64_t *u, int *negative, int neg_ok,
                  const char *what);

/* An integer from 0 to 2^64 - 1. */
int li_js_uinteger(li_jscan *s, uint64_t *u, const char *what);

/* Any JSON number, rounded down to an integer, at least 0, at most
** 2^64 - 1. */
int li_js_any_number(li_jscan *s, uint64_t *u, const char *what);

/* Any JSON number, as the nearest double. */
int li_js_double(li_jscan *s, double *d, const char *what);

/* true or false. */
int li_js_boolean(li_jscan *s, int *b, const char *what);

/* null at the cursor (after white space)?  Then it is consumed: 1; else 0
** and nothing is consumed. */
int li_js_null(li_jscan *s);

/* Any JSON value, checked and passed over (no C recursion: nesting up to
** LI_JS_MAX_DEPTH). */
#define LI_JS_MAX_DEPTH 4096
int li_js_skip(li_jscan *s);

/* The common case inline, for long arrays of numbers: up to 19 digits, no
** sign, no leading zero, followed by what cannot continue a number, with 21
** bytes left to read (so no bound is checked per digit).  0: leave it to
** li_js_integer, which also says what is wrong. */
static inline int li_js_fast_uint(li_jscan *s, uint64_t *v) {
  const unsigned char *p = s->p;
  uint64_t x;
  unsigned d, k = 1;
  if (s->end - p < 21 || (d = (unsigned)(*p - '1')) > 8) return 0;
  x = d + 1;
  while ((d = (unsigned)(*++p - '0')) <= 9 && k < 19) {
    x = x * 10 + d;
    k++;
  }
  if (d <= 9 || *p == '.' || *p == 'e' || *p == 'E') return 0;
  *v = x;
  s->p = p;
  return 1;
}

/* After an array element: ',' (1), ']' (0) or an error (-1), white space
** before either; a comma right there without a call. */
static inline int li_js_next_element(li_jscan *s) {
  if (s->p < s->end && *s->p == ',') {
    s->p++;
    return 1;
  }
  return li_js_more(s, ']');
}

/* Read the whole of fd into *data (malloc'd), its length in *size, for
** the readers of files: 0, or an errno value (nothing allocated): EFBIG
** past LI_JS_READ_MAX bytes (a device that never ends, /dev/zero, was
** read until memory ran out; a heap snapshot that is a regular file is
** mapped, not read). */
#define LI_JS_READ_MAX ((size_t)1 << 30)
int li_js_read_fd(int fd, unsigned char **data, size_t *size);

#endif
