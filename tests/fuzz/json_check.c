/*
** json_check.c -- a strict JSON validator (see json_check.h), a recursive
** descent over RFC 8259's grammar:
**   value  = object / array / string / number / true / false / null
**   object = { [ string : value *( , string : value ) ] }
**   array  = [ [ value *( , value ) ] ]
*/
#include <stdio.h>
#include <string.h>

#include "json_check.h"

#define MAX_DEPTH 4000

typedef struct jp {
  const unsigned char *s;
  size_t n, i;
  int depth;
  const char *why;      /* first error, NULL while fine */
} jp;

static int fail(jp *p, const char *why) {
  if (p->why == NULL) p->why = why;
  return 0;
}

static void ws(jp *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
                         p->s[p->i] == '\n' || p->s[p->i] == '\r'))
    p->i++;
}

static int literal(jp *p, const char *word) {
  size_t k = strlen(word);
  if (p->n - p->i < k || memcmp(p->s + p->i, word, k) != 0)
    return fail(p, "bad literal");
  p->i += k;
  return 1;
}

static int digits(jp *p) {
  size_t start = p->i;
  while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
  return p->i > start ? 1 : fail(p, "digit expected");
}

/* number = [ - ] int [ frac ] [ exp ];  int = 0 / digit1-9 *DIGIT */
static int number(jp *p) {
  if (p->i < p->n && p->s[p->i] == '-') p->i++;
  if (p->i < p->n && p->s[p->i] == '0') p->i++;
  else if (!digits(p)) return 0;
  if (p->i < p->n && p->s[p->i] == '.') { p->i++; if (!digits(p)) return 0; }
  if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
    p->i++;
    if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
    if (!digits(p)) return 0;
  }
  return 1;
}

static int hex4(jp *p, unsigned *v) {
  *v = 0;
  if (p->n - p->i < 4) return fail(p, "short \\u escape");
  for (int k = 0; k < 4; k++) {
    unsigned char c = p->s[p->i++];
    unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
               : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
               : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
    if (d == 16) return fail(p, "bad hex digit in \\u escape");
    *v = *v << 4 | d;
  }
  return 1;
}

/* One UTF-8 sequence (RFC 3629): no overlong form, surrogate or value
** above U+10FFFF. */
static int utf8(jp *p) {
  const unsigned char *c = p->s + p->i;
  size_t left = p->n - p->i, len;
  unsigned lo = 0x80, hi = 0xBF;
  if (c[0] >= 0xC2 && c[0] <= 0xDF) len = 2;
  else if (c[0] >= 0xE0 && c[0] <= 0xEF) {
    len = 3;
    if (c[0] == 0xE0) lo = 0xA0;
    if (c[0] == 0xED) hi = 0x9F;
  } else if (c[0] >= 0xF0 && c[0] <= 0xF4) {
    len = 4;
    if (c[0] == 0xF0) lo = 0x90;
    if (c[0] == 0xF4) hi = 0x8F;
  } else return fail(p, "invalid UTF-8 lead byte");
  if (left < len) return fail(p, "truncated UTF-8");
  if (c[1] < lo || c[1] > hi) return fail(p, "invalid UTF-8");
  for (size_t k = 2; k < len; k++)
    if (c[k] < 0x80 || c[k] > 0xBF) return fail(p, "invalid UTF-8");
  p->i += len;
  return 1;
}

/* An escape after the backslash; surrogates must come in pairs. */
static int escape(jp *p) {
  unsigned v, w;
  if (p->i >= p->n) return fail(p, "unterminated escape");
  switch (p->s[p->i++]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r':
    case 't':
      return 1;
    case 'u':
      if (!hex4(p, &v)) return 0;
      if (v >= 0xDC00 && v <= 0xDFFF) return fail(p, "lone low surrogate");
      if (v < 0xD800 || v > 0xDBFF) return 1;
      if (p->n - p->i < 2 || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
        return fail(p, "lone high surrogate");
      p->i += 2;
      if (!hex4(p, &w)) return 0;
      return w >= 0xDC00 && w <= 0xDFFF ? 1 : fail(p, "bad surrogate pair");
    default:
      return fail(p, "unknown escape");
  }
}

static int string(jp *p) {
  if (p->i >= p->n || p->s[p->i] != '"') return fail(p, "string expected");
  p->i++;
  for (;;) {
    if (p->i >= p->n) return fail(p, "unterminated string");
    unsigned char c = p->s[p->i];
    if (c == '"') { p->i++; return 1; }
    if (c < 0x20) return fail(p, "control character in string");
    if (c == '\\') { p->i++; if (!escape(p)) return 0; }
    else if (c < 0x80) p->i++;
    else if (!utf8(p)) return 0;
  }
}

static int value(jp *p);

/* Elements of an object or an array up to its closing byte. */
static int members(jp *p, int object, unsigned char close) {
  p->i++;
  ws(p);
  if (p->i < p->n && p->s[p->i] == close) { p->i++; return 1; }
  for (;;) {
    if (object) {
      if (!string(p)) return 0;
      ws(p);
      if (p->i >= p->n || p->s[p->i] != ':') return fail(p, "':' expected");
      p->i++;
    }
    if (!value(p)) return 0;
    ws(p);
    if (p->i >= p->n) return fail(p, "unterminated object or array");
    if (p->s[p->i] == close) { p->i++; return 1; }
    if (p->s[p->i] != ',') return fail(p, "',' expected");
    p->i++;
    ws(p);
  }
}

static int value(jp *p) {
  int ok;
  ws(p);
  if (p->i >= p->n) return fail(p, "value expected");
  if (++p->depth > MAX_DEPTH) return fail(p, "nested too deep");
  switch (p->s[p->i]) {
    case '{': ok = members(p, 1, '}'); break;
    case '[': ok = members(p, 0, ']'); break;
    case '"': ok = string(p); break;
    case 't': ok = literal(p, "true"); break;
    case 'f': ok = literal(p, "false"); break;
    case 'n': ok = literal(p, "null"); break;
    default:  ok = number(p); break;
  }
  p->depth--;
  return ok;
}

int fz_json_valid(const char *s, size_t n, char *err, size_t errlen) {
  jp p = { (const unsigned char *)s, n, 0, 0, NULL };
  if (value(&p)) {
    ws(&p);
    if (p.i != p.n) fail(&p, "text after the value");
  }
  if (p.why == NULL) return 1;
  snprintf(err, errlen, "%s at offset %zu", p.why, p.i);
  return 0;
}
