/*
** protos.c -- list the prototypes of a compiled chunk from its dump (see
** protos.h).  The layout is ldump.c's of Lua 5.4: a header, the main
** function's upvalue count, then each function as
**   source, linedefined, lastlinedefined, numparams, is_vararg,
**   maxstacksize, code, constants, upvalues, protos, debug
** with sizes as MSB-first 7-bit groups whose last byte has bit 7 set.
*/
#include <stdlib.h>
#include <string.h>

#include "protos.h"

typedef struct reader {
  const unsigned char *p, *end;
  int bad;              /* a read ran past the end or met nonsense */
  fz_protos *out;
} reader;

typedef struct dumpbuf { unsigned char *p; size_t n, cap; } dumpbuf;

static int writer(lua_State *L, const void *p, size_t sz, void *ud) {
  dumpbuf *b = ud;
  (void)L;
  if (b->n + sz > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->n + sz) cap *= 2;
    unsigned char *np = realloc(b->p, cap);
    if (np == NULL) return 1;
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, p, sz);
  b->n += sz;
  return 0;
}

static unsigned byte(reader *r) {
  if (r->p >= r->end) { r->bad = 1; return 0; }
  return *r->p++;
}

static size_t size(reader *r) {
  size_t x = 0;
  unsigned b;
  do {
    b = byte(r);
    if (x > ((size_t)-1 >> 8)) r->bad = 1;
    if (r->bad) return 0;
    x = (x << 7) | (b & 0x7f);
  } while (!(b & 0x80));
  return x;
}

static void skip(reader *r, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n) { r->bad = 1; return; }
  r->p += n;
}

static void string(reader *r) {
  size_t n = size(r);
  if (n > 0) skip(r, n - 1);
}

static void constants(reader *r) {
  size_t n = size(r);
  for (size_t i = 0; i < n && !r->bad; i++) {
    switch (byte(r)) {
      case 0: case 1: case 17: break;         /* nil, false, true */
      case 3: case 19: skip(r, 8); break;     /* integer, float */
      case 4: case 20: string(r); break;      /* short, long string */
      default: r->bad = 1;
    }
  }
}

static void debuginfo(reader *r) {
  size_t n = size(r);
  skip(r, n);                                 /* lineinfo */
  n = size(r);
  for (size_t i = 0; i < n && !r->bad; i++) { size(r); size(r); }
  n = size(r);
  for (size_t i = 0; i < n && !r->bad; i++) { string(r); size(r); size(r); }
  n = size(r);
  for (size_t i = 0; i < n && !r->bad; i++) string(r);
}

/* function -> source lines params code constants upvalues protos debug */
static void function(reader *r, uint32_t parent, int depth) {
  fz_protos *o = r->out;
  uint32_t me = o->n;
  fz_proto *f;
  size_t n;
  if (depth > 300) { r->bad = 1; return; }
  f = realloc(o->v, (size_t)(o->n + 1) * sizeof *o->v);
  if (f == NULL) { r->bad = 1; return; }
  o->v = f;
  o->n++;
  string(r);
  f = &o->v[me];
  memset(f, 0, sizeof *f);
  f->parent = parent;
  f->line = (uint32_t)size(r);
  f->lastline = (uint32_t)size(r);
  f->numparams = byte(r);
  f->is_vararg = byte(r);
  byte(r);                                    /* maxstacksize */
  n = size(r);
  if (n > (size_t)(r->end - r->p) / 4) { r->bad = 1; return; }
  skip(r, n * 4);
  constants(r);
  n = size(r);
  o->v[me].nupvalues = (unsigned)n;
  skip(r, n * 3);
  n = size(r);
  o->v[me].nprotos = (uint32_t)n;
  for (size_t i = 0; i < n && !r->bad; i++) function(r, me, depth + 1);
  debuginfo(r);
}

int fz_protos_of(lua_State *L, fz_protos *out) {
  dumpbuf b = {0};
  reader r;
  memset(out, 0, sizeof *out);
  if (lua_dump(L, writer, &b, 0) != 0) { free(b.p); return 0; }
  r.p = b.p;
  r.end = b.p + b.n;
  r.bad = 0;
  r.out = out;
  /* signature 4, version, format, LUAC_DATA 6, three sizes, int, float */
  skip(&r, 4 + 1 + 1 + 6 + 3 + 8 + 8);
  byte(&r);                                   /* main's upvalue count */
  function(&r, 0, 0);
  if (r.p != r.end) r.bad = 1;
  free(b.p);
  if (r.bad) { fz_protos_free(out); return 0; }
  return 1;
}

void fz_protos_free(fz_protos *p) {
  free(p->v);
  p->v = NULL;
  p->n = 0;
}
