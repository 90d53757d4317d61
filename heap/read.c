/*
** read.c -- the .heapsnapshot reader (docs/heap.md, "The file").
**
** One pass over the bytes, with a cursor that never passes the end: the
** top-level object's "snapshot" (meta, counts, snapshot.lua), "nodes",
** "edges" and "strings"; every other member is skipped (checked as JSON
** all the same).  The node and edge fields are found by name in the meta,
** so a file Chrome wrote, whatever its field order, reads as ours.  The
** number arrays go straight into one array per field, sized from the
** counts the snapshot declares once the counts are known to fit in the
** file: no intermediate copy of the numbers, which are most of a file.
**
** Nothing read is trusted: every index is checked against what it
** indexes, counts must add up, numbers must be integers that fit, and the
** first problem stops the read with "FILE:OFFSET: what".  What can only
** be checked once the strings are read (names are string indices, and
** strings come last) is checked then, and the offset found again by
** counting numbers from the array's start: the error path only.
*/
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define LH_MMAP 1
#endif

#include "heap.h"

#define MAX_FIELDS 64        /* node or edge fields a meta may declare */
#define MAX_TYPES 200        /* node types (LH_KIND_OTHER + index < 256) */
#define MAX_DEPTH 4096       /* nesting of skipped values */
#define SIZE_LIMIT ((uint64_t)1 << 53)   /* a self size: JavaScript's exact
                                           integers, as DevTools reads it */
#define TOTAL_LIMIT ((uint64_t)1 << 62)  /* all of them: sums never wrap */

/* What a field of a node or an edge is to us. */
enum {
  F_IGNORED,     /* trace_node_id, detachedness, anything else */
  F_TYPE,        /* node or edge type */
  F_NAME,        /* node name: a string index */
  F_ID,          /* node id */
  F_SELF,        /* self size */
  F_EDGES,       /* node's edge count */
  F_ENAME,       /* edge name_or_index */
  F_TO           /* edge target: index in nodes */
};

/* A list of names read from the meta ("node_fields", or one type list). */
typedef struct names {
  char **v;
  uint32_t n;
} names;

/* The reader's state: a cursor over the bytes and what has been read. */
typedef struct rd {
  const unsigned char *start, *p, *end;
  const char *name;          /* the file, for messages */
  const char *ctx;           /* what is being read, for messages */
  char *err;
  size_t errsz;
  int failed;                /* the first error is kept */
  lh_heap *h;
  /* meta */
  int have_meta;
  names node_fields, edge_fields;
  names node_types[MAX_FIELDS], edge_types[MAX_FIELDS];  /* per field */
  uint32_t nnode_types, nedge_types;   /* entries of node_types, edge_types */
  uint8_t nrole[MAX_FIELDS], erole[MAX_FIELDS];
  uint64_t node_count, edge_count;
  int have_node_count, have_edge_count;
  /* where the arrays were, to find an offset again */
  const unsigned char *nodes_at, *edges_at;
  int have_nodes, have_edges, have_strings, have_snapshot;
  /* snapshot.lua.sites, checked once the nodes are known */
  uint64_t *site_index;      /* index in nodes */
  uint32_t *site_str;        /* index in h->sites */
  uint32_t nsite_pairs, site_cap;
  const unsigned char *sites_at;
  /* the array element being read, for messages (item_kind NULL: none) */
  const char *item_kind;     /* "node", "edge" */
  uint64_t item;
  const char *field;         /* its field's name in the meta */
  /* string arena */
  size_t scap, sused;
  uint32_t strcap;
} rd;


/* ======================================================================
** Errors and the cursor
** ====================================================================== */

static int fail_at(rd *r, const unsigned char *at, const char *fmt, ...)
{
  va_list ap;
  size_t n;
  if (r->failed) return -1;
  r->failed = 1;
  if (at == NULL)
    n = (size_t)snprintf(r->err, r->errsz, "%s: ", r->name);
  else
    n = (size_t)snprintf(r->err, r->errsz, "%s:%zu: ", r->name,
                         (size_t)(at - r->start));
  if (n < r->errsz) {
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errsz - n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* What the cursor sees, for messages: "'x'", "byte 0x07" or "the end". */
static const char *seen(const rd *r, char *buf, size_t len)
{
  if (r->p >= r->end) return "the end of the file";
  if (*r->p >= 0x20 && *r->p < 0x7f)
    snprintf(buf, len, "'%c'", *r->p);
  else
    snprintf(buf, len, "byte 0x%02x", *r->p);
  return buf;
}

static int fail_expect(rd *r, const char *what)
{
  char b[16];
  return fail_at(r, r->p, "expected %s %s, found %s", what, r->ctx,
                 seen(r, b, sizeof b));
}

static int oom(rd *r)
{
  return fail_at(r, NULL, "out of memory");
}

static void ws(rd *r)
{
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' ||
                           *r->p == '\t'))
    r->p++;
}

/* Skip white space; is the next byte c?  (Then consume it.) */
static int accept(rd *r, int c)
{
  ws(r);
  if (r->p < r->end && *r->p == c) {
    r->p++;
    return 1;
  }
  return 0;
}

static int expect(rd *r, int c)
{
  char what[8];
  if (accept(r, c)) return 0;
  snprintf(what, sizeof what, "'%c'", c);
  return fail_expect(r, what);
}

/* After a member or element: ',' (1: another follows) or close (0). */
static int more(rd *r, int close)
{
  char what[16];
  ws(r);
  if (r->p < r->end && *r->p == ',') {
    r->p++;
    return 1;
  }
  if (r->p < r->end && *r->p == close) {
    r->p++;
    return 0;
  }
  snprintf(what, sizeof what, "',' or '%c'", close);
  return fail_expect(r, what);
}


/* ======================================================================
** Values
** ====================================================================== */

static int hexval(int c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* \uXXXX at p (past the backslash's 'u'), or -1. */
static long hex4(const rd *r, const unsigned char *p)
{
  long v = 0;
  if (r->end - p < 4) return -1;
  for (int i = 0; i < 4; i++) {
    int d = hexval(p[i]);
    if (d < 0) return -1;
    v = v << 4 | d;
  }
  return v;
}

static size_t put_utf8(unsigned char *o, unsigned long c)
{
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
static int string_into(rd *r, unsigned char *out, size_t *len)
{
  const unsigned char *p, *at;
  size_t n = 0;
  ws(r);
  if (r->p >= r->end || *r->p != '"') return fail_expect(r, "a string");
  at = r->p;
  p = r->p + 1;
  for (;;) {
    const unsigned char *run = p;
    while (p < r->end && *p != '"' && *p != '\\' && *p >= 0x20) p++;
    if (out != NULL) memcpy(out + n, run, (size_t)(p - run));
    n += (size_t)(p - run);
    if (p >= r->end) {
      r->p = p;
      return fail_at(r, at, "string not closed %s", r->ctx);
    }
    if (*p == '"') break;
    if (*p < 0x20) {
      r->p = p;
      return fail_at(r, p, "control byte 0x%02x in a string %s", *p, r->ctx);
    }
    /* a backslash */
    if (p + 1 >= r->end) {
      r->p = p;
      return fail_at(r, p, "string not closed %s", r->ctx);
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
        u = hex4(r, p + 2);
        if (u < 0) {
          r->p = p;
          return fail_at(r, p, "bad \\u escape in a string %s", r->ctx);
        }
        p += 4;
        if (u >= 0xd800 && u <= 0xdbff && r->end - p >= 8 && p[2] == '\\' &&
            p[3] == 'u') {
          long lo = hex4(r, p + 4);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
            p += 6;
          }
        }
        k = put_utf8(o, (unsigned long)u);
        break;
      default:
        r->p = p;
        return fail_at(r, p, "bad escape '\\%c' in a string %s",
                       c >= 0x20 && c < 0x7f ? c : '?', r->ctx);
      }
      if (out != NULL) memcpy(out + n, o, k);
      n += k;
      p += 2;
    }
  }
  r->p = p + 1;
  *len = n;
  return 0;
}

/* Where the string at the cursor ends: its closing quote (or the end
** of the file).  Its JSON text is no shorter than its value. */
static const unsigned char *string_end(const rd *r)
{
  const unsigned char *q = r->p;
  if (q < r->end && *q == '"') {
    q++;
    while (q < r->end && *q != '"') q += (*q == '\\' && q + 1 < r->end) ? 2 : 1;
  }
  return q;
}

/* A short string (a key, a name in the meta) into buf, NUL-terminated; a
** longer one is read and cut, so it matches no name we look for. */
static int short_string(rd *r, char *buf, size_t size)
{
  size_t len;
  ws(r);
  if ((size_t)(string_end(r) - r->p) < size) {
    if (string_into(r, (unsigned char *)buf, &len) < 0) return -1;
    buf[len] = '\0';
    if (strlen(buf) != len) buf[0] = '\1';   /* a NUL inside: no name */
    return 0;
  }
  if (string_into(r, NULL, &len) < 0) return -1;
  buf[0] = '\1';   /* matches nothing */
  buf[1] = '\0';
  return 0;
}

static char *dup_string(rd *r)
{
  char *s;
  size_t len;
  ws(r);
  s = malloc((size_t)(string_end(r) - r->p) + 1);
  if (s == NULL) {
    oom(r);
    return NULL;
  }
  if (string_into(r, (unsigned char *)s, &len) < 0) {
    free(s);
    return NULL;
  }
  s[len] = '\0';
  return s;
}

/* What integer() reads, for its messages: "node 12's self_size" while
** the arrays are read (the fields are set as it goes: no formatting
** unless something is wrong), else what. */
static const char *number_name(const rd *r, const char *what, char *buf,
                               size_t len)
{
  if (r->item_kind == NULL) return what;
  snprintf(buf, len, "%s %" PRIu64 "'s %s", r->item_kind, r->item, r->field);
  return buf;
}

/* A JSON number at the cursor.  Integers only (every number a snapshot
** holds is one); negative ones when neg is allowed.  In *u the value, or
** its magnitude when *negative. */
static int integer(rd *r, uint64_t *u, int *negative, int neg_ok,
                   const char *what)
{
  const unsigned char *p, *at;
  uint64_t v = 0;
  char b[16], nb[96];
  const char *problem;
  ws(r);
  p = at = r->p;
  *negative = 0;
  if (p < r->end && *p == '-') {
    *negative = 1;
    p++;
  }
  if (p >= r->end || *p < '0' || *p > '9') {
    r->p = at;
    return fail_at(r, at, "expected %s %s, found %s",
                   number_name(r, what, nb, sizeof nb), r->ctx,
                   seen(r, b, sizeof b));
  }
  if (*p == '0' && p + 1 < r->end && p[1] >= '0' && p[1] <= '9') {
    problem = "is not a JSON number (leading zero)";
    goto bad;
  }
  while (p < r->end && *p >= '0' && *p <= '9') {
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) {
      problem = "is too large (more than 64 bits)";
      goto bad;
    }
    v = v * 10 + d;
    p++;
  }
  if (p < r->end && (*p == '.' || *p == 'e' || *p == 'E')) {
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
  r->p = p;
  *u = v;
  return 0;
bad:
  return fail_at(r, at, "%s %s %s", number_name(r, what, nb, sizeof nb),
                 problem, r->ctx);
}

static int uinteger(rd *r, uint64_t *u, const char *what)
{
  int neg;
  return integer(r, u, &neg, 0, what);
}

/* Any JSON number (snapshot.lua's figures may be written as floats):
** its value, rounded down to an integer, at least 0. */
static int any_number(rd *r, uint64_t *u, const char *what)
{
  const unsigned char *p, *at;
  char buf[64], b[16];
  double d;
  size_t n;
  ws(r);
  p = at = r->p;
  if (p < r->end && *p == '-') p++;
  if (p >= r->end || *p < '0' || *p > '9')
    return fail_at(r, at, "expected %s %s, found %s", what, r->ctx,
                   seen(r, b, sizeof b));
  while (p < r->end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' ||
                        *p == 'E' || *p == '+' || *p == '-'))
    p++;
  n = (size_t)(p - at);
  if (n >= sizeof buf) return fail_at(r, at, "%s %s is too long", what, r->ctx);
  memcpy(buf, at, n);
  buf[n] = '\0';
  {
    char *e;
    d = strtod(buf, &e);
    if (*e != '\0' || d != d)
      return fail_at(r, at, "bad number for %s %s", what, r->ctx);
  }
  r->p = p;
  *u = d <= 0 ? 0 : d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)d;
  return 0;
}

static int boolean(rd *r, int *b, const char *what)
{
  char s[16];
  ws(r);
  if (r->end - r->p >= 4 && memcmp(r->p, "true", 4) == 0) {
    r->p += 4;
    *b = 1;
    return 0;
  }
  if (r->end - r->p >= 5 && memcmp(r->p, "false", 5) == 0) {
    r->p += 5;
    *b = 0;
    return 0;
  }
  return fail_at(r, r->p, "expected true or false for %s %s, found %s", what,
                 r->ctx, seen(r, s, sizeof s));
}

/* Any JSON value, checked and passed over (iteratively: no depth limit
** but MAX_DEPTH, never the C stack's). */
static int skip_value(rd *r)
{
  unsigned char stack[MAX_DEPTH];   /* '}' or ']' to close */
  int depth = 0;
  size_t len;
  char b[16];
  for (;;) {
    /* a value */
    ws(r);
    if (r->p >= r->end) return fail_expect(r, "a value");
    switch (*r->p) {
    case '{':
    case '[':
      if (depth == MAX_DEPTH)
        return fail_at(r, r->p, "values nested too deep %s", r->ctx);
      stack[depth++] = *r->p == '{' ? '}' : ']';
      r->p++;
      if (accept(r, stack[depth - 1])) {
        depth--;
        break;
      }
      if (stack[depth - 1] == '}') {
        if (string_into(r, NULL, &len) < 0 || expect(r, ':') < 0) return -1;
      }
      continue;   /* the first element or member's value */
    case '"':
      if (string_into(r, NULL, &len) < 0) return -1;
      break;
    case 't':
    case 'f': {
      int bv;
      if (boolean(r, &bv, "a value") < 0) return -1;
      break;
    }
    case 'n':
      if (r->end - r->p >= 4 && memcmp(r->p, "null", 4) == 0) {
        r->p += 4;
        break;
      }
      return fail_expect(r, "a value");
    default:
      if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9')) {
        uint64_t u;
        /* any JSON number: checked by its grammar */
        const unsigned char *p = r->p;
        if (*p == '-') p++;
        if (p >= r->end || *p < '0' || *p > '9') {
          r->p = p;
          return fail_expect(r, "a digit");
        }
        if (*p == '0') p++;
        else while (p < r->end && *p >= '0' && *p <= '9') p++;
        if (p < r->end && *p == '.') {
          p++;
          if (p >= r->end || *p < '0' || *p > '9') {
            r->p = p;
            return fail_expect(r, "a digit");
          }
          while (p < r->end && *p >= '0' && *p <= '9') p++;
        }
        if (p < r->end && (*p == 'e' || *p == 'E')) {
          p++;
          if (p < r->end && (*p == '+' || *p == '-')) p++;
          if (p >= r->end || *p < '0' || *p > '9') {
            r->p = p;
            return fail_expect(r, "a digit");
          }
          while (p < r->end && *p >= '0' && *p <= '9') p++;
        }
        r->p = p;
        (void)u;
        break;
      }
      return fail_at(r, r->p, "expected a value %s, found %s", r->ctx,
                     seen(r, b, sizeof b));
    }
    /* after a value: close what is complete, or go on to the next one */
    for (;;) {
      int m;
      if (depth == 0) return 0;
      m = more(r, stack[depth - 1]);
      if (m < 0) return -1;
      if (m == 0) {
        depth--;
        continue;
      }
      if (stack[depth - 1] == '}') {
        if (string_into(r, NULL, &len) < 0 || expect(r, ':') < 0) return -1;
      }
      break;
    }
  }
}


/* ======================================================================
** The meta
** ====================================================================== */

static void free_names(names *n)
{
  for (uint32_t i = 0; i < n->n; i++) free(n->v[i]);
  free(n->v);
  n->v = NULL;
  n->n = 0;
}

/* ["a", "b", ...] into n. */
static int name_list(rd *r, names *n, const char *what)
{
  uint32_t cap = 0;
  if (n->v != NULL)
    return fail_at(r, r->p, "%s given twice %s", what, r->ctx);
  if (expect(r, '[') < 0) return -1;
  if (accept(r, ']')) return 0;
  do {
    char *s;
    if (n->n == MAX_TYPES)
      return fail_at(r, r->p, "more than %d entries in %s %s", MAX_TYPES,
                     what, r->ctx);
    if (n->n == cap) {
      char **v = realloc(n->v, (cap = cap ? 2 * cap : 8) * sizeof *v);
      if (v == NULL) return oom(r);
      n->v = v;
    }
    s = dup_string(r);
    if (s == NULL) return -1;
    n->v[n->n++] = s;
  } while (more(r, ']') > 0);
  return r->failed ? -1 : 0;
}

/* node_types / edge_types: one entry a field; a list of names is the
** field's enumeration, anything else ("string", "number") is passed. */
static int type_lists(rd *r, names *lists, uint32_t *count, const char *what)
{
  if (*count != 0)
    return fail_at(r, r->p, "%s given twice %s", what, r->ctx);
  if (expect(r, '[') < 0) return -1;
  if (accept(r, ']')) return 0;
  do {
    if (*count == MAX_FIELDS)
      return fail_at(r, r->p, "more than %d entries in %s %s", MAX_FIELDS,
                     what, r->ctx);
    ws(r);
    if (r->p < r->end && *r->p == '[') {
      if (name_list(r, &lists[*count], what) < 0) return -1;
      if (lists[*count].v == NULL) {   /* [] : an empty enumeration */
        lists[*count].v = malloc(sizeof(char *));
        if (lists[*count].v == NULL) return oom(r);
      }
    } else if (skip_value(r) < 0) {
      return -1;
    }
    (*count)++;
  } while (more(r, ']') > 0);
  return r->failed ? -1 : 0;
}

static int field_index(const names *fields, const char *name)
{
  for (uint32_t i = 0; i < fields->n; i++)
    if (strcmp(fields->v[i], name) == 0) return (int)i;
  return -1;
}

/* Which of our fields each declared field is; the type enumerations. */
static int settle_meta(rd *r, const unsigned char *at)
{
  static const char *const nnames[] = {"type", "name", "id", "self_size",
                                       "edge_count"};
  static const uint8_t nroles[] = {F_TYPE, F_NAME, F_ID, F_SELF, F_EDGES};
  static const char *const enames[] = {"type", "name_or_index", "to_node"};
  static const uint8_t eroles[] = {F_TYPE, F_ENAME, F_TO};
  lh_heap *h = r->h;
  int t;
  if (r->node_fields.v == NULL || r->edge_fields.v == NULL)
    return fail_at(r, at, "meta has no %s",
                   r->node_fields.v == NULL ? "node_fields" : "edge_fields");
  if (r->node_fields.n > MAX_FIELDS || r->edge_fields.n > MAX_FIELDS)
    return fail_at(r, at, "meta declares more than %d fields", MAX_FIELDS);
  memset(r->nrole, F_IGNORED, sizeof r->nrole);
  memset(r->erole, F_IGNORED, sizeof r->erole);
  for (size_t i = 0; i < sizeof nnames / sizeof *nnames; i++) {
    int k = field_index(&r->node_fields, nnames[i]);
    if (k < 0)
      return fail_at(r, at, "meta.node_fields has no \"%s\"", nnames[i]);
    if (r->nrole[k] != F_IGNORED)
      return fail_at(r, at, "meta.node_fields names \"%s\" twice", nnames[i]);
    r->nrole[k] = nroles[i];
  }
  for (size_t i = 0; i < sizeof enames / sizeof *enames; i++) {
    int k = field_index(&r->edge_fields, enames[i]);
    if (k < 0)
      return fail_at(r, at, "meta.edge_fields has no \"%s\"", enames[i]);
    if (r->erole[k] != F_IGNORED)
      return fail_at(r, at, "meta.edge_fields names \"%s\" twice", enames[i]);
    r->erole[k] = eroles[i];
  }
  t = field_index(&r->node_fields, "type");
  if ((uint32_t)t >= r->nnode_types || r->node_types[t].v == NULL)
    return fail_at(r, at, "meta.node_types has no list of node types");
  h->ntype_names = r->node_types[t].v;
  h->nntypes = r->node_types[t].n;
  r->node_types[t].v = NULL;
  r->node_types[t].n = 0;
  t = field_index(&r->edge_fields, "type");
  if ((uint32_t)t >= r->nedge_types || r->edge_types[t].v == NULL)
    return fail_at(r, at, "meta.edge_types has no list of edge types");
  h->etype_names = r->edge_types[t].v;
  h->netypes = r->edge_types[t].n;
  r->edge_types[t].v = NULL;
  r->edge_types[t].n = 0;
  h->etype_map = malloc(h->netypes + 1);
  if (h->etype_map == NULL) return oom(r);
  {
    /* ORDER lh_etype */
    static const char *const known[] = {"context", "element", "property",
                                        "internal", "hidden", "shortcut",
                                        "weak"};
    for (uint32_t i = 0; i < h->netypes; i++) {
      h->etype_map[i] = LH_E_OTHER;
      for (uint8_t k = 0; k < sizeof known / sizeof *known; k++)
        if (strcmp(h->etype_names[i], known[k]) == 0) h->etype_map[i] = k;
    }
  }
  r->have_meta = 1;
  return 0;
}

static int parse_meta(rd *r)
{
  const unsigned char *at;
  char key[32];
  const char *ctx = r->ctx;
  ws(r);
  at = r->p;
  if (r->have_meta) return fail_at(r, at, "snapshot.meta given twice");
  r->ctx = "in snapshot.meta";
  if (expect(r, '{') < 0) return -1;
  if (!accept(r, '}')) {
    do {
      if (short_string(r, key, sizeof key) < 0 || expect(r, ':') < 0)
        return -1;
      if (strcmp(key, "node_fields") == 0) {
        if (name_list(r, &r->node_fields, "node_fields") < 0) return -1;
      } else if (strcmp(key, "edge_fields") == 0) {
        if (name_list(r, &r->edge_fields, "edge_fields") < 0) return -1;
      } else if (strcmp(key, "node_types") == 0) {
        if (type_lists(r, r->node_types, &r->nnode_types, "node_types") < 0)
          return -1;
      } else if (strcmp(key, "edge_types") == 0) {
        if (type_lists(r, r->edge_types, &r->nedge_types, "edge_types") < 0)
          return -1;
      } else if (skip_value(r) < 0) {
        return -1;
      }
    } while (more(r, '}') > 0);
    if (r->failed) return -1;
  }
  r->ctx = ctx;
  return settle_meta(r, at);
}


/* ======================================================================
** snapshot.lua
** ====================================================================== */

/* The index of site s in h->sites, added if new.  (Few distinct sites,
** many objects: a linear probe table over their hashes.) */
typedef struct site_table {
  uint32_t *slot;      /* index + 1, 0 empty */
  uint32_t cap;
} site_table;

static uint32_t hash_str(const char *s)
{
  uint32_t x = 2166136261u;
  while (*s) x = (x ^ (unsigned char)*s++) * 16777619u;
  return x;
}

static int intern_site(rd *r, site_table *t, char *s, uint32_t *index)
{
  lh_heap *h = r->h;
  uint32_t i;
  if ((h->nsites + 1) * 2 > t->cap) {
    uint32_t ncap = t->cap ? t->cap * 2 : 64;
    uint32_t *slot = calloc(ncap, sizeof *slot);
    char **sites = realloc(h->sites, ncap / 2 * sizeof *sites);
    if (slot == NULL || sites == NULL) {
      free(slot);
      if (sites != NULL) h->sites = sites;
      free(s);
      return oom(r);
    }
    h->sites = sites;
    for (uint32_t k = 0; k < h->nsites; k++) {
      i = hash_str(sites[k]) & (ncap - 1);
      while (slot[i] != 0) i = (i + 1) & (ncap - 1);
      slot[i] = k + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->cap = ncap;
  }
  i = hash_str(s) & (t->cap - 1);
  while (t->slot[i] != 0) {
    if (strcmp(h->sites[t->slot[i] - 1], s) == 0) {
      free(s);
      *index = t->slot[i] - 1;
      return 0;
    }
    i = (i + 1) & (t->cap - 1);
  }
  h->sites[h->nsites] = s;
  t->slot[i] = ++h->nsites;
  *index = h->nsites - 1;
  return 0;
}

/* "sites": [[node_index, "FUNCTION (SOURCE:LINE)"], ...] */
static int parse_sites(rd *r)
{
  site_table t = {NULL, 0};
  int rc = 0;
  ws(r);
  if (r->sites_at != NULL)
    return fail_at(r, r->p, "snapshot.lua.sites given twice");
  r->sites_at = r->p;
  if (expect(r, '[') < 0) return -1;
  if (accept(r, ']')) return 0;
  do {
    uint64_t index;
    uint32_t s = 0;
    char *str;
    if (expect(r, '[') < 0 || uinteger(r, &index, "a node index") < 0 ||
        expect(r, ',') < 0 || (str = dup_string(r)) == NULL ||
        intern_site(r, &t, str, &s) < 0 || expect(r, ']') < 0) {
      rc = -1;
      break;
    }
    if (r->nsite_pairs == r->site_cap) {
      uint32_t ncap = r->site_cap ? r->site_cap * 2 : 256;
      uint64_t *a = realloc(r->site_index, ncap * sizeof *a);
      uint32_t *b;
      if (a == NULL) { rc = oom(r); break; }
      r->site_index = a;
      b = realloc(r->site_str, ncap * sizeof *b);
      if (b == NULL) { rc = oom(r); break; }
      r->site_str = b;
      r->site_cap = ncap;
    }
    if (r->nsite_pairs == UINT32_MAX - 1) {
      rc = fail_at(r, r->p, "too many sites");
      break;
    }
    r->site_index[r->nsite_pairs] = index;
    r->site_str[r->nsite_pairs++] = s;
  } while (more(r, ']') > 0);
  free(t.slot);
  return rc < 0 || r->failed ? -1 : 0;
}

static int parse_lua(rd *r)
{
  lh_heap *h = r->h;
  char key[32];
  const char *ctx = r->ctx;
  ws(r);
  if (h->has_lua) return fail_at(r, r->p, "snapshot.lua given twice");
  r->ctx = "in snapshot.lua";
  if (expect(r, '{') < 0) return -1;
  h->has_lua = 1;
  if (!accept(r, '}')) {
    do {
      int rc = 0;
      if (short_string(r, key, sizeof key) < 0 || expect(r, ':') < 0)
        return -1;
      if (strcmp(key, "version") == 0) {
        char v[64];
        size_t n;
        rc = short_string(r, v, sizeof v);
        if (v[0] == '\1') strcpy(v, "?");
        n = strlen(v) < sizeof h->lua_version ? strlen(v)
                                              : sizeof h->lua_version - 1;
        memcpy(h->lua_version, v, n);
        h->lua_version[n] = '\0';
      } else if (strcmp(key, "exact") == 0) {
        rc = boolean(r, &h->exact, "exact");
      } else if (strcmp(key, "collected") == 0) {
        rc = boolean(r, &h->collected, "collected");
      } else if (strcmp(key, "gc_count_bytes") == 0) {
        rc = any_number(r, &h->gc_count_bytes, "gc_count_bytes");
        h->has_gc_count = 1;
      } else if (strcmp(key, "taken_ns") == 0) {
        rc = any_number(r, &h->taken_ns, "taken_ns");
      } else if (strcmp(key, "sites") == 0) {
        rc = parse_sites(r);
      } else {
        rc = skip_value(r);
      }
      if (rc < 0) return -1;
    } while (more(r, '}') > 0);
    if (r->failed) return -1;
  }
  r->ctx = ctx;
  return 0;
}

static int parse_snapshot(rd *r)
{
  char key[32];
  const unsigned char *at;
  ws(r);
  at = r->p;
  r->ctx = "in snapshot";
  if (expect(r, '{') < 0) return -1;
  if (!accept(r, '}')) {
    do {
      int rc = 0;
      if (short_string(r, key, sizeof key) < 0 || expect(r, ':') < 0)
        return -1;
      if (strcmp(key, "meta") == 0) {
        rc = parse_meta(r);
      } else if (strcmp(key, "node_count") == 0) {
        rc = r->have_node_count
                 ? fail_at(r, r->p, "snapshot.node_count given twice")
                 : uinteger(r, &r->node_count, "node_count");
        r->have_node_count = 1;
      } else if (strcmp(key, "edge_count") == 0) {
        rc = r->have_edge_count
                 ? fail_at(r, r->p, "snapshot.edge_count given twice")
                 : uinteger(r, &r->edge_count, "edge_count");
        r->have_edge_count = 1;
      } else if (strcmp(key, "lua") == 0) {
        rc = parse_lua(r);
      } else {
        rc = skip_value(r);
      }
      if (rc < 0) return -1;
    } while (more(r, '}') > 0);
    if (r->failed) return -1;
  }
  if (!r->have_meta) return fail_at(r, at, "snapshot has no meta");
  if (!r->have_node_count) return fail_at(r, at, "snapshot has no node_count");
  if (!r->have_edge_count) return fail_at(r, at, "snapshot has no edge_count");
  if (r->node_count >= UINT32_MAX || r->edge_count >= UINT32_MAX)
    return fail_at(r, at, "snapshot: %s %" PRIu64 " is too large",
                   r->node_count >= UINT32_MAX ? "node_count" : "edge_count",
                   r->node_count >= UINT32_MAX ? r->node_count : r->edge_count);
  return 0;
}


/* ======================================================================
** Nodes, edges, strings
** ====================================================================== */

/* The common case inline: up to 19 digits, no sign, no leading zero,
** followed by what cannot continue a number, with 21 bytes left to read
** (so no bound is checked per digit).  0: leave it to integer(), which
** also says what is wrong. */
static inline int fast_uint(rd *r, uint64_t *v)
{
  const unsigned char *p = r->p;
  uint64_t x;
  unsigned d, k = 1;
  if (r->end - p < 21 || (d = (unsigned)(*p - '1')) > 8) return 0;
  x = d + 1;
  while ((d = (unsigned)(*++p - '0')) <= 9 && k < 19) {
    x = x * 10 + d;
    k++;
  }
  if (d <= 9 || *p == '.' || *p == 'e' || *p == 'E') return 0;
  *v = x;
  r->p = p;
  return 1;
}

/* After an array element: ',' (1), ']' (0) or an error (-1), white
** space before either; a comma right there without a call. */
static inline int next_element(rd *r)
{
  if (r->p < r->end && *r->p == ',') {
    r->p++;
    return 1;
  }
  return more(r, ']');
}

/* Allocate the per-node (or per-edge) arrays once count numbers of
** nfields each are known to fit in what is left of the file (each takes
** two bytes at least: a digit and a comma). */
static int fits(rd *r, uint64_t count, uint32_t nfields, const char *what)
{
  uint64_t left = (uint64_t)(r->end - r->p);
  if (count >= UINT32_MAX || (count > 0 && (left + 1) / 2 / nfields < count))
    return fail_at(r, r->p, "%s %" PRIu64 " does not fit in the file",
                   what, count);
  if (count >= SIZE_MAX / sizeof(uint64_t))   /* (32-bit: the arrays) */
    return fail_at(r, r->p, "%s %" PRIu64 " is too large", what, count);
  return 0;
}

#define BAD_ARRAY(what) \
  fail_at(r, r->p, "%s holds more numbers than %s says", what, \
          what[0] == 'n' ? "node_count" : "edge_count")

static int parse_nodes(rd *r)
{
  lh_heap *h = r->h;
  uint32_t nf = r->node_fields.n, f = 0, node = 0;
  uint64_t n = r->node_count, edges = 0, total = 0;
  size_t cells;
  r->ctx = "in nodes";
  ws(r);
  if (!r->have_snapshot || !r->have_meta)
    return fail_at(r, r->p, "\"nodes\" before \"snapshot\" (whose meta says "
                   "what the numbers are)");
  if (r->have_nodes) return fail_at(r, r->p, "\"nodes\" given twice");
  r->have_nodes = 1;
  r->nodes_at = r->p;
  if (fits(r, n, nf, "node_count") < 0) return -1;
  h->nnodes = (uint32_t)n;
  cells = (size_t)n + 1;
  h->ntype = malloc(cells);
  h->kind = malloc(cells);
  h->name = malloc(cells * sizeof *h->name);
  h->id = malloc(cells * sizeof *h->id);
  h->self = malloc(cells * sizeof *h->self);
  h->first_edge = malloc(cells * sizeof *h->first_edge);
  if (!h->ntype || !h->kind || !h->name || !h->id || !h->self ||
      !h->first_edge)
    return oom(r);
  if (expect(r, '[') < 0) return -1;
  if (accept(r, ']')) goto done;
  do {
    uint64_t v;
    int neg;
    const unsigned char *at;
    if (r->p < r->end && (*r->p == '\n' || *r->p == ' ')) ws(r);
    at = r->p;
    if (node == n) return BAD_ARRAY("nodes");
    neg = 0;
    if (r->p < r->end && *r->p == '0' && r->end - r->p > 1 &&
        (r->p[1] == ',' || r->p[1] == ']')) {
      v = 0;   /* the commonest number of all */
      r->p++;
    } else if (!fast_uint(r, &v)) {
      r->item_kind = "node";
      r->item = node;
      r->field = r->node_fields.v[f];
      if (integer(r, &v, &neg, r->nrole[f] == F_IGNORED, "a node field") < 0)
        return -1;
    }
    switch (r->nrole[f]) {
    case F_TYPE:
      if (v >= h->nntypes)
        return fail_at(r, at, "node %" PRIu32 ": type %" PRIu64 " is not one "
                       "of the %" PRIu32 " node types", node, v, h->nntypes);
      h->ntype[node] = (uint8_t)v;
      break;
    case F_NAME:
      if (v >= UINT32_MAX)
        return fail_at(r, at, "node %" PRIu32 ": name %" PRIu64 " is not a "
                       "string index", node, v);
      h->name[node] = (uint32_t)v;
      break;
    case F_ID: h->id[node] = v; break;
    case F_SELF:
      if (v >= SIZE_LIMIT)
        return fail_at(r, at, "node %" PRIu32 "'s self_size %" PRIu64
                       " is too large (2^53 at most)", node, v);
      total += v;
      if (total >= TOTAL_LIMIT)
        return fail_at(r, at, "self sizes add up to more than 2^62 bytes");
      h->self[node] = v;
      break;
    case F_EDGES:
      h->first_edge[node] = (uint32_t)edges;
      if (v > r->edge_count - edges)
        return fail_at(r, at, "node %" PRIu32 ": edge counts add up to more "
                       "than edge_count %" PRIu64, node, r->edge_count);
      edges += v;
      break;
    default: break;
    }
    if (++f == nf) {
      f = 0;
      node++;
    }
  } while (next_element(r) > 0);
  if (r->failed) return -1;
done:
  r->item_kind = NULL;
  if (node != n || f != 0)
    return fail_at(r, r->p - 1, "nodes holds %" PRIu64 " numbers, but "
                   "node_count %" PRIu64 " nodes of %" PRIu32 " fields are %"
                   PRIu64, (uint64_t)node * nf + f, n, nf, n * nf);
  if (edges != r->edge_count)
    return fail_at(r, r->p - 1, "the nodes' edge counts add up to %" PRIu64
                   ", but edge_count is %" PRIu64, edges, r->edge_count);
  h->first_edge[n] = (uint32_t)edges;
  h->total_self = total;
  return 0;
}

static int parse_edges(rd *r)
{
  lh_heap *h = r->h;
  uint32_t nf = r->edge_fields.n, f = 0, edge = 0;
  uint32_t nnf = r->node_fields.n;
  uint64_t n = r->edge_count, limit;
  size_t cells;
  r->ctx = "in edges";
  ws(r);
  if (!r->have_snapshot || !r->have_meta)
    return fail_at(r, r->p, "\"edges\" before \"snapshot\" (whose meta says "
                   "what the numbers are)");
  if (r->have_edges) return fail_at(r, r->p, "\"edges\" given twice");
  r->have_edges = 1;
  r->edges_at = r->p;
  if (fits(r, n, nf, "edge_count") < 0) return -1;
  limit = r->node_count * nnf;
  h->nedges = (uint32_t)n;
  cells = (size_t)n + 1;
  h->etype = malloc(cells);
  h->ename = malloc(cells * sizeof *h->ename);
  h->to = malloc(cells * sizeof *h->to);
  if (!h->etype || !h->ename || !h->to) return oom(r);
  if (expect(r, '[') < 0) return -1;
  if (accept(r, ']')) goto done;
  do {
    uint64_t v;
    int neg = 0;
    const unsigned char *at;
    if (r->p < r->end && (*r->p == '\n' || *r->p == ' ')) ws(r);
    at = r->p;
    if (edge == n) return BAD_ARRAY("edges");
    if (r->p < r->end && *r->p == '0' && r->end - r->p > 1 &&
        (r->p[1] == ',' || r->p[1] == ']')) {
      v = 0;
      r->p++;
    } else if (!fast_uint(r, &v)) {
      r->item_kind = "edge";
      r->item = edge;
      r->field = r->edge_fields.v[f];
      if (integer(r, &v, &neg, r->erole[f] != F_TYPE && r->erole[f] != F_TO,
                  "an edge field") < 0)
        return -1;
    }
    switch (r->erole[f]) {
    case F_TYPE:
      if (v >= h->netypes)
        return fail_at(r, at, "edge %" PRIu32 ": type %" PRIu64 " is not one "
                       "of the %" PRIu32 " edge types", edge, v, h->netypes);
      h->etype[edge] = h->etype_map[v];
      break;
    case F_ENAME:
      h->ename[edge] = neg ? (int64_t)(0 - v) : (int64_t)v;
      if (!neg && v > INT64_MAX)
        return fail_at(r, at, "edge %" PRIu32 ": name_or_index %" PRIu64
                       " is too large", edge, v);
      break;
    case F_TO:
      if (v >= limit || v % nnf != 0)
        return fail_at(r, at, "edge %" PRIu32 ": to_node %" PRIu64 " is not "
                       "a node (a multiple of %" PRIu32 " below %" PRIu64 ")",
                       edge, v, nnf, limit);
      h->to[edge] = (uint32_t)(v / nnf);
      break;
    default: break;
    }
    if (++f == nf) {
      f = 0;
      edge++;
    }
  } while (next_element(r) > 0);
  if (r->failed) return -1;
done:
  r->item_kind = NULL;
  if (edge != n || f != 0)
    return fail_at(r, r->p - 1, "edges holds %" PRIu64 " numbers, but "
                   "edge_count %" PRIu64 " edges of %" PRIu32 " fields are %"
                   PRIu64, (uint64_t)edge * nf + f, n, nf, n * nf);
  return 0;
}

static int parse_strings(rd *r)
{
  lh_heap *h = r->h;
  r->ctx = "in strings";
  ws(r);
  if (r->have_strings) return fail_at(r, r->p, "\"strings\" given twice");
  r->have_strings = 1;
  if (expect(r, '[') < 0) return -1;
  if (accept(r, ']')) return 0;
  do {
    size_t need, len;
    ws(r);
    need = (size_t)(string_end(r) - r->p) + 1;
    if (r->sused + need > r->scap) {
      size_t ncap = r->scap ? r->scap : 4096;
      char *b;
      while (ncap < r->sused + need) ncap *= 2;
      b = realloc(h->sbuf, ncap);
      if (b == NULL) return oom(r);
      h->sbuf = b;
      r->scap = ncap;
    }
    if (h->nstrings == r->strcap) {
      uint32_t ncap = r->strcap ? r->strcap * 2 : 1024;
      size_t *o;
      uint32_t *l;
      if (r->strcap >= UINT32_MAX / 2)
        return fail_at(r, r->p, "too many strings");
      o = realloc(h->soff, ncap * sizeof *o);
      if (o == NULL) return oom(r);
      h->soff = o;
      l = realloc(h->slen, ncap * sizeof *l);
      if (l == NULL) return oom(r);
      h->slen = l;
      r->strcap = ncap;
    }
    if (string_into(r, (unsigned char *)h->sbuf + r->sused, &len) < 0)
      return -1;
    if (len >= UINT32_MAX) return fail_at(r, r->p, "string too long");
    h->sbuf[r->sused + len] = '\0';
    h->soff[h->nstrings] = r->sused;
    h->slen[h->nstrings++] = (uint32_t)len;
    r->sused += len + 1;
  } while (more(r, ']') > 0);
  return r->failed ? -1 : 0;
}

/* The offset of the k-th number of the array at at (error path only). */
static const unsigned char *number_at(rd *r, const unsigned char *at,
                                      uint64_t k)
{
  const unsigned char *p = at;
  while (p < r->end && *p != '[') p++;
  p++;
  for (;;) {
    while (p < r->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
      p++;
    if (k == 0 || p >= r->end) return p;
    while (p < r->end && *p != ',') p++;
    p++;
    k--;
  }
}

/* What needs the strings: names are string indices. */
static int check_names(rd *r)
{
  lh_heap *h = r->h;
  uint32_t nf = r->node_fields.n, ef = r->edge_fields.n;
  int nname = field_index(&r->node_fields, "name");
  int ename = field_index(&r->edge_fields, "name_or_index");
  for (uint32_t i = 0; i < h->nnodes; i++)
    if (h->name[i] >= h->nstrings)
      return fail_at(r, number_at(r, r->nodes_at, (uint64_t)i * nf +
                                  (uint64_t)nname),
                     "node %" PRIu32 ": name %" PRIu32 " is not one of the %"
                     PRIu32 " strings", i, h->name[i], h->nstrings);
  for (uint32_t e = 0; e < h->nedges; e++) {
    if (h->etype[e] == LH_E_ELEMENT || h->etype[e] == LH_E_HIDDEN) continue;
    if (h->ename[e] < 0 || (uint64_t)h->ename[e] >= h->nstrings)
      return fail_at(r, number_at(r, r->edges_at, (uint64_t)e * ef +
                                  (uint64_t)ename),
                     "edge %" PRIu32 ": name %" PRId64 " is not one of the %"
                     PRIu32 " strings", e, h->ename[e], h->nstrings);
  }
  return 0;
}

static int check_sites(rd *r)
{
  lh_heap *h = r->h;
  uint32_t nf = r->node_fields.n;
  if (r->sites_at == NULL) return 0;
  h->site_of = malloc(((size_t)h->nnodes + 1) * sizeof *h->site_of);
  if (h->site_of == NULL) return oom(r);
  for (uint32_t i = 0; i < h->nnodes; i++) h->site_of[i] = LH_NONE;
  for (uint32_t k = 0; k < r->nsite_pairs; k++) {
    uint64_t x = r->site_index[k];
    if (x % nf != 0 || x / nf >= h->nnodes)
      return fail_at(r, r->sites_at, "snapshot.lua.sites[%" PRIu32 "]: node "
                     "index %" PRIu64 " is not a node (a multiple of %" PRIu32
                     " below %" PRIu64 ")", k, x, nf, (uint64_t)h->nnodes * nf);
    h->site_of[x / nf] = r->site_str[k];
  }
  return 0;
}


/* ======================================================================
** The file
** ====================================================================== */

static int parse_top(rd *r)
{
  char key[32], b[16];
  r->ctx = "at the start";
  ws(r);
  if (r->p >= r->end) return fail_at(r, NULL, "empty file, not a heap snapshot");
  if (*r->p != '{')
    return fail_at(r, r->p, "not a heap snapshot (expected '{', found %s)",
                   seen(r, b, sizeof b));
  r->p++;
  r->ctx = "in the top-level object";
  if (!accept(r, '}')) {
    do {
      int rc;
      r->ctx = "in the top-level object";
      if (short_string(r, key, sizeof key) < 0 || expect(r, ':') < 0)
        return -1;
      if (strcmp(key, "snapshot") == 0) {
        if (r->have_snapshot)
          return fail_at(r, r->p, "\"snapshot\" given twice");
        rc = parse_snapshot(r);
        r->have_snapshot = 1;
      } else if (strcmp(key, "nodes") == 0) {
        rc = parse_nodes(r);
      } else if (strcmp(key, "edges") == 0) {
        rc = parse_edges(r);
      } else if (strcmp(key, "strings") == 0) {
        rc = parse_strings(r);
      } else {
        rc = skip_value(r);
      }
      if (rc < 0) return -1;
      r->ctx = "in the top-level object";
    } while (more(r, '}') > 0);
    if (r->failed) return -1;
  }
  ws(r);
  if (r->p < r->end)
    return fail_at(r, r->p, "%s after the snapshot's end", seen(r, b, sizeof b));
  if (!r->have_snapshot) return fail_at(r, NULL, "no \"snapshot\" (not a heap snapshot)");
  if (!r->have_nodes) return fail_at(r, NULL, "no \"nodes\"");
  if (!r->have_edges) return fail_at(r, NULL, "no \"edges\"");
  if (!r->have_strings) return fail_at(r, NULL, "no \"strings\"");
  if (r->h->nnodes == 0)
    return fail_at(r, NULL, "no nodes (node 0, the root, is missing)");
  if (check_names(r) < 0 || check_sites(r) < 0) return -1;
  return 0;
}

void lh_free(lh_heap *h)
{
  if (h == NULL) return;
  free(h->file);
  free(h->ntype);
  free(h->kind);
  free(h->name);
  free(h->id);
  free(h->self);
  free(h->first_edge);
  free(h->etype);
  free(h->ename);
  free(h->to);
  free(h->sbuf);
  free(h->soff);
  free(h->slen);
  for (uint32_t i = 0; i < h->nntypes; i++) free(h->ntype_names[i]);
  free(h->ntype_names);
  for (uint32_t i = 0; i < h->netypes; i++) free(h->etype_names[i]);
  free(h->etype_names);
  free(h->etype_map);
  for (uint32_t i = 0; i < h->nsites; i++) free(h->sites[i]);
  free(h->sites);
  free(h->site_of);
  free(h->idom);
  free(h->retained);
  free(h->bfs_edge);
  free(h->bfs_parent);
  free(h->bfs_order);
  free(h->bfs_depth);
  free(h->bfs_anchor);
  free(h);
}

/* The file's bytes read into a heap, not yet analysed; NULL with err. */
static lh_heap *parse(const char *name, const void *data, size_t size,
                      char *err, size_t errsz)
{
  rd r;
  int rc;
  memset(&r, 0, sizeof r);
  r.start = r.p = data;
  r.end = r.start + size;
  r.name = name;
  r.err = err;
  r.errsz = errsz;
  r.h = calloc(1, sizeof *r.h);
  if (r.h == NULL || (r.h->file = strdup(name)) == NULL) {
    free(r.h);
    snprintf(err, errsz, "%s: out of memory", name);
    return NULL;
  }
  rc = size == 0 ? fail_at(&r, NULL, "empty file, not a heap snapshot")
                 : parse_top(&r);
  free_names(&r.node_fields);
  free_names(&r.edge_fields);
  for (uint32_t i = 0; i < MAX_FIELDS; i++) {
    free_names(&r.node_types[i]);
    free_names(&r.edge_types[i]);
  }
  free(r.site_index);
  free(r.site_str);
  if (rc < 0) {
    lh_free(r.h);
    return NULL;
  }
  return r.h;
}

/* Analysed, or freed. */
static lh_heap *analysed(lh_heap *h, char *err, size_t errsz)
{
  if (h != NULL && lh_analyse(h, err, errsz) < 0) {
    lh_free(h);
    return NULL;
  }
  return h;
}

lh_heap *lh_load_mem(const char *name, const void *data, size_t size,
                     char *err, size_t errsz)
{
  return analysed(parse(name, data, size, err, errsz), err, errsz);
}

/* Read the whole of fd into *data (for what cannot be mapped: a pipe). */
static int slurp(int fd, unsigned char **data, size_t *size)
{
  size_t cap = 1 << 16, n = 0;
  unsigned char *b = malloc(cap);
  if (b == NULL) return ENOMEM;
  for (;;) {
    ssize_t got;
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

lh_heap *lh_load(const char *path, char *err, size_t errsz)
{
  struct stat st;
  unsigned char *data = NULL;
  size_t size = 0;
  int mapped = 0, e;
  lh_heap *h;
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    snprintf(err, errsz, "%s: %s", path, strerror(errno));
    return NULL;
  }
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(err, errsz, "%s: %s", path, strerror(EISDIR));
    close(fd);
    return NULL;
  }
#ifdef LH_MMAP
  if (S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uint64_t)st.st_size <= SIZE_MAX) {
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      data = m;
      size = (size_t)st.st_size;
      mapped = 1;
#ifdef MADV_SEQUENTIAL
      madvise(m, size, MADV_SEQUENTIAL);
#endif
    }
  }
#endif
  if (!mapped && (e = slurp(fd, &data, &size)) != 0) {
    snprintf(err, errsz, "%s: %s", path, strerror(e));
    close(fd);
    return NULL;
  }
  close(fd);
  h = parse(path, data, size, err, errsz);
  /* the file's bytes are no longer needed: gone before the analysis */
#ifdef LH_MMAP
  if (mapped) munmap(data, size);
#endif
  if (!mapped) free(data);
  return analysed(h, err, errsz);
}
