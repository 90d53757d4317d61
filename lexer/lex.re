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

/* Do the n bytes at s, from the second on, match those of w? */
static int rest_is(const unsigned char *s, const char *w, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (s[i] != (unsigned char)w[i]) return 0;
  return 1;
}

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

/* The kind of the name s[0..n): a reserved word or LX_NAME, chosen by the
** first byte and the length, then the other bytes compared in line (a
** memcmp call per candidate cost more than the rest of the front).
** ORDER RESERVED (lex.h); `goto` is a name in 5.1 (not in LuaJIT). */
static int reserved(const lx_state *ls, const unsigned char *s, size_t n) {
#define KW(w, k) if (n == sizeof w - 1 && rest_is(s, w, sizeof w - 1)) return k
  switch (s[0]) {
  case 'a': KW("and", LX_AND); break;
  case 'b': KW("break", LX_BREAK); break;
  case 'd': KW("do", LX_DO); break;
  case 'e': KW("end", LX_END); KW("else", LX_ELSE); KW("elseif", LX_ELSEIF); break;
  case 'f': KW("for", LX_FOR); KW("false", LX_FALSE); KW("function", LX_FUNCTION); break;
  case 'g': KW("goto", ls->version == 51 ? LX_NAME :
                       ls->version == LX_LUAJIT ? jit_goto(ls, s + n) : LX_GOTO); break;
  case 'i': KW("if", LX_IF); KW("in", LX_IN); break;
  case 'l': KW("local", LX_LOCAL); break;
  case 'n': KW("nil", LX_NIL); KW("not", LX_NOT); break;
  case 'o': KW("or", LX_OR); break;
  case 'r': KW("return", LX_RETURN); KW("repeat", LX_REPEAT); break;
  case 't': KW("then", LX_THEN); KW("true", LX_TRUE); break;
  case 'u': KW("until", LX_UNTIL); break;
  case 'w': KW("while", LX_WHILE); break;
  default: break;
  }
#undef KW
  return LX_NAME;
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
  int kind, bad;
  (void)mar;
  if (ls->errmsg) { tok->kind = LX_ERROR; return LX_ERROR; }
  for (;;) {
    /* the front: blanks and line breaks, then a name or reserved word */
    cur = ls->cur;
    while (cur < lim) {
      if (cclass[*cur] & CC_BLANK) cur++;
      else if (*cur == '\n' || *cur == '\r') cur = newline(ls, cur);
      else break;
    }
    ls->cur = start = cur;
    tok->off = (size_t)(start - ls->buf);
    tok->line = ls->line;
    if (cur < lim && (cclass[*cur] & first)) {
      do cur++; while (cur < lim && (cclass[*cur] & rest));
      kind = reserved(ls, start, (size_t)(cur - start));
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
