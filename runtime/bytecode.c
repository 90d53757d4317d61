/*
** bytecode.c -- reading and lifting Lua 5.4 binary chunks (see bytecode.h).
**
** The layout read here is ldump.c's: a header, the byte count of the main
** function's upvalues, then the function, recursively:
**   source (string)  linedefined lastlinedefined (sizes)
**   numparams is_vararg maxstacksize (bytes)
**   code: n, n instructions    constants: n, {tag, payload}
**   upvalues: n, {instack, idx, kind}    protos: n, {function}
**   debug: lineinfo n bytes; abslineinfo n {pc, line}; locvars n {string,
**          startpc, endpc}; upvalue names n {string}
** Sizes are big-endian groups of 7 bits, the last one marked by 0x80;
** strings are a size (length + 1, 0 for none) and the bytes.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"

/* Opcodes and instruction fields of Lua 5.4 (lopcodes.h; the same from
** 5.4.0 to 5.4.6, checked against the interpreter by tests/test_rewrite.c). */
enum { OP_LOADI = 1, OP_LOADFALSE = 5, OP_GETUPVAL = 9, OP_JMP = 56,
       OP_TEST = 66, OP_CALL = 68, OP_VARARGPREP = 81 };
#define OPCODE(i) ((unsigned)((i) & 0x7Fu))
#define ARG_A(i)  ((unsigned)(((i) >> 7) & 0xFFu))
#define ARG_B(i)  ((unsigned)(((i) >> 16) & 0xFFu))
#define ARG_C(i)  ((unsigned)(((i) >> 24) & 0xFFu))
#define ARG_sBx(i) ((long)((i) >> 15) - 65535L)
#define ARG_sJ(i)  ((long)((i) >> 7) - 16777215L)

/* Tags of constants (lobject.h makevariant). */
enum { TAG_NIL = 0, TAG_FALSE = 1, TAG_TRUE = 17, TAG_INT = 3, TAG_FLT = 19,
       TAG_SHRSTR = 4, TAG_LNGSTR = 20 };

#define MAX_NESTING 250     /* protos nested deeper than Lua compiles */

typedef struct rd {
  const unsigned char *p, *end;
  size_t intsz, numsz;       /* sizes of lua_Integer and lua_Number */
  int bad;                   /* set on any malformed or truncated read */
} rd;

static unsigned rd_byte(rd *r) {
  if (r->p >= r->end) { r->bad = 1; return 0; }
  return *r->p++;
}

static size_t rd_size(rd *r) {
  size_t x = 0;
  unsigned b;
  do {
    b = rd_byte(r);
    if (r->bad || x > (SIZE_MAX >> 7)) { r->bad = 1; return 0; }
    x = (x << 7) | (b & 0x7Fu);
  } while ((b & 0x80u) == 0);
  return x;
}

static const unsigned char *rd_skip(rd *r, size_t n) {
  const unsigned char *at = r->p;
  if (r->bad || (size_t)(r->end - r->p) < n) { r->bad = 1; return NULL; }
  r->p += n;
  return at;
}

/* A string: *len bytes at the result; NULL with *len 0 for "no string". */
static const unsigned char *rd_string(rd *r, size_t *len) {
  size_t n = rd_size(r);
  *len = 0;
  if (n == 0) return NULL;
  *len = n - 1;
  return rd_skip(r, n - 1);
}

/* The header; its length, or 0 if it is not a Lua 5.4 chunk of this
** machine's instruction size. */
static size_t rd_header(rd *r) {
  static const char data[] = "\x19\x93\r\n\x1a\n";
  const unsigned char *h = r->p;
  if (rd_skip(r, 15) == NULL || memcmp(h, "\x1bLua", 4) != 0 || h[4] != 0x54 ||
      h[5] != 0 || memcmp(h + 6, data, 6) != 0 || h[12] != 4)
    return 0;
  r->intsz = h[13];
  r->numsz = h[14];
  if (rd_skip(r, r->intsz + r->numsz) == NULL) return 0;
  return (size_t)(r->p - h);
}

/* What a function's first part holds. */
typedef struct fnhead {
  const unsigned char *source; size_t srclen;  /* NULL: none (stripped or
                                                   as its parent's) */
  const unsigned char *lines;  /* where linedefined starts */
  const unsigned char *rest;   /* where numparams starts */
  const unsigned char *code; size_t ncode;
  const unsigned char *upv; size_t nupv;       /* 3 bytes each */
} fnhead;

/* Read a function up to and including its upvalues. */
static void rd_head(rd *r, fnhead *f) {
  size_t n, len;
  f->source = rd_string(r, &f->srclen);
  f->lines = r->p;
  rd_size(r); rd_size(r);
  f->rest = r->p;
  rd_skip(r, 3);
  f->ncode = rd_size(r);
  if (f->ncode > (size_t)(r->end - r->p) / 4) { r->bad = 1; return; }
  f->code = rd_skip(r, f->ncode * 4);
  n = rd_size(r);
  for (size_t i = 0; i < n && !r->bad; i++) {
    switch (rd_byte(r)) {
      case TAG_NIL: case TAG_FALSE: case TAG_TRUE: break;
      case TAG_INT: rd_skip(r, r->intsz); break;
      case TAG_FLT: rd_skip(r, r->numsz); break;
      case TAG_SHRSTR: case TAG_LNGSTR: rd_string(r, &len); break;
      default: r->bad = 1;
    }
  }
  f->nupv = rd_size(r);
  if (f->nupv > 255) { r->bad = 1; return; }
  f->upv = rd_skip(r, f->nupv * 3);
}

/* Skip the rest of a function whose head was read: protos, debug info.
** Returns where its lineinfo starts (NULL if it has none). */
static const unsigned char *rd_tail(rd *r, int depth) {
  size_t n, len;
  const unsigned char *lineinfo;
  if (depth > MAX_NESTING) { r->bad = 1; return NULL; }
  n = rd_size(r);
  for (size_t i = 0; i < n && !r->bad; i++) {
    fnhead f;
    rd_head(r, &f);
    rd_tail(r, depth + 1);
  }
  n = rd_size(r);                                   /* lineinfo */
  lineinfo = rd_skip(r, n);
  if (n == 0) lineinfo = NULL;
  n = rd_size(r);                                   /* abslineinfo */
  for (size_t i = 0; i < n && !r->bad; i++) { rd_size(r); rd_size(r); }
  n = rd_size(r);                                   /* locvars */
  for (size_t i = 0; i < n && !r->bad; i++) {
    rd_string(r, &len); rd_size(r); rd_size(r);
  }
  n = rd_size(r);                                   /* upvalue names */
  for (size_t i = 0; i < n && !r->bad; i++) rd_string(r, &len);
  return lineinfo;
}

static uint32_t instr(const fnhead *f, size_t pc) {
  const unsigned char *c = f->code + 4 * pc;    /* dumped in host order */
  uint32_t i;
  memcpy(&i, c, 4);
  return i;
}

/* Append a size in dump form. */
static size_t put_size(unsigned char *o, size_t x) {
  unsigned char tmp[sizeof(size_t) * 8 / 7 + 1];
  size_t n = 0;
  do { tmp[sizeof tmp - ++n] = (unsigned char)(x & 0x7Fu); x >>= 7; } while (x);
  tmp[sizeof tmp - 1] |= 0x80u;
  memcpy(o, tmp + sizeof tmp - n, n);
  return n;
}

int li_bc_lift_main(const char *dump, size_t n, char **out, size_t *outlen) {
  rd r = { (const unsigned char *)dump, (const unsigned char *)dump + n, 0, 0, 0 };
  fnhead outer, inner;
  const unsigned char *lineinfo;
  size_t hlen = rd_header(&r), o;
  unsigned char *b;
  *out = NULL;
  if (hlen == 0) return 0;
  rd_byte(&r);                               /* the wrapper's upvalue count */
  rd_head(&r, &outer);
  if (r.bad || outer.source == NULL || rd_size(&r) < 1) return 0;
  rd_head(&r, &inner);
  lineinfo = rd_tail(&r, 1);
  /* Lines are kept as deltas from linedefined: moving that from 1 to 0
  ** moves the first instruction's delta from 0 to 1 (it is the vararg
  ** prologue, on line 1; any other shape is not the wrapper's) */
  if (r.bad || lineinfo == NULL || lineinfo[0] != 0 || inner.ncode == 0) return 0;
  /* header, upvalue count, source, lines 0 and 0, the inner function from
  ** its numparams on */
  b = malloc(hlen + 1 + 10 + outer.srclen + 2 + (size_t)(r.p - inner.rest));
  if (b == NULL) return 0;
  memcpy(b, dump, hlen);
  o = hlen;
  b[o++] = (unsigned char)inner.nupv;
  o += put_size(b + o, outer.srclen + 1);
  memcpy(b + o, outer.source, outer.srclen);
  o += outer.srclen;
  b[o++] = 0x80u;
  b[o++] = 0x80u;
  memcpy(b + o, inner.rest, (size_t)(r.p - inner.rest));
  b[o + (size_t)(lineinfo - inner.rest)] = 1;
  o += (size_t)(r.p - inner.rest);
  *out = (char *)b;
  *outlen = o;
  return 1;
}

int li_bc_entry_probe(const char *chunk, size_t n, int *kind) {
  rd r = { (const unsigned char *)chunk, (const unsigned char *)chunk + n, 0, 0, 0 };
  fnhead f;
  size_t pc = 0;
  *kind = LI_BC_REGULAR;
  if (rd_header(&r) == 0) return 0;
  rd_byte(&r);
  rd_head(&r, &f);
  if (r.bad) return 0;
  for (int steps = 0; steps < 16 && pc < f.ncode; steps++) {
    uint32_t i = instr(&f, pc);
    switch (OPCODE(i)) {
      case OP_VARARGPREP: pc++; continue;
      case OP_LOADFALSE:                  /* if false then <names> end */
        if (pc + 2 < f.ncode && OPCODE(instr(&f, pc + 1)) == OP_TEST &&
            OPCODE(instr(&f, pc + 2)) == OP_JMP) {
          long to = (long)pc + 3 + ARG_sJ(instr(&f, pc + 2));
          if (to <= (long)pc || (size_t)to >= f.ncode) return 0;
          pc = (size_t)to;
          continue;
        }
        return 0;
      case OP_GETUPVAL: {                 /* probe(id) ? */
        unsigned a = ARG_A(i), b = ARG_B(i);
        if (pc + 2 < f.ncode) {
          uint32_t k = instr(&f, pc + 1), c = instr(&f, pc + 2);
          if (OPCODE(k) == OP_LOADI && ARG_A(k) == a + 1 && ARG_sBx(k) > 0 &&
              OPCODE(c) == OP_CALL && ARG_A(c) == a && ARG_B(c) == 2 &&
              ARG_C(c) == 1 && b < f.nupv) {
            *kind = f.upv[3 * b + 2];
            return (int)b + 1;
          }
        }
        pc++;                             /* do local _=_ENV end */
        continue;
      }
      default: return 0;
    }
  }
  return 0;
}
