/*
** lex.re -- the Lua lexer (re2c).  See lex.h.
**
** Blanks, line breaks, names and keywords, which make up most of the bytes
** and most of the tokens, are scanned by a small hand-written front with a
** class table; re2c matches operators, numerals and the starts of comments
** and strings; long brackets and short strings are scanned by small loops
** below.  Every loop is guarded by the limit.  The input is not
** NUL-terminated and may hold NULs: every read in the DFA goes through
** PEEK, which yields 0 at the limit, and the `$` rule tells the real end
** from a NUL byte.
*/
#include <stddef.h>
#include <string.h>
#include "lex.h"

/* Byte classes of the front (a byte may have several).  CC_HIGH marks
** the bytes from 0x80 up, which LuaJIT's names may hold (lx_state's
** name_first and name_rest say which classes make a name). */
enum { CC_BLANK = 1, CC_ALNUM = 2, CC_ALPHA = 4, CC_HIGH = 8 };
#define B CC_BLANK
#define D CC_ALNUM
#define L (CC_ALNUM | CC_ALPHA)
#define H CC_HIGH
#define H16 H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H
static const unsigned char cclass[256] = {
  /*       0 1 2 3 4 5 6 7 8 9 a b c d e f */
  /* 0x */ 0,0,0,0,0,0,0,0,0,B,0,B,B,0,0,0,    /* \t \v \f; \n \r apart */
  /* 1x */ 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
  /* 2x */ B,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,    /* space */
  /* 3x */ D,D,D,D,D,D,D,D,D,D,0,0,0,0,0,0,    /* 0-9 */
  /* 4x */ 0,L,L,L,L,L,L,L,L,L,L,L,L,L,L,L,    /* A-O */
  /* 5x */ L,L,L,L,L,L,L,L,L,L,L,0,0,0,0,L,    /* P-Z _ */
  /* 6x */ 0,L,L,L,L,L,L,L,L,L,L,L,L,L,L,L,    /* a-o */
  /* 7x */ L,L,L,L,L,L,L,L,L,L,L,0,0,0,0,0,    /* p-z */
  /* 8x-fx */ H16, H16, H16, H16, H16, H16, H16, H16
};
#undef B
#undef D
#undef L
#undef H
#undef H16

/* Can a statement start after a token of kind `prev`?  Not after one that
** wants an operand or a name next (an operator, `=`, `(`, `,`, `.`,
** `local`, `return` ...): there a LuaJIT `goto` is a name. */
static int statement_may_start(int prev) {
  switch (prev) {
  case LX_EOF: case LX_NAME: case LX_NUMBER: case LX_STRING: case LX_LONGSTRING:
  case LX_RPAREN: case LX_RBRACKET: case LX_RBRACE: case LX_END: case LX_TRUE:
  case LX_FALSE: case LX_NIL: case LX_DOTS: case LX_BREAK: case LX_DBCOLON:
  case LX_DO: case LX_THEN: case LX_ELSE: case LX_REPEAT: case LX_SEMI:
    return 1;
  default:
    return 0;
  }
}

/* LuaJIT's `goto` whose last byte is before `after`: LX_GOTO where a
** statement may start and the next token is a name (not a reserved word:
** `goto goto` is no goto statement), else LX_NAME.  The next token is
** scanned on a copy of the state, whose own `goto` is not looked past. */
#if defined(__GNUC__)
__attribute__((noinline))   /* rare; its lx_state copy would widen lx_next's frame */
#endif
static int jit_goto(const lx_state *ls, const unsigned char *after) {
  lx_state ahead;
  lx_token tok;
  if (ls->peeking) return LX_GOTO;      /* (only "not a name" matters) */
  if (!statement_may_start(ls->prev)) return LX_NAME;
  ahead = *ls;
  ahead.cur = after;
  ahead.peeking = 1;
  return lx_next(&ahead, &tok) == LX_NAME ? LX_GOTO : LX_NAME;
}

/* Tokens of one byte that no longer token starts with (not `-`, `.`,
** `[`, `=`, `<`, `>`, `~`, `/`, `:`): the front returns them itself, without
** the DFA's switch on the first byte. */
static const unsigned char single[256] = {
  ['('] = LX_LPAREN, [')'] = LX_RPAREN, ['{'] = LX_LBRACE, ['}'] = LX_RBRACE,
  [']'] = LX_RBRACKET, [';'] = LX_SEMI, [','] = LX_COMMA, ['+'] = LX_PLUS,
  ['*'] = LX_STAR, ['%'] = LX_PERCENT, ['^'] = LX_CARET, ['#'] = LX_HASH,
  ['&'] = LX_AMP, ['|'] = LX_PIPE,
};

/* Reserved words by a perfect hash: a name of 2 to 8 bytes is read as one
** little-endian word (zero bytes after it), multiplied by KW_MUL; the top
** six bits pick the one slot where it may be.  One multiplication and one
** compare per name, instead of a switch on the first byte and a loop over
** the others.  KW_MUL was chosen so that no two reserved words share a
** slot: the designated initializers below would then name one slot twice,
** which -Wextra (-Woverride-init) reports. */
#define KW_MUL 0xd037cdff7c240d49u
#define KW_C(c, i) ((uint64_t)(unsigned char)(c) << (8 * (i)))
#define KW2(a, b) (KW_C(a, 0) | KW_C(b, 1))
#define KW3(a, b, c) (KW2(a, b) | KW_C(c, 2))
#define KW4(a, b, c, d) (KW3(a, b, c) | KW_C(d, 3))
#define KW5(a, b, c, d, e) (KW4(a, b, c, d) | KW_C(e, 4))
#define KW6(a, b, c, d, e, f) (KW5(a, b, c, d, e) | KW_C(f, 5))
#define KW8(a, b, c, d, e, f, g, h) (KW6(a, b, c, d, e, f) | KW_C(g, 6) | KW_C(h, 7))
#define KW_SLOT(w) ((unsigned)(((uint64_t)(w) * KW_MUL) >> 58))
#define KW(w, k) [KW_SLOT(w)] = { (w), (k) }
static const struct { uint64_t word; int kind; } kwtab[64] = {
  KW(KW3('a','n','d'), LX_AND), KW(KW5('b','r','e','a','k'), LX_BREAK),
  KW(KW2('d','o'), LX_DO), KW(KW4('e','l','s','e'), LX_ELSE),
  KW(KW6('e','l','s','e','i','f'), LX_ELSEIF), KW(KW3('e','n','d'), LX_END),
  KW(KW5('f','a','l','s','e'), LX_FALSE), KW(KW3('f','o','r'), LX_FOR),
  KW(KW8('f','u','n','c','t','i','o','n'), LX_FUNCTION),
  KW(KW4('g','o','t','o'), LX_GOTO), KW(KW2('i','f'), LX_IF),
  KW(KW2('i','n'), LX_IN), KW(KW5('l','o','c','a','l'), LX_LOCAL),
  KW(KW3('n','i','l'), LX_NIL), KW(KW3('n','o','t'), LX_NOT),
  KW(KW2('o','r'), LX_OR), KW(KW6('r','e','p','e','a','t'), LX_REPEAT),
  KW(KW6('r','e','t','u','r','n'), LX_RETURN), KW(KW4('t','h','e','n'), LX_THEN),
  KW(KW4('t','r','u','e'), LX_TRUE), KW(KW5('u','n','t','i','l'), LX_UNTIL),
  KW(KW5('w','h','i','l','e'), LX_WHILE),
};
#undef KW

static uint64_t load64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The front reads 8 bytes as one little-endian word where it can (the
** first byte in the low bits): elsewhere it goes byte by byte. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LX_WORDS 1
#define ONES 0x0101010101010101u
#define HIGHS 0x8080808080808080u

/* How many of the 8 bytes of v, from the first, are name bytes (ASCII
** letters, digits, `_`, and when `high` the bytes from 0x80 up)? */
static unsigned name_bytes(uint64_t v, uint64_t high) {
  uint64_t x = v & ~HIGHS;                          /* the low 7 bits */
  uint64_t digit = (x + (0x80 - 0x30) * ONES) & ~(x + (0x7F - 0x39) * ONES);
  uint64_t y = x | 0x20 * ONES;                     /* letters to lower case */
  uint64_t letter = (y + (0x80 - 0x61) * ONES) & ~(y + (0x7F - 0x7A) * ONES);
  uint64_t z = x ^ 0x5F * ONES;                     /* `_` to 0 */
  uint64_t under = ~((z + 0x7F * ONES) | z);
  /* high: 0 or HIGHS (the bytes from 0x80 up are name bytes in LuaJIT) */
  uint64_t name = ((digit | letter | under) & ~v) | (v & high);
  uint64_t stop = ~name & HIGHS;
  return stop ? (unsigned)__builtin_ctzll(stop) >> 3 : 8;
}

/* The high bit of the first byte of x that is 0 (and maybe of bytes after
** it), or 0 if none is: where a scan of 8 bytes at a time stops. */
static uint64_t zero_bytes(uint64_t x) { return (x - ONES) & ~x & HIGHS; }

/* The bytes of v equal to a, b, c or d (as zero_bytes). */
static uint64_t any_of(uint64_t v, unsigned char a, unsigned char b, unsigned char c,
                       unsigned char d) {
  return zero_bytes(v ^ a * ONES) | zero_bytes(v ^ b * ONES) |
         zero_bytes(v ^ c * ONES) | zero_bytes(v ^ d * ONES);
}

/* How many of the 8 bytes of v, from the first, are spaces? */
static unsigned space_bytes(uint64_t v) {
  uint64_t x = v ^ 0x20 * ONES;
  return x ? (unsigned)__builtin_ctzll(x) >> 3 : 8;
}
#else
#define LX_WORDS 0
#endif

/* The kind of the name s[0..n): a reserved word or LX_NAME.  ORDER
** RESERVED (lex.h); `goto` is a name in 5.1 (not in LuaJIT). */
static int reserved(const lx_state *ls, const unsigned char *s, size_t n) {
  uint64_t w;
  if (n < 2 || n > 8) return LX_NAME;
  if (LX_WORDS && ls->lim - s >= 8) {
    w = load64(s);
    if (n < 8) w &= ((uint64_t)1 << (8 * n)) - 1;
  } else {                        /* near the end: no load past it */
    w = 0;
    for (size_t i = 0; i < n; i++) w |= KW_C(s[i], i);
  }
  unsigned slot = KW_SLOT(w);
  if (kwtab[slot].word != w) return LX_NAME;
  if (kwtab[slot].kind == LX_GOTO)
    return ls->version == 51 ? LX_NAME :
           ls->version == LX_LUAJIT ? jit_goto(ls, s + n) : LX_GOTO;
  return kwtab[slot].kind;
}

/* Count one line break at p (any of \n, \r, \r\n, \n\r, as Lua does);
** returns the byte after it. */
static const unsigned char *newline(lx_state *ls, const unsigned char *p) {
  unsigned char c = *p++;
  if (p < ls->lim && (*p == '\n' || *p == '\r') && *p != c) p++;
  ls->line++;
  return p;
}

static int is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\n' || c == '\r';
}

static int fail(lx_state *ls, lx_token *tok, const char *msg) {
  ls->errmsg = msg;
  ls->errline = ls->line;
  ls->cur = ls->lim;
  tok->len = 0;
  tok->lastline = ls->line;
  tok->kind = LX_ERROR;
  return LX_ERROR;
}

/* At `[` or after `--`: the level of a long bracket `[==[` starting at p,
** or -1 if it is not one (then *bad is set for `[=` without a second `[`). */
static int long_level(const lx_state *ls, const unsigned char *p, int *bad) {
  const unsigned char *q = p + 1;
  int level = 0;
  while (q < ls->lim && *q == '=') { q++; level++; }
  if (q < ls->lim && *q == '[') return level;
  *bad = level > 0;
  return -1;
}

/* Scan a long bracket of `level` whose opening starts at ls->cur; returns
** 0 if the input ends first. */
static int long_bracket(lx_state *ls, int level) {
  const unsigned char *p = ls->cur + level + 2, *lim = ls->lim;
  while (p < lim) {
#if LX_WORDS
    if (lim - p >= 8) {           /* the body, 8 bytes at a time */
      uint64_t m = any_of(load64(p), ']', '\n', '\r', ']');
      if (m == 0) { p += 8; continue; }
      p += (unsigned)__builtin_ctzll(m) >> 3;
    }
#endif
    unsigned char c = *p;
    if (c == ']') {
      const unsigned char *q = p + 1;
      int n = 0;
      while (q < lim && *q == '=') { q++; n++; }
      if (n == level && q < lim && *q == ']') { ls->cur = q + 1; return 1; }
      p = q;                      /* q is not ']' of ours: rescan from it */
    } else if (c == '\n' || c == '\r') {
      p = newline(ls, p);
    } else {
      p++;
    }
  }
  ls->cur = lim;
  return 0;
}

/* Scan a short string whose quote is at ls->cur; 0 if unfinished. */
static int short_string(lx_state *ls) {
  const unsigned char *p = ls->cur, *lim = ls->lim;
  unsigned char quote = *p++;
  while (p < lim) {
#if LX_WORDS
    if (lim - p >= 8) {           /* the body, 8 bytes at a time */
      uint64_t m = any_of(load64(p), quote, '\\', '\n', '\r');
      if (m == 0) { p += 8; continue; }
      p += (unsigned)__builtin_ctzll(m) >> 3;
    }
#endif
    unsigned char c = *p;
    if (c == quote) { ls->cur = p + 1; return 1; }
    if (c == '\n' || c == '\r') break;            /* unfinished string */
    if (c != '\\') { p++; continue; }
    if (++p >= lim) break;
    c = *p;
    if (c == '\n' || c == '\r') p = newline(ls, p);   /* escaped line break */
    else if (c == 'z') {                              /* \z skips spaces */
      p++;
      while (p < lim && is_space(*p)) {
        if (*p == '\n' || *p == '\r') p = newline(ls, p); else p++;
      }
    } else p++;          /* the rest of \x, \u{}, \ddd are ordinary bytes */
  }
  ls->cur = p;
  return 0;
}

void lx_init(lx_state *ls, const char *buf, size_t len, size_t start,
             uint32_t line, int version) {
  ls->buf = (const unsigned char *)buf;
  ls->cur = ls->buf + (start < len ? start : len);
  ls->lim = ls->buf + len;
  ls->line = line;
  ls->version = version ? version : 54;
  ls->name_first = ls->version == LX_LUAJIT ? CC_ALPHA | CC_HIGH : CC_ALPHA;
  ls->name_rest = ls->version == LX_LUAJIT ? CC_ALNUM | CC_HIGH : CC_ALNUM;
  ls->prev = LX_EOF;
  ls->peeking = 0;
  ls->errmsg = NULL;
  ls->errline = 0;
}

#define PEEK() (cur < lim ? *cur : 0)

int lx_next(lx_state *ls, lx_token *tok) {
  const unsigned char *cur, *lim = ls->lim, *mar = NULL, *start;
  const unsigned char first = ls->name_first, rest = ls->name_rest;
#if LX_WORDS
  const uint64_t high = rest & CC_HIGH ? HIGHS : 0;
#endif
  int kind, bad;
  (void)mar;
  if (ls->errmsg) { tok->kind = LX_ERROR; return LX_ERROR; }
  for (;;) {
    /* the front: blanks and line breaks, then a name or reserved word */
    cur = ls->cur;
    while (cur < lim) {
      unsigned char c = *cur;
      if (c == ' ') {
        cur++;
#if LX_WORDS
        /* a run of spaces (indentation): 8 at a time */
        if (cur < lim && *cur == ' ')
          while (lim - cur >= 8) {
            unsigned n = space_bytes(load64(cur));
            cur += n;
            if (n < 8) break;
          }
#endif
      } else if (c == '\n') {     /* newline(), inline for the common break */
        cur++;
        if (cur < lim && *cur == '\r') cur++;
        ls->line++;
      } else if (cclass[c] & CC_BLANK) cur++;
      else if (c == '\r') cur = newline(ls, cur);
      else break;
    }
    ls->cur = start = cur;
    tok->off = (size_t)(start - ls->buf);
    tok->line = ls->line;
    if (cur < lim && (cclass[*cur] & first)) {
      cur++;
#if LX_WORDS
      /* the rest of the name, 8 bytes at a time */
      while (lim - cur >= 8) {
        unsigned n = name_bytes(load64(cur), high);
        cur += n;
        if (n < 8) goto name_done;
      }
#endif
      while (cur < lim && (cclass[*cur] & rest)) cur++;
#if LX_WORDS
    name_done:
#endif
      kind = reserved(ls, start, (size_t)(cur - start));
      goto done;
    }
    if (cur < lim && single[*cur]) {
      kind = single[*cur];
      cur++;
      goto done;
    }
    /*!re2c
      re2c:api = custom;
      re2c:api:style = free-form;
      re2c:define:YYCTYPE = "unsigned char";
      re2c:define:YYPEEK = "PEEK()";
      re2c:define:YYSKIP = "++cur;";
      re2c:define:YYBACKUP = "mar = cur;";
      re2c:define:YYRESTORE = "cur = mar;";
      re2c:define:YYLESSTHAN = "(cur >= lim)";
      re2c:yyfill:enable = 0;
      re2c:eof = 0;

      dec   = [0-9] ([eE] [+-]? | [0-9a-fA-F.])* | "." [0-9] ([eE] [+-]? | [0-9a-fA-F.])*;
      hex   = "0" [xX] ([pP] [+-]? | [0-9a-fA-F.])*;
      num   = (dec | hex) [a-zA-Z_0-9]*;   // trailing letters: LuaJIT's 1ULL, 2i

      // blanks, line breaks and names never get here: the front took them
      $                 { kind = LX_EOF; goto done; }
      "--"              { ls->cur = cur; goto comment; }
      "["               { goto bracket; }
      ["']              { goto string; }
      num               { kind = LX_NUMBER; goto done; }

      "+"   { kind = LX_PLUS; goto done; }
      "-"   { kind = LX_MINUS; goto done; }
      "*"   { kind = LX_STAR; goto done; }
      "/"   { kind = LX_SLASH; goto done; }
      "//"  { kind = LX_DSLASH; goto done; }
      "%"   { kind = LX_PERCENT; goto done; }
      "^"   { kind = LX_CARET; goto done; }
      "#"   { kind = LX_HASH; goto done; }
      "&"   { kind = LX_AMP; goto done; }
      "~"   { kind = LX_TILDE; goto done; }
      "|"   { kind = LX_PIPE; goto done; }
      "<<"  { kind = LX_SHL; goto done; }
      ">>"  { kind = LX_SHR; goto done; }
      ".."  { kind = LX_CONCAT; goto done; }
      "..." { kind = LX_DOTS; goto done; }
      "=="  { kind = LX_EQ; goto done; }
      "~="  { kind = LX_NE; goto done; }
      "<="  { kind = LX_LE; goto done; }
      ">="  { kind = LX_GE; goto done; }
      "<"   { kind = LX_LT; goto done; }
      ">"   { kind = LX_GT; goto done; }
      "="   { kind = LX_ASSIGN; goto done; }
      "("   { kind = LX_LPAREN; goto done; }
      ")"   { kind = LX_RPAREN; goto done; }
      "{"   { kind = LX_LBRACE; goto done; }
      "}"   { kind = LX_RBRACE; goto done; }
      "]"   { kind = LX_RBRACKET; goto done; }
      "::"  { kind = LX_DBCOLON; goto done; }
      ";"   { kind = LX_SEMI; goto done; }
      ":"   { kind = LX_COLON; goto done; }
      ","   { kind = LX_COMMA; goto done; }
      "."   { kind = LX_DOT; goto done; }
      *     { return fail(ls, tok, "unexpected symbol"); }
    */

  comment:                        /* after "--": a long comment or a line */
    if (ls->cur < lim && *ls->cur == '[') {
      int level = long_level(ls, ls->cur, &bad);
      if (level >= 0) {
        if (!long_bracket(ls, level)) return fail(ls, tok, "unfinished long comment");
        continue;
      }
    }
    {
      /* a line comment: up to the line break (memchr scans long lines
      ** many bytes at a time) */
      const unsigned char *p = ls->cur, *end = memchr(p, '\n', (size_t)(lim - p));
      if (end == NULL) end = lim;
      const unsigned char *cr = memchr(p, '\r', (size_t)(end - p));
      ls->cur = cr ? cr : end;
    }
    continue;
  }

bracket:                          /* "[": a long string or LBRACKET */
  {
    int level = long_level(ls, start, &bad);
    if (level < 0) {
      if (bad) return fail(ls, tok, "invalid long string delimiter");
      kind = LX_LBRACKET;
      goto done;
    }
    if (!long_bracket(ls, level)) return fail(ls, tok, "unfinished long string");
    kind = LX_LONGSTRING;
    goto finish;
  }

string:
  if (!short_string(ls)) return fail(ls, tok, "unfinished string");
  kind = LX_STRING;
  goto finish;

done:
  ls->cur = cur;
finish:
  tok->len = (size_t)(ls->cur - start);
  tok->lastline = ls->line;
  tok->kind = kind;
  ls->prev = kind;
  return kind;
}
