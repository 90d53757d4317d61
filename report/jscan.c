/*
** jscan.c -- the strict JSON scanner (jscan.h) the readers share: taken
** out of the .heapsnapshot reader (heap/read.c) when the json report got a
** reader of its own (report/readjson.c), so that the tree has one JSON
** parser.  RFC 8259's grammar, checked byte by byte; the cursor never
** passes the end, so a truncated document is an error like any other.
*/
#define _POSIX_C_SOURCE 200809L       /* read() */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "jscan.h"

void li_js_init(li_jscan *s, const char *name, const void *data, size_t size,
                char *err, size_t errsz) {
  memset(s, 0, sizeof *s);
  s->start = s->p = data;
  s->end = s->start + size;
  s->name = name;
  s->ctx = "";
  s->err = err;
  s->errsz = errsz;
}

/* ======================================================================
** Errors and the cursor
** ====================================================================== */

int li_js_fail_at(li_jscan *s, const unsigned char *at, const char *fmt, ...) {
  va_list ap;
  size_t n;
  if (s->failed) return -1;
  s->failed = 1;
  if (at == NULL)
    n = (size_t)snprintf(s->err, s->errsz, "%s: ", s->name);
  else
    n = (size_t)snprintf(s->err, s->errsz, "%s:%zu: ", s->name,
                         (size_t)(at - s->start));
  if (n < s->errsz) {
    va_start(ap, fmt);
    vsnprintf(s->err + n, s->errsz - n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* What the cursor sees, for messages: "'x'", "byte 0x07" or "the end". */
const char *li_js_seen(const li_jscan *s, char *buf, size_t len) {
  if (s->p >= s->end) return "the end of the file";
  if (*s->p >= 0x20 && *s->p < 0x7f)
    snprintf(buf, len, "'%c'", *s->p);
  else
    snprintf(buf, len, "byte 0x%02x", *s->p);
  return buf;
}

int li_js_fail_expect(li_jscan *s, const char *what) {
  char b[16];
  return li_js_fail_at(s, s->p, "expected %s %s, found %s", what, s->ctx,
                       li_js_seen(s, b, sizeof b));
}

int li_js_oom(li_jscan *s) {
  return li_js_fail_at(s, NULL, "out of memory");
}

void li_js_ws(li_jscan *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' ||
                           *s->p == '\t'))
    s->p++;
}

/* Skip white space; is the next byte c?  (Then consume it.) */
int li_js_accept(li_jscan *s, int c) {
  li_js_ws(s);
  if (s->p < s->end && *s->p == c) {
    s->p++;
    return 1;
  }
  return 0;
}

int li_js_expect(li_jscan *s, int c) {
  char what[8];
  if (li_js_accept(s, c)) return 0;
  snprintf(what, sizeof what, "'%c'", c);
  return li_js_fail_expect(s, what);
}

/* After a member or element: ',' (1: another follows) or close (0). */
int li_js_more(li_jscan *s, int close) {
  char what[16];
  li_js_ws(s);
  if (s->p < s->end && *s->p == ',') {
    s->p++;
    return 1;
  }
  if (s->p < s->end && *s->p == close) {
    s->p++;
    return 0;
  }
  snprintf(what, sizeof what, "',' or '%c'", close);
  return li_js_fail_expect(s, what);
}


/* ======================================================================
** Values
** ====================================================================== */

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* \uXXXX at p (past the backslash's 'u'), or -1. */
static long hex4(const li_jscan *s, const unsigned char *p) {
  long v = 0;
  if (s->end - p < 4) return -1;
  for (int i = 0; i < 4; i++) {
    int d = hexval(p[i]);
    if (d < 0) return -1;
    v = v << 4 | d;
  }
  return v;
}

static size_t put_utf8(unsigned char *o, unsigned long c) {
  if (c < 0x80) { o[0] = (unsigned char)c; return 1; }
  if (c < 0x800) {
    o[0] = (unsigned char)(0xc0 | c >> 6);
    o[1] = (unsigned char)(0x80 | (c & 0x3f));
    return 2;
  }
  if (c < 0x10000) {   /* a lone surrogate too (WTF-8): nothing is lost */
    o[0] = (unsigned char)(0xe0 | c >> 12);
    o[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
    o[2] = (unsigned char)(0x80 | (c & 0x3f));
    return 3;
  }
  o[0] = (unsigned char)(0xf0 | c >> 18);
  o[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
  o[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
  o[3] = (unsigned char)(0x80 | (c & 0x3f));
  return 4;
}

/* A JSON string at the cursor, decoded into out (NULL: checked, not
** kept), which holds at least as many bytes as the string's JSON text
** (decoding never lengthens it).  Its length in *len. */
int li_js_string(li_jscan *s, unsigned char *out, size_t *len) {
  const unsigned char *p, *at;
  size_t n = 0;
  li_js_ws(s);
  if (s->p >= s->end || *s->p != '"') return li_js_fail_expect(s, "a string");
  at = s->p;
  p = s->p + 1;
  for (;;) {
    const unsigned char *run = p;
    while (p < s->end && *p != '"' && *p != '\\' && *p >= 0x20) p++;
    if (out != NULL) memcpy(out + n, run, (size_t)(p - run));
    n += (size_t)(p - run);
    if (p >= s->end) {
      s->p = p;
      return li_js_fail_at(s, at, "string not closed %s", s->ctx);
    }
    if (*p == '"') break;
    if (*p < 0x20) {
      s->p = p;
      return li_js_fail_at(s, p, "control byte 0x%02x in a string %s", *p,
                           s->ctx);
    }
    /* a backslash */
    if (p + 1 >= s->end) {
      s->p = p;
      return li_js_fail_at(s, p, "string not closed %s", s->ctx);
    }
    {
      unsigned char c = p[1], o[4];
      size_t k = 1;
      long u;
      switch (c) {
      case '"': case '\\': case '/': o[0] = c; break;
      case 'b': o[0] = '\b'; break;
      case 'f': o[0] = '\f'; break;
      case 'n': o[0] = '\n'; break;
      case 'r': o[0] = '\r'; break;
      case 't': o[0] = '\t'; break;
      case 'u':
        u = hex4(s, p + 2);
        if (u < 0) {
          s->p = p;
          return li_js_fail_at(s, p, "bad \\u escape in a string %s", s->ctx);
        }
        p += 4;
        if (u >= 0xd800 && u <= 0xdbff && s->end - p >= 8 && p[2] == '\\' &&
            p[3] == 'u') {
          long lo = hex4(s, p + 4);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
            p += 6;
          }
        }
        if (s->latin1 && u >= 0x80 && u <= 0xff) o[0] = (unsigned char)u;
        else k = put_utf8(o, (unsigned long)u);
        break;
      default:
        s->p = p;
        return li_js_fail_at(s, p, "bad escape '\\%c' in a string %s",
                             c >= 0x20 && c < 0x7f ? c : '?', s->ctx);
      }
      if (out != NULL) memcpy(out + n, o, k);
      n += k;
      p += 2;
    }
  }
  s->p = p + 1;
  *len = n;
  return 0;
}

/* Where the string at the cursor ends: its closing quote (or the end
** of the file).  Its JSON text is no shorter than its value. */
const unsigned char *li_js_string_end(const li_jscan *s) {
  const unsigned char *q = s->p;
  if (q < s->end && *q == '"') {
    q++;
    while (q < s->end && *q != '"') q += (*q == '\\' && q + 1 < s->end) ? 2 : 1;
  }
  return q;
}

/* A short string (a key, a name in the meta) into buf, NUL-terminated; a
** longer one is read and cut, so it matches no name we look for. */
int li_js_short_string(li_jscan *s, char *buf, size_t size) {
  size_t len;
  li_js_ws(s);
  if ((size_t)(li_js_string_end(s) - s->p) < size) {
    if (li_js_string(s, (unsigned char *)buf, &len) < 0) return -1;
    buf[len] = '\0';
    if (strlen(buf) != len) buf[0] = '\1';   /* a NUL inside: no name */
    return 0;
  }
  if (li_js_string(s, NULL, &len) < 0) return -1;
  buf[0] = '\1';   /* matches nothing */
  buf[1] = '\0';
  return 0;
}

char *li_js_dup_string(li_jscan *s, size_t *len) {
  char *str;
  size_t n;
  li_js_ws(s);
  str = malloc((size_t)(li_js_string_end(s) - s->p) + 1);
  if (str == NULL) {
    li_js_oom(s);
    return NULL;
  }
  if (li_js_string(s, (unsigned char *)str, &n) < 0) {
    free(str);
    return NULL;
  }
  str[n] = '\0';
  if (len != NULL) *len = n;
  return str;
}

/* What li_js_integer() reads, for its messages: "node 12's self_size" while
** the arrays are read (the fields are set as it goes: no formatting
** unless something is wrong), else what. */
static const char *number_name(const li_jscan *s, const char *what, char *buf,
                               size_t len) {
  if (s->item_kind == NULL) return what;
  snprintf(buf, len, "%s %" PRIu64 "'s %s", s->item_kind, s->item, s->field);
  return buf;
}

/* A JSON number at the cursor.  Integers only (every number a snapshot
** holds is one); negative ones when neg is allowed.  In *u the value, or
** its magnitude when *negative. */
int li_js_integer(li_jscan *s, uint64_t *u, int *negative, int neg_ok,
                  const char *what) {
  const unsigned char *p, *at;
  uint64_t v = 0;
  char b[16], nb[96];
  const char *problem;
  li_js_ws(s);
  p = at = s->p;
  *negative = 0;
  if (p < s->end && *p == '-') {
    *negative = 1;
    p++;
  }
  if (p >= s->end || *p < '0' || *p > '9') {
    s->p = at;
    return li_js_fail_at(s, at, "expected %s %s, found %s",
                         number_name(s, what, nb, sizeof nb), s->ctx,
                         li_js_seen(s, b, sizeof b));
  }
  if (*p == '0' && p + 1 < s->end && p[1] >= '0' && p[1] <= '9') {
    problem = "is not a JSON number (leading zero)";
    goto bad;
  }
  while (p < s->end && *p >= '0' && *p <= '9') {
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) {
      problem = "is too large (more than 64 bits)";
      goto bad;
    }
    v = v * 10 + d;
    p++;
  }
  if (p < s->end && (*p == '.' || *p == 'e' || *p == 'E')) {
    problem = "is not an integer";
    goto bad;
  }
  if (*negative && !neg_ok && v != 0) {
    problem = "is negative";
    goto bad;
  }
  if (*negative && v > (uint64_t)INT64_MAX + 1) {
    problem = "is too small (less than -2^63)";
    goto bad;
  }
  s->p = p;
  *u = v;
  return 0;
bad:
  return li_js_fail_at(s, at, "%s %s %s", number_name(s, what, nb, sizeof nb),
                       problem, s->ctx);
}

int li_js_uinteger(li_jscan *s, uint64_t *u, const char *what) {
  int neg;
  return li_js_integer(s, u, &neg, 0, what);
}

/* The end of the JSON number at the cursor (RFC 8259's grammar: -?, no
** leading zero, a fraction and an exponent with digits), or NULL with the
** error, the cursor at the offending byte. */
static const unsigned char *number_end(li_jscan *s) {
  const unsigned char *p = s->p;
  if (p < s->end && *p == '-') p++;
  if (p >= s->end || *p < '0' || *p > '9') goto digit;
  if (*p == '0') p++;
  else while (p < s->end && *p >= '0' && *p <= '9') p++;
  if (p < s->end && *p == '.') {
    p++;
    if (p >= s->end || *p < '0' || *p > '9') goto digit;
    while (p < s->end && *p >= '0' && *p <= '9') p++;
  }
  if (p < s->end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < s->end && (*p == '+' || *p == '-')) p++;
    if (p >= s->end || *p < '0' || *p > '9') goto digit;
    while (p < s->end && *p >= '0' && *p <= '9') p++;
  }
  return p;
digit:
  s->p = p;
  li_js_fail_expect(s, "a digit");
  return NULL;
}

/* A JSON number as the nearest double.  strtod reads the text: JSON's
** numbers are a subset of what it takes (in the C locale, which the
** programs keep: a locale's decimal comma would stop it at the '.', which
** is then an error, never a wrong value). */
int li_js_double(li_jscan *s, double *d, const char *what) {
  const unsigned char *at, *e;
  char buf[512], b[16], *stop;
  size_t n;
  li_js_ws(s);
  at = s->p;
  if (at >= s->end || (*at != '-' && (*at < '0' || *at > '9')))
    return li_js_fail_at(s, at, "expected %s %s, found %s", what, s->ctx,
                         li_js_seen(s, b, sizeof b));
  e = number_end(s);
  if (e == NULL) return -1;
  n = (size_t)(e - at);
  if (n >= sizeof buf)
    return li_js_fail_at(s, at, "%s %s is too long", what, s->ctx);
  memcpy(buf, at, n);
  buf[n] = '\0';
  *d = strtod(buf, &stop);
  if (stop != buf + n)
    return li_js_fail_at(s, at, "bad number for %s %s", what, s->ctx);
  s->p = e;
  return 0;
}

/* Any JSON number (snapshot.lua's figures may be written as floats):
** its value, rounded down to an integer, at least 0. */
int li_js_any_number(li_jscan *s, uint64_t *u, const char *what) {
  const unsigned char *p, *at;
  char buf[64], b[16];
  double d;
  size_t n;
  li_js_ws(s);
  p = at = s->p;
  if (p < s->end && *p == '-') p++;
  if (p >= s->end || *p < '0' || *p > '9')
    return li_js_fail_at(s, at, "expected %s %s, found %s", what, s->ctx,
                         li_js_seen(s, b, sizeof b));
  while (p < s->end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' ||
                        *p == 'E' || *p == '+' || *p == '-'))
    p++;
  n = (size_t)(p - at);
  if (n >= sizeof buf)
    return li_js_fail_at(s, at, "%s %s is too long", what, s->ctx);
  memcpy(buf, at, n);
  buf[n] = '\0';
  {
    char *e;
    d = strtod(buf, &e);
    if (*e != '\0' || d != d)
      return li_js_fail_at(s, at, "bad number for %s %s", what, s->ctx);
  }
  s->p = p;
  *u = d <= 0 ? 0 : d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)d;
  return 0;
}

int li_js_boolean(li_jscan *s, int *b, const char *what) {
  char buf[16];
  li_js_ws(s);
  if (s->end - s->p >= 4 && memcmp(s->p, "true", 4) == 0) {
    s->p += 4;
    *b = 1;
    return 0;
  }
  if (s->end - s->p >= 5 && memcmp(s->p, "false", 5) == 0) {
    s->p += 5;
    *b = 0;
    return 0;
  }
  return li_js_fail_at(s, s->p, "expected true or false for %s %s, found %s",
                       what, s->ctx, li_js_seen(s, buf, sizeof buf));
}

int li_js_null(li_jscan *s) {
  li_js_ws(s);
  if (s->end - s->p >= 4 && memcmp(s->p, "null", 4) == 0) {
    s->p += 4;
    return 1;
  }
  return 0;
}

/* Any JSON value, checked and passed over (iteratively: no depth limit
** but LI_JS_MAX_DEPTH, never the C stack's). */
int li_js_skip(li_jscan *s) {
  unsigned char stack[LI_JS_MAX_DEPTH];   /* '}' or ']' to close */
  int depth = 0;
  size_t len;
  char b[16];
  for (;;) {
    /* a value */
    li_js_ws(s);
    if (s->p >= s->end) return li_js_fail_expect(s, "a value");
    switch (*s->p) {
    case '{':
    case '[':
      if (depth == LI_JS_MAX_DEPTH)
        return li_js_fail_at(s, s->p, "values nested too deep %s", s->ctx);
      stack[depth++] = *s->p == '{' ? '}' : ']';
      s->p++;
      if (li_js_accept(s, stack[depth - 1])) {
        depth--;
        break;
      }
      if (stack[depth - 1] == '}') {
        if (li_js_string(s, NULL, &len) < 0 || li_js_expect(s, ':') < 0)
          return -1;
      }
      continue;   /* the first element or member's value */
    case '"':
      if (li_js_string(s, NULL, &len) < 0) return -1;
      break;
    case 't':
    case 'f': {
      int bv;
      if (li_js_boolean(s, &bv, "a value") < 0) return -1;
      break;
    }
    case 'n':
      if (s->end - s->p >= 4 && memcmp(s->p, "null", 4) == 0) {
        s->p += 4;
        break;
      }
      return li_js_fail_expect(s, "a value");
    default:
      if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9')) {
        const unsigned char *e = number_end(s);
        if (e == NULL) return -1;
        s->p = e;
        break;
      }
      return li_js_fail_at(s, s->p, "expected a value %s, found %s", s->ctx,
                           li_js_seen(s, b, sizeof b));
    }
    /* after a value: close what is complete, or go on to the next one */
    for (;;) {
      int m;
      if (depth == 0) return 0;
      m = li_js_more(s, stack[depth - 1]);
      if (m < 0) return -1;
      if (m == 0) {
        depth--;
        continue;
      }
      if (stack[depth - 1] == '}') {
        if (li_js_string(s, NULL, &len) < 0 || li_js_expect(s, ':') < 0)
          return -1;
      }
      break;
    }
  }
}

int li_js_read_fd(int fd, unsigned char **data, size_t *size)
{
  size_t cap = 1 << 16, n = 0;
  unsigned char *b = malloc(cap);
  if (b == NULL) return ENOMEM;
  for (;;) {
    ssize_t got;
    if (n >= LI_JS_READ_MAX) {        /* (/dev/zero: until memory ran out) */
      free(b);
      return EFBIG;
    }
    if (n == cap) {
      unsigned char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(b, cap * 2);
      if (nb == NULL) {
        free(b);
        return ENOMEM;
      }
      b = nb;
      cap *= 2;
    }
    got = read(fd, b + n, cap - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      int e = errno;
      free(b);
      return e;
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  *data = b;
  *size = n;
  return 0;
}
