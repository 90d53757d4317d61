/*
** bytecode.c -- reading and lifting Lua 5.1 to 5.4 and LuaJIT 2.1 binary
** chunks (see bytecode.h).  The header picks the layout; nothing here
** depends on the Lua this file is built with.  (LuaJIT's format: below.)
**
** The layouts read here are ldump.c's: a header, then (5.3, 5.4) a byte
** counting the main function's upvalues, then the function, recursively:
**   5.1  source lines nups params code constants protos debug
**   5.2         lines      params code constants protos upvalues debug+source
**   5.3  source lines      params code constants upvalues protos debug
**   5.4  source lines      params code constants upvalues protos debug
** where lines = linedefined lastlinedefined, params = numparams is_vararg
** maxstacksize (bytes), code = n instructions, upvalues = n descriptors
** (instack idx, and kind on 5.4), debug = lineinfo locvars upvalue-names
** (5.4 adds abslineinfo after lineinfo).  Counts and lines are C ints
** (5.1-5.3, of the width and byte order the header gives) or groups of 7
** bits, the last marked by 0x80 (5.4).  Strings: 5.1, 5.2 a size_t
** (length + 1) and the bytes with their NUL; 5.3 a byte (length + 1), or
** 0xFF and a size_t, and the bytes; 5.4 a size (length + 1) and the bytes;
** a size 0 is no string (stripped, or a nested function's source when it is
** its parent's: 5.1, 5.3, 5.4).
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"

/* Opcodes the entry probe is made of (lopcodes.h of each release; checked
** against the interpreters by tests/bytecode/run.sh and tests/test_rewrite.c).
** LOADBOOL is LOADFALSE on 5.4; LOADI and VARARGPREP are 5.4's only. */
typedef struct opcodes {
  unsigned loadk, loadi, loadbool, getupval, jmp, test, call, varargprep;
} opcodes;

#define NO_OP 0xFFFFu
static const opcodes ops51 = { 1, NO_OP, 2, 4, 22, 26, 28, NO_OP };
static const opcodes ops52 = { 1, NO_OP, 3, 5, 23, 27, 29, NO_OP };
static const opcodes ops53 = { 1, NO_OP, 3, 5, 30, 34, 36, NO_OP };
static const opcodes ops54 = { 3, 1, 5, 9, 56, 66, 68, 81 };

/* Tags of constants (lobject.h: 5.1, 5.2 type numbers; 5.3 variants;
** 5.4 makevariant) and 5.1's is_vararg flag of a main chunk. */
enum { K_NIL = 0, K_BOOL = 1, K_NUM = 3, K_STR = 4,          /* 5.1 5.2 */
       K53_FLT = 3, K53_INT = 19, K53_LNGSTR = 20,           /* 5.3 */
       K54_FALSE = 1, K54_TRUE = 17, K54_INT = 3, K54_FLT = 19 };
#define VARARG_ISVARARG 2

#define MAX_NESTING 250     /* protos nested deeper than Lua compiles */

typedef struct rd {
  const unsigned char *p, *end;
  int v;                     /* the header's version byte, 0x51..0x54 */
  int big;                   /* multi-byte fields are big-endian */
  size_t intw, sizew;        /* bytes of a C int and a size_t (5.1-5.3) */
  size_t intsz, numsz;       /* bytes of lua_Integer and lua_Number */
  int integral;              /* 5.1, 5.2: lua_Number is an integer type */
  const opcodes *op;
  int bad;                   /* set on any malformed or truncated read */
} rd;

static unsigned rd_byte(rd *r) {
  if (r->p >= r->end) { r->bad = 1; return 0; }
  return *r->p++;
}

static const unsigned char *rd_skip(rd *r, size_t n) {
  const unsigned char *at = r->p;
  if (r->bad || (size_t)(r->end - r->p) < n) { r->bad = 1; return NULL; }
  r->p += n;
  return at;
}

/* w (1..8) bytes as an unsigned number, in the chunk's byte order. */
static uint64_t get_uint(const rd *r, const unsigned char *s, size_t w) {
  uint64_t x = 0;
  for (size_t i = 0; i < w; i++)
    x = (x << 8) | s[r->big ? i : w - 1 - i];
  return x;
}

static uint64_t rd_uint(rd *r, size_t w) {
  const unsigned char *s = rd_skip(r, w);
  return s ? get_uint(r, s, w) : 0;
}

/* 5.4's size: groups of 7 bits, the last one marked by 0x80. */
static size_t rd_varint(rd *r) {
  size_t x = 0;
  unsigned b;
  do {
    b = rd_byte(r);
    if (r->bad || x > (SIZE_MAX >> 7)) { r->bad = 1; return 0; }
    x = (x << 7) | (b & 0x7Fu);
  } while ((b & 0x80u) == 0);
  return x;
}

/* A count or a line: a C int (5.1-5.3; negative is malformed) or a size. */
static size_t rd_count(rd *r) {
  uint64_t x;
  if (r->v == 0x54) return rd_varint(r);
  x = rd_uint(r, r->intw);
  if (x >> (8 * r->intw - 1)) { r->bad = 1; return 0; }
  return (size_t)x;
}

/* A string: *len bytes at the result; NULL with *len 0 for "no string". */
static const unsigned char *rd_string(rd *r, size_t *len) {
  size_t n;
  const unsigned char *s;
  *len = 0;
  if (r->v == 0x54) n = rd_varint(r);
  else if (r->v == 0x53 && (n = rd_byte(r)) != 0xFF) {}
  else {
    uint64_t x = rd_uint(r, r->sizew);
    if (x > SIZE_MAX) { r->bad = 1; return NULL; }
    n = (size_t)x;
  }
  if (r->bad || n == 0) return NULL;
  *len = n - 1;
  s = rd_skip(r, n - 1);
  if (r->v <= 0x52 && rd_byte(r) != 0) r->bad = 1;    /* its NUL */
  return r->bad ? NULL : s;
}

/* The bytes of LUAC_INT (0x5678) say the byte order (5.3, 5.4). */
static int byte_order(rd *r, const unsigned char *s, size_t w) {
  if (w < 2) return 0;
  r->big = 0;
  if (get_uint(r, s, w) == 0x5678) return 1;
  r->big = 1;
  return get_uint(r, s, w) == 0x5678;
}

/* The header; its length, or 0 if it is not a chunk of Lua 5.1 to 5.4 with
** 4-byte instructions. */
static size_t rd_header(rd *r) {
  static const char data[] = "\x19\x93\r\n\x1a\n";   /* LUAC_DATA, LUAC_TAIL */
  const unsigned char *h = r->p, *s;
  if (rd_skip(r, 12) == NULL || memcmp(h, "\x1bLua", 4) != 0 || h[5] != 0)
    return 0;
  r->v = h[4];
  switch (r->v) {
    case 0x51: case 0x52:
      if (h[6] > 1 || h[9] != 4 || h[11] > 1) return 0;
      r->big = h[6] == 0;
      r->intw = h[7]; r->sizew = h[8]; r->numsz = h[10]; r->integral = h[11];
      r->op = r->v == 0x51 ? &ops51 : &ops52;
      if (r->v == 0x52 && ((s = rd_skip(r, 6)) == NULL || memcmp(s, data, 6) != 0))
        return 0;
      break;
    case 0x53:
      if (memcmp(h + 6, data, 6) != 0 || (s = rd_skip(r, 5)) == NULL || s[2] != 4)
        return 0;
      r->intw = s[0]; r->sizew = s[1]; r->intsz = s[3]; r->numsz = s[4];
      r->op = &ops53;
      break;
    case 0x54:
      if (memcmp(h + 6, data, 6) != 0 || (s = rd_skip(r, 3)) == NULL || s[0] != 4)
        return 0;
      r->intw = r->sizew = 8;          /* (unused: 5.4 writes sizes) */
      r->intsz = s[1]; r->numsz = s[2];
      r->op = &ops54;
      break;
    default:
      return 0;
  }
  if (r->intw < 2 || r->intw > 8 || r->sizew < 2 || r->sizew > 8) return 0;
  if (r->v >= 0x53) {
    if (r->intsz > 8 || (s = rd_skip(r, r->intsz)) == NULL ||
        !byte_order(r, s, r->intsz) || rd_skip(r, r->numsz) == NULL)
      return 0;
  }
  return (size_t)(r->p - h);
}

/* What the loader needs of one function. */
typedef struct fn {
  const unsigned char *source; size_t srclen;  /* NULL: none (stripped, or
                                                   as its parent's) */
  size_t linedefined;
  const unsigned char *after;  /* just past lastlinedefined */
  const unsigned char *params; /* numparams, is_vararg, maxstacksize */
  const unsigned char *code; size_t ncode;
  const unsigned char *k; size_t nk;           /* constants */
  const unsigned char *upv; size_t nupv;       /* 5.4: 3 bytes each */
  const unsigned char *proto1;                 /* first nested, or NULL */
  const unsigned char *lineinfo;               /* 5.4's, or NULL */
} fn;

static void rd_constant(rd *r) {
  size_t len;
  unsigned tag = rd_byte(r);
  if (r->bad) return;
  if (tag == K_STR || (r->v >= 0x53 && tag == K53_LNGSTR)) {
    rd_string(r, &len);
    return;
  }
  switch (r->v) {
    case 0x51: case 0x52:
      if (tag == K_BOOL) rd_byte(r);
      else if (tag == K_NUM) rd_skip(r, r->numsz);
      else if (tag != K_NIL) r->bad = 1;
      break;
    case 0x53:
      if (tag == K_BOOL) rd_byte(r);
      else if (tag == K53_FLT) rd_skip(r, r->numsz);
      else if (tag == K53_INT) rd_skip(r, r->intsz);
      else if (tag != K_NIL) r->bad = 1;
      break;
    default:
      if (tag == K54_INT) rd_skip(r, r->intsz);
      else if (tag == K54_FLT) rd_skip(r, r->numsz);
      else if (tag != K_NIL && tag != K54_FALSE && tag != K54_TRUE) r->bad = 1;
  }
}

static void rd_function(rd *r, fn *f, int depth);

static void rd_protos(rd *r, fn *f, int depth) {
  size_t n = rd_count(r);
  for (size_t i = 0; i < n && !r->bad; i++) {
    fn sub;
    if (i == 0) f->proto1 = r->p;
    rd_function(r, &sub, depth + 1);
  }
}

static void rd_upvalues(rd *r, fn *f) {
  size_t w = r->v == 0x54 ? 3 : 2;
  f->nupv = rd_count(r);
  if (f->nupv > 255) { r->bad = 1; return; }
  f->upv = rd_skip(r, f->nupv * w);
}

/* Debug information; 5.2's source is its first part. */
static void rd_debug(rd *r, fn *f) {
  size_t n, len;
  if (r->v == 0x52) f->source = rd_string(r, &f->srclen);
  n = rd_count(r);                                   /* lineinfo */
  if (r->v == 0x54) {
    f->lineinfo = n ? rd_skip(r, n) : NULL;
    n = rd_count(r);                                 /* abslineinfo */
    for (size_t i = 0; i < n && !r->bad; i++) { rd_count(r); rd_count(r); }
  } else {
    if (n > (size_t)(r->end - r->p) / r->intw) { r->bad = 1; return; }
    rd_skip(r, n * r->intw);
  }
  n = rd_count(r);                                   /* locvars */
  for (size_t i = 0; i < n && !r->bad; i++) {
    rd_string(r, &len); rd_count(r); rd_count(r);
  }
  n = rd_count(r);                                   /* upvalue names */
  for (size_t i = 0; i < n && !r->bad; i++) rd_string(r, &len);
}

/* Read a whole function (its nested ones skipped over). */
static void rd_function(rd *r, fn *f, int depth) {
  size_t n;
  memset(f, 0, sizeof *f);
  if (depth > MAX_NESTING) { r->bad = 1; return; }
  if (r->v != 0x52) f->source = rd_string(r, &f->srclen);
  f->linedefined = rd_count(r);
  rd_count(r);                                       /* lastlinedefined */
  f->after = r->p;
  if (r->v == 0x51) f->nupv = rd_byte(r);
  f->params = rd_skip(r, 3);
  f->ncode = rd_count(r);
  if (f->ncode > (size_t)(r->end - r->p) / 4) { r->bad = 1; return; }
  f->code = rd_skip(r, f->ncode * 4);
  f->k = r->p;
  f->nk = n = rd_count(r);
  for (size_t i = 0; i < n && !r->bad; i++) rd_constant(r);
  if (r->v <= 0x52) rd_protos(r, f, depth);
  if (r->v >= 0x52) rd_upvalues(r, f);
  if (r->v >= 0x53) rd_protos(r, f, depth);
  rd_debug(r, f);
  if (r->bad) memset(f, 0, sizeof *f);
}

/* ---- instructions ------------------------------------------------------- */

/* Fields of an instruction: 5.4 has a 7-bit opcode and A B C of 8 bits at
** 7, 16, 24; 5.1 to 5.3 a 6-bit opcode, A (8 bits) at 6, C and B (9 bits)
** at 14 and 23, Bx over both. */
static uint32_t instr(const rd *r, const fn *f, size_t pc) {
  return (uint32_t)get_uint(r, f->code + 4 * pc, 4);
}
static unsigned op_of(const rd *r, uint32_t i) { return i & (r->v == 0x54 ? 0x7Fu : 0x3Fu); }
static unsigned arg_a(const rd *r, uint32_t i) { return (i >> (r->v == 0x54 ? 7 : 6)) & 0xFFu; }
static unsigned arg_b(const rd *r, uint32_t i) { return r->v == 0x54 ? (i >> 16) & 0xFFu : (i >> 23) & 0x1FFu; }
static unsigned arg_c(const rd *r, uint32_t i) { return r->v == 0x54 ? (i >> 24) & 0xFFu : (i >> 14) & 0x1FFu; }
static unsigned arg_bx(const rd *r, uint32_t i) { return i >> (r->v == 0x54 ? 15 : 14); }
static long arg_sbx(const rd *r, uint32_t i) {
  return (long)arg_bx(r, i) - (r->v == 0x54 ? 65535L : 131071L);
}
/* A jump's offset: 5.4's sJ, else sBx. */
static long arg_jump(const rd *r, uint32_t i) {
  return r->v == 0x54 ? (long)(i >> 7) - 16777215L : arg_sbx(r, i);
}

/* Constant idx of f, if it is a whole number from 1 to 2^31 - 1; else 0. */
static long const_id(const rd *r0, const fn *f, size_t idx) {
  rd r = *r0;
  unsigned tag;
  const unsigned char *s;
  if (idx >= f->nk) return 0;
  r.p = f->k;
  rd_count(&r);
  for (size_t i = 0; i < idx && !r.bad; i++) rd_constant(&r);
  tag = rd_byte(&r);
  if (r.bad) return 0;
  if ((r.v == 0x53 && tag == K53_INT) || (r.v == 0x54 && tag == K54_INT) ||
      (r.v <= 0x52 && tag == K_NUM && r.integral)) {
    size_t w = r.v <= 0x52 ? r.numsz : r.intsz;
    uint64_t x;
    if (w < 1 || w > 8 || (s = rd_skip(&r, w)) == NULL) return 0;
    x = get_uint(&r, s, w);
    return x >= 1 && x <= 0x7FFFFFFFu ? (long)x : 0;
  }
  if (r.v <= 0x52 && tag == K_NUM && r.numsz == 8) {  /* an IEEE double */
    uint64_t x;
    double d;
    if ((s = rd_skip(&r, 8)) == NULL) return 0;
    x = get_uint(&r, s, 8);
    memcpy(&d, &x, 8);
    return d >= 1 && d <= 2147483647.0 && d == (double)(long)d ? (long)d : 0;
  }
  return 0;
}

/* Is the instruction at pc the load of a probe id into register a? */
static int loads_id(const rd *r, const fn *f, size_t pc, unsigned a) {
  uint32_t i = instr(r, f, pc);
  if (arg_a(r, i) != a) return 0;
  if (op_of(r, i) == r->op->loadi) return arg_sbx(r, i) > 0;
  if (op_of(r, i) == r->op->loadk) return const_id(r, f, arg_bx(r, i)) > 0;
  return 0;
}

/* ---- LuaJIT 2.1 dumps ---------------------------------------------------- */

/* LuaJIT's own format (lj_bcdump.h, lj_bcwrite.c), version byte 2:
**   dump   = ESC 'L' 'J' 2 flagsU [namelenU name] proto* 0U
**   proto  = lengthU flagsB numparamsB framesizeB numuvB numkgcU numknU
**            numbcU [debuglenU [firstlineU numlineU]] bc* uv* kgc* knum* debug
** with U a ULEB128, the debug fields absent from a stripped dump
** (BCDUMP_F_STRIP), instructions (4 bytes; the function's header
** instruction is not written) and upvalue descriptors (2 bytes) in the
** byte order BCDUMP_F_BE gives.  Prototypes come children first: the top
** function's is the last.  An instruction is OP A C B (8 bits each from
** the low end) or OP A D (D the high 16 bits); with BCDUMP_F_FR2 (64-bit
** GC references) a call's arguments start two slots after the function.
** Opcodes of 2.1 (lj_bc.h; tests/test_rewrite.c checks them against what
** luajit compiles). */
enum { LJ_KSHORT = 41, LJ_KNUM = 42, LJ_UGET = 45, LJ_CALL = 66, LJ_JMP = 88 };
enum { LJF_BE = 1, LJF_STRIP = 2, LJF_FR2 = 8, LJF_KNOWN = 15 };
enum { LJ_KGC_CHILD, LJ_KGC_TAB, LJ_KGC_I64, LJ_KGC_U64, LJ_KGC_COMPLEX, LJ_KGC_STR };
enum { LJ_KTAB_INT = 3, LJ_KTAB_NUM = 4, LJ_KTAB_STR = 5 };
#define LJ_UV_IMMUTABLE 0x4000u   /* lj_obj.h PROTO_UV_IMMUTABLE */
#define LJ_BIAS_J 0x8000L         /* a jump's D is its offset plus this */

static uint32_t lj_uleb(rd *r) {
  uint32_t v = 0;
  unsigned b, sh = 0;
  do {
    b = rd_byte(r);
    if (sh > 28) { r->bad = 1; return 0; }
    v |= (uint32_t)(b & 0x7Fu) << sh;
    sh += 7;
  } while ((b & 0x80u) && !r->bad);
  return v;
}

/* knum's first part: 32 bits after the tag bit (bcread_uleb128_33). */
static uint32_t lj_uleb33(rd *r) {
  unsigned b = rd_byte(r);
  uint32_t v = b >> 1;
  if (b & 0x80u) {
    unsigned sh = 6;
    v &= 0x3Fu;
    do {
      b = rd_byte(r);
      if (sh > 27) { r->bad = 1; return 0; }
      v |= (uint32_t)(b & 0x7Fu) << sh;
      sh += 7;
    } while ((b & 0x80u) && !r->bad);
  }
  return v;
}

/* One key or value of a constant table. */
static void lj_ktabk(rd *r) {
  uint32_t tp = lj_uleb(r);
  if (tp >= LJ_KTAB_STR) rd_skip(r, tp - LJ_KTAB_STR);
  else if (tp == LJ_KTAB_INT) lj_uleb(r);
  else if (tp == LJ_KTAB_NUM) { lj_uleb(r); lj_uleb(r); }
}

/* One GC constant; its type (LJ_KGC_CHILD: a nested prototype). */
static uint32_t lj_kgc(rd *r) {
  uint32_t tp = lj_uleb(r), na, nh;
  if (tp >= LJ_KGC_STR) {
    rd_skip(r, tp - LJ_KGC_STR);
  } else if (tp == LJ_KGC_TAB) {
    na = lj_uleb(r);
    nh = lj_uleb(r);
    for (uint32_t i = 0; i < na && !r->bad; i++) lj_ktabk(r);
    for (uint32_t i = 0; i < nh && !r->bad; i++) { lj_ktabk(r); lj_ktabk(r); }
  } else if (tp != LJ_KGC_CHILD) {
    for (int i = tp == LJ_KGC_COMPLEX ? 4 : 2; i > 0; i--) lj_uleb(r);
  }
  return tp;
}

/* What the entry probe needs of a LuaJIT prototype. */
typedef struct ljfn {
  const unsigned char *code; size_t ncode;
  const unsigned char *uv; size_t nuv;
  const unsigned char *knum; size_t nknum;
  unsigned fr2;               /* 1 with BCDUMP_F_FR2 */
} ljfn;

/* The header, then the last prototype (the top function); 0 if the dump
** is not a LuaJIT 2.1 one or is malformed. */
static int lj_top(rd *r, ljfn *f) {
  const unsigned char *h = rd_skip(r, 4), *top = NULL, *end = NULL;
  uint32_t flags, len, nkgc;
  if (h == NULL || memcmp(h, "\x1bLJ\x02", 4) != 0) return 0;
  flags = lj_uleb(r);
  if (r->bad || (flags & ~(uint32_t)LJF_KNOWN)) return 0;
  r->big = (flags & LJF_BE) != 0;
  if (!(flags & LJF_STRIP)) rd_skip(r, lj_uleb(r));     /* chunk name */
  while (!r->bad && (len = lj_uleb(r)) != 0) {
    top = r->p;
    if (rd_skip(r, len) == NULL) return 0;
    end = r->p;
  }
  if (r->bad || top == NULL) return 0;
  r->p = top;
  r->end = end;
  rd_skip(r, 3);                              /* flags numparams framesize */
  f->nuv = rd_byte(r);
  nkgc = lj_uleb(r);
  f->nknum = lj_uleb(r);
  f->ncode = lj_uleb(r);
  if (!(flags & LJF_STRIP) && lj_uleb(r) != 0) { lj_uleb(r); lj_uleb(r); }
  if (r->bad || f->ncode > (size_t)(r->end - r->p) / 4) return 0;
  f->code = rd_skip(r, f->ncode * 4);
  f->uv = rd_skip(r, f->nuv * 2);
  for (uint32_t i = 0; i < nkgc && !r->bad; i++) lj_kgc(r);
  f->knum = r->p;
  f->fr2 = (flags & LJF_FR2) != 0;
  return !r->bad;
}

/* Number constant idx, if it is a whole number from 1 to 2^31 - 1; else 0. */
static long lj_knum_id(const rd *r0, const ljfn *f, size_t idx) {
  rd r = *r0;
  int isnum;
  uint32_t lo, hi;
  if (idx >= f->nknum) return 0;
  r.p = f->knum;
  for (size_t i = 0; i < idx && !r.bad; i++)
    if (r.p < r.end && (*r.p & 1)) { lj_uleb33(&r); lj_uleb(&r); } else lj_uleb33(&r);
  if (r.bad || r.p >= r.end) return 0;
  isnum = *r.p & 1;
  lo = lj_uleb33(&r);
  if (!isnum) return !r.bad && lo >= 1 && lo <= 0x7FFFFFFFu ? (long)lo : 0;
  hi = lj_uleb(&r);
  if (r.bad) return 0;
  {
    uint64_t x = (uint64_t)hi << 32 | lo;
    double d;
    memcpy(&d, &x, 8);
    return d >= 1 && d <= 2147483647.0 && d == (double)(long)d ? (long)d : 0;
  }
}

/* li_bc_entry_probe for LuaJIT: `UGET a uv; KSHORT|KNUM a+1+fr2 id; CALL a
** 1 2`, after forward jumps and the upvalue reads of the dead code the
** rewriter puts first (`if false then local _=x end` compiles to jumps
** around UGETs).  The kind is LI_BC_CONST for an upvalue LuaJIT marks
** immutable (a local never assigned, as the probe's), else LI_BC_REGULAR. */
static int lj_entry_probe(rd *r, int *kind) {
  ljfn f;
  size_t pc = 0;
  memset(&f, 0, sizeof f);
  if (!lj_top(r, &f)) return 0;
  for (int steps = 0; steps < 16 && pc < f.ncode; steps++) {
    uint32_t i = (uint32_t)get_uint(r, f.code + 4 * pc, 4);
    unsigned op = i & 0xFFu, a = (i >> 8) & 0xFFu, d = i >> 16;
    if (op == LJ_JMP) {
      long to = (long)pc + 1 + (long)d - LJ_BIAS_J;
      if (to <= (long)pc || (size_t)to >= f.ncode) return 0;
      pc = (size_t)to;
      continue;
    }
    if (op != LJ_UGET || d >= f.nuv) return 0;
    if (pc + 2 < f.ncode) {
      uint32_t k = (uint32_t)get_uint(r, f.code + 4 * (pc + 1), 4);
      uint32_t c = (uint32_t)get_uint(r, f.code + 4 * (pc + 2), 4);
      unsigned kop = k & 0xFFu, kd = k >> 16, args = 1;
      int id = ((k >> 8) & 0xFFu) == a + 1 + f.fr2 &&
               ((kop == LJ_KSHORT && kd >= 1 && kd < 0x8000u) ||
                (kop == LJ_KNUM && lj_knum_id(r, &f, kd) > 0));
      /* a counted function's P(id, 1) (rewrite.h): KSHORT a+2+fr2 1 */
      if (id && pc + 3 < f.ncode && (c & 0xFFu) == LJ_KSHORT &&
          ((c >> 8) & 0xFFu) == a + 2 + f.fr2 && (c >> 16) == 1) {
        c = (uint32_t)get_uint(r, f.code + 4 * (pc + 3), 4);
        args = 2;
      }
      /* CALL a, B = 1 (no results), C = 1 + arguments */
      if (id && (c & 0xFFu) == LJ_CALL && ((c >> 8) & 0xFFu) == a &&
          (c >> 24) == 1 && ((c >> 16) & 0xFFu) == 1 + args) {
        *kind = get_uint(r, f.uv + 2 * d, 2) & LJ_UV_IMMUTABLE ? LI_BC_CONST
                                                             : LI_BC_REGULAR;
        return (int)d + 1;
      }
    }
    pc++;                                 /* an upvalue read of dead code */
  }
  return 0;
}

/* ---- the two uses ------------------------------------------------------- */

/* Append a size in 5.4's form. */
static size_t put_varint(unsigned char *o, size_t x) {
  unsigned char tmp[sizeof(size_t) * 8 / 7 + 1];
  size_t n = 0;
  do { tmp[sizeof tmp - ++n] = (unsigned char)(x & 0x7Fu); x >>= 7; } while (x);
  tmp[sizeof tmp - 1] |= 0x80u;
  memcpy(o, tmp + sizeof tmp - n, n);
  return n;
}

/* Append w bytes of x in the chunk's byte order. */
static size_t put_uint(const rd *r, unsigned char *o, uint64_t x, size_t w) {
  for (size_t i = 0; i < w; i++)
    o[r->big ? w - 1 - i : i] = (unsigned char)(x >> (8 * i));
  return w;
}

/* Append a string as the chunk's version writes it. */
static size_t put_string(const rd *r, unsigned char *o, const unsigned char *s,
                         size_t len) {
  size_t n;
  if (r->v == 0x54) n = put_varint(o, len + 1);
  else if (r->v == 0x53 && len + 1 < 0xFF) { o[0] = (unsigned char)(len + 1); n = 1; }
  else {
    n = 0;
    if (r->v == 0x53) o[n++] = 0xFF;
    n += put_uint(r, o + n, len + 1, r->sizew);
  }
  memcpy(o + n, s, len);
  n += len;
  if (r->v <= 0x52) o[n++] = 0;
  return n;
}

/* Append a line 0. */
static size_t put_zero_line(const rd *r, unsigned char *o) {
  if (r->v == 0x54) { o[0] = 0x80u; return 1; }
  return put_uint(r, o, 0, r->intw);
}

/* ---- lifting a LuaJIT dump ---------------------------------------------- */

/* Prototype flags as lj_bcwrite.c dumps them (lj_obj.h PROTO_*). */
enum { LJP_CHILD = 0x01, LJP_VARARG = 0x02, LJP_FFI = 0x04 };
#define LJP_DUMPED (LJP_CHILD | LJP_VARARG | LJP_FFI)

/* One prototype of a LuaJIT dump, as lj_bcread_proto reads it. */
typedef struct ljproto {
  const unsigned char *start;     /* its length */
  const unsigned char *end;       /* just past it */
  unsigned flags, numparams, framesize, numuv;
  uint32_t numkgc, numkn, numbc;
  uint32_t children;              /* constants that are nested prototypes */
  uint32_t sizedbg;               /* bytes of debug info (0: none) */
  uint32_t firstline, numline;    /* with debug info */
  const unsigned char *bc;        /* instructions, upvalues, constants */
  const unsigned char *dbg;       /* lineinfo, upvalue names, variables */
} ljproto;

/* Bytes of one lineinfo entry of a function of numline lines (lj_parse.c
** fs_prep_line, lj_debug.c). */
static size_t lj_line_width(uint32_t numline) {
  return numline < 256 ? 1 : numline < 65536 ? 2 : 4;
}

/* Read a whole prototype, its parts checked to fill exactly its length. */
static int lj_proto(rd *r, int strip, ljproto *p) {
  rd s;
  uint32_t len;
  memset(p, 0, sizeof *p);
  p->start = r->p;
  len = lj_uleb(r);
  s = *r;
  if (len == 0 || rd_skip(r, len) == NULL) return 0;
  s.end = p->end = r->p;
  p->flags = rd_byte(&s);
  p->numparams = rd_byte(&s);
  p->framesize = rd_byte(&s);
  p->numuv = rd_byte(&s);
  p->numkgc = lj_uleb(&s);
  p->numkn = lj_uleb(&s);
  p->numbc = lj_uleb(&s);
  if (!strip && (p->sizedbg = lj_uleb(&s)) != 0) {
    p->firstline = lj_uleb(&s);
    p->numline = lj_uleb(&s);
  }
  if (s.bad || (p->flags & ~(unsigned)LJP_DUMPED) ||
      p->numbc > (size_t)(s.end - s.p) / 4)
    return 0;
  p->bc = rd_skip(&s, (size_t)p->numbc * 4);
  rd_skip(&s, (size_t)p->numuv * 2);
  for (uint32_t i = 0; i < p->numkgc && !s.bad; i++)
    if (lj_kgc(&s) == LJ_KGC_CHILD) p->children++;
  for (uint32_t i = 0; i < p->numkn && !s.bad; i++) {
    if (s.p >= s.end) return 0;
    if (*s.p & 1) { lj_uleb33(&s); lj_uleb(&s); } else lj_uleb33(&s);
  }
  p->dbg = rd_skip(&s, p->sizedbg);
  if (p->sizedbg != 0 &&
      (size_t)p->numbc * lj_line_width(p->numline) > p->sizedbg)
    return 0;
  return !s.bad && s.p == s.end;
}

static size_t uleb_len(uint32_t v) {
  size_t n = 1;
  while (v >= 0x80u) { v >>= 7; n++; }
  return n;
}

static size_t put_uleb(unsigned char *o, uint32_t v) {
  size_t n = 0;
  for (; v >= 0x80u; v >>= 7) o[n++] = (unsigned char)(v | 0x80u);
  o[n++] = (unsigned char)v;
  return n;
}

/* li_bc_lift_main for LuaJIT.  Prototypes come children first, so the
** dump of the wrapper is [the inner function's nested ones] [the inner
** function] [the wrapper]; the lifted chunk is the same without the
** wrapper, the inner function changed as LuaJIT would have compiled it as
** the main one (lj_parse): vararg, first line 0, as many lines as the
** wrapper's (the same text: to its end), its lineinfo (lines less the
** first line, in entries as wide as the number of lines needs) re-encoded
** for those.  Its upvalue descriptors stay: lua_load makes a main chunk's
** upvalues closed and nil (lj_func_newL_empty) and keeps their immutable
** bit, which the probe's has (a local never assigned), as in the offline
** form the functions inside the chunk see it. */
static int lj_lift_main(const char *dump, size_t n, char **out, size_t *outlen) {
  rd r = { (const unsigned char *)dump, (const unsigned char *)dump + n,
           0, 0, 0, 0, 0, 0, 0, NULL, 0 };
  const unsigned char *h = rd_skip(&r, 4);
  ljproto prev, cur;
  uint32_t flags, depth = 0, nprotos = 0, sizedbg = 0, numline = 0;
  size_t wo = 0, wn = 0, head, o;
  int strip;
  unsigned char *b;
  if (h == NULL || memcmp(h, "\x1bLJ\x02", 4) != 0) return 0;
  flags = lj_uleb(&r);
  if (r.bad || (flags & ~(uint32_t)LJF_KNOWN)) return 0;
  r.big = (flags & LJF_BE) != 0;
  strip = (flags & LJF_STRIP) != 0;
  if (!strip) rd_skip(&r, lj_uleb(&r));          /* chunk name */
  memset(&cur, 0, sizeof cur);
  prev = cur;
  for (;;) {
    const unsigned char *at = r.p;
    if (lj_uleb(&r) == 0 || r.bad) break;        /* the end mark, or none */
    r.p = at;
    prev = cur;
    if (!lj_proto(&r, strip, &cur) || cur.children > depth) return 0;
    depth = depth - cur.children + 1;
    nprotos++;
  }
  /* one function at the top (the wrapper), whose one child came just before */
  if (r.bad || r.p != r.end || depth != 1 || nprotos < 2 || cur.children != 1 ||
      cur.numkgc != 1 || cur.numparams != 0 || cur.numuv != 0 ||
      !(cur.flags & LJP_VARARG) || prev.numparams != 0 || prev.numbc == 0 ||
      (prev.sizedbg != 0) != (cur.sizedbg != 0) ||
      (cur.sizedbg != 0 && cur.firstline != 0))
    return 0;
  if (prev.sizedbg != 0) {
    numline = cur.numline;
    if ((uint64_t)prev.firstline + prev.numline > numline) return 0;
    wo = lj_line_width(prev.numline);
    wn = lj_line_width(numline);
    if ((uint64_t)prev.sizedbg + (uint64_t)prev.numbc * wn > UINT32_MAX) return 0;
    sizedbg = (uint32_t)(prev.sizedbg - prev.numbc * wo + prev.numbc * wn);
  }
  /* the prototype's header, then its parts up to the debug info, then that */
  head = 4 + uleb_len(prev.numkgc) + uleb_len(prev.numkn) + uleb_len(prev.numbc);
  if (!strip) head += uleb_len(sizedbg) + (sizedbg ? 1 + uleb_len(numline) : 0);
  {
    size_t body = (size_t)(prev.dbg - prev.bc);
    size_t len = head + body + sizedbg;
    if (len > UINT32_MAX) return 0;
    b = malloc((size_t)(prev.start - (const unsigned char *)dump) + 5 + len + 1);
    if (b == NULL) return 0;
    o = (size_t)(prev.start - (const unsigned char *)dump);
    memcpy(b, dump, o);                 /* header and the nested prototypes */
    o += put_uleb(b + o, (uint32_t)len);
    b[o++] = (unsigned char)(prev.flags | LJP_VARARG);
    b[o++] = (unsigned char)prev.numparams;
    b[o++] = (unsigned char)prev.framesize;
    b[o++] = (unsigned char)prev.numuv;
    o += put_uleb(b + o, prev.numkgc);
    o += put_uleb(b + o, prev.numkn);
    o += put_uleb(b + o, prev.numbc);
    if (!strip) {
      o += put_uleb(b + o, sizedbg);
      if (sizedbg) {
        o += put_uleb(b + o, 0);                  /* firstline */
        o += put_uleb(b + o, numline);
      }
    }
    memcpy(b + o, prev.bc, body);
    o += body;
  }
  if (sizedbg) {
    for (uint32_t i = 0; i < prev.numbc; i++) {
      uint64_t line = get_uint(&r, prev.dbg + i * wo, wo) + prev.firstline;
      if (line > numline) { free(b); return 0; }
      o += put_uint(&r, b + o, line, wn);
    }
    memcpy(b + o, prev.dbg + prev.numbc * wo, prev.sizedbg - prev.numbc * wo);
    o += prev.sizedbg - prev.numbc * wo;
  }
  b[o++] = 0;                                     /* the end mark */
  *out = (char *)b;
  *outlen = o;
  return 1;
}

int li_bc_lift_main(const char *dump, size_t n, char **out, size_t *outlen) {
  rd r = { (const unsigned char *)dump, (const unsigned char *)dump + n,
           0, 0, 0, 0, 0, 0, 0, NULL, 0 };
  rd ri;
  fn outer, inner;
  size_t hlen = rd_header(&r), o, body;
  int first_delta = 0;
  unsigned char *b;
  *out = NULL;
  if (n >= 3 && memcmp(dump, "\x1bLJ", 3) == 0) return lj_lift_main(dump, n, out, outlen);
  if (hlen == 0) return 0;
  if (r.v >= 0x53) rd_byte(&r);              /* the wrapper's upvalue count */
  rd_function(&r, &outer, 0);
  if (r.bad || outer.proto1 == NULL || (r.v != 0x52 && outer.source == NULL))
    return 0;
  ri = r;
  ri.p = outer.proto1;
  rd_function(&ri, &inner, 1);
  if (ri.bad || inner.ncode == 0 || inner.params[0] != 0) return 0;
  /* 5.1: the inner function is `function()` (no hidden `arg`: rewrite.h),
  ** made vararg as a main chunk is; later: `function(...)`, vararg already */
  if (r.v == 0x51 ? (inner.params[1] & ~VARARG_ISVARARG) != 0 : inner.params[1] != 1)
    return 0;
  /* 5.4 keeps lines as deltas from linedefined (signed bytes; 0x80: see
  ** abslineinfo): moving that to 0 adds it to the first instruction's
  ** delta (the wrapper's vararg prologue: 1 on line 1) */
  if (r.v == 0x54) {
    if (inner.lineinfo == NULL) return 0;
    if (inner.lineinfo[0] != 0x80u) {
      if (inner.linedefined > 127) return 0;
      first_delta = (signed char)inner.lineinfo[0] + (int)inner.linedefined;
      if (first_delta < -127 || first_delta > 127) return 0;
    }
  }
  if (r.v == 0x52 && inner.source == NULL) return 0;
  /* header, (5.3, 5.4) upvalue count, (not 5.2) source, lines 0 and 0, the
  ** inner function from there on */
  body = (size_t)(ri.p - inner.after);
  b = malloc(hlen + 1 + (9 + outer.srclen + 1) + 2 * 8 + body);   /* at most */
  if (b == NULL) return 0;
  memcpy(b, dump, hlen);
  o = hlen;
  if (r.v >= 0x53) b[o++] = (unsigned char)inner.nupv;
  if (r.v != 0x52) o += put_string(&r, b + o, outer.source, outer.srclen);
  o += put_zero_line(&r, b + o);
  o += put_zero_line(&r, b + o);
  memcpy(b + o, inner.after, body);
  if (r.v == 0x51) b[o + (size_t)(inner.params + 1 - inner.after)] = VARARG_ISVARARG;
  if (r.v == 0x54 && inner.lineinfo[0] != 0x80u)
    b[o + (size_t)(inner.lineinfo - inner.after)] = (unsigned char)(signed char)first_delta;
  o += body;
  *out = (char *)b;
  *outlen = o;
  return 1;
}

int li_bc_entry_probe(const char *chunk, size_t n, int *kind) {
  rd r = { (const unsigned char *)chunk, (const unsigned char *)chunk + n,
           0, 0, 0, 0, 0, 0, 0, NULL, 0 };
  fn f;
  size_t pc = 0;
  *kind = LI_BC_REGULAR;
  if (n >= 3 && memcmp(chunk, "\x1bLJ", 3) == 0) return lj_entry_probe(&r, kind);
  if (rd_header(&r) == 0) return 0;
  if (r.v >= 0x53) rd_byte(&r);
  rd_function(&r, &f, 0);
  if (r.bad) return 0;
  for (int steps = 0; steps < 16 && pc < f.ncode; steps++) {
    uint32_t i = instr(&r, &f, pc);
    unsigned op = op_of(&r, i);
    if (op == r.op->varargprep) { pc++; continue; }
    if (op == r.op->loadbool) {            /* if false then <names> end */
      if ((r.v == 0x54 || (arg_b(&r, i) == 0 && arg_c(&r, i) == 0)) &&
          pc + 2 < f.ncode && op_of(&r, instr(&r, &f, pc + 1)) == r.op->test &&
          op_of(&r, instr(&r, &f, pc + 2)) == r.op->jmp) {
        long to = (long)pc + 3 + arg_jump(&r, instr(&r, &f, pc + 2));
        if (to <= (long)pc || (size_t)to >= f.ncode) return 0;
        pc = (size_t)to;
        continue;
      }
      return 0;
    }
    if (op == r.op->getupval) {            /* probe(id) ? */
      unsigned a = arg_a(&r, i), b = arg_b(&r, i);
      if (pc + 2 < f.ncode && b < f.nupv && loads_id(&r, &f, pc + 1, a + 1)) {
        uint32_t c = instr(&r, &f, pc + 2);
        int args = 1;
        /* a counted function's P(id, 1) (rewrite.h) */
        if (pc + 3 < f.ncode && loads_id(&r, &f, pc + 2, a + 2))
          c = instr(&r, &f, pc + 3), args = 2;
        if (op_of(&r, c) == r.op->call && arg_a(&r, c) == a &&
            arg_b(&r, c) == 1u + (unsigned)args && arg_c(&r, c) == 1) {
          *kind = r.v == 0x54 ? f.upv[3 * b + 2] : LI_BC_NOKIND;
          return (int)b + 1;
        }
      }
      pc++;                                /* do local _=_ENV end */
      continue;
    }
    return 0;
  }
  return 0;
}
