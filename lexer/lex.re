/*
** lex.re -- the Lua lexer (re2c).  See lex.h.
**
** re2c matches names, keywords, operators, numerals and whitespace; long
** brackets and short strings are scanned by small loops below, guarded by
** the limit.  The input is not NUL-terminated and may hold NULs: every read
** goes through PEEK, which yields 0 at the limit, and the `$` rule tells the
** real end from a NUL byte.
*/
#include <stddef.h>
#include "lex.h"

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
  ls->errmsg = NULL;
  ls->errline = 0;
}

#define PEEK() (cur < lim ? *cur : 0)

int lx_next(lx_state *ls, lx_token *tok) {
  const unsigned char *cur, *lim = ls->lim, *mar = NULL, *start;
  int kind, bad;
  (void)mar;
  if (ls->errmsg) { tok->kind = LX_ERROR; return LX_ERROR; }
  for (;;) {
    cur = start = ls->cur;
    tok->off = (size_t)(start - ls->buf);
    tok->line = ls->line;
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

      name  = [a-zA-Z_][a-zA-Z_0-9]*;
      dec   = [0-9] ([eE] [+-]? | [0-9a-fA-F.])* | "." [0-9] ([eE] [+-]? | [0-9a-fA-F.])*;
      hex   = "0" [xX] ([pP] [+-]? | [0-9a-fA-F.])*;
      num   = (dec | hex) [a-zA-Z_0-9]*;   // trailing letters: LuaJIT's 1ULL, 2i

      $                 { kind = LX_EOF; goto done; }
      [ \t\f\v]+        { ls->cur = cur; continue; }
      "\r\n" | "\n\r" | "\n" | "\r" { ls->line++; ls->cur = cur; continue; }
      "--"              { ls->cur = cur; goto comment; }
      "["               { goto bracket; }
      ["']              { goto string; }

      "and"       { kind = LX_AND; goto done; }
      "break"     { kind = LX_BREAK; goto done; }
      "do"        { kind = LX_DO; goto done; }
      "else"      { kind = LX_ELSE; goto done; }
      "elseif"    { kind = LX_ELSEIF; goto done; }
      "end"       { kind = LX_END; goto done; }
      "false"     { kind = LX_FALSE; goto done; }
      "for"       { kind = LX_FOR; goto done; }
      "function"  { kind = LX_FUNCTION; goto done; }
      "goto"      { kind = ls->version <= 51 ? LX_NAME : LX_GOTO; goto done; }
      "if"        { kind = LX_IF; goto done; }
      "in"        { kind = LX_IN; goto done; }
      "local"     { kind = LX_LOCAL; goto done; }
      "nil"       { kind = LX_NIL; goto done; }
      "not"       { kind = LX_NOT; goto done; }
      "or"        { kind = LX_OR; goto done; }
      "repeat"    { kind = LX_REPEAT; goto done; }
      "return"    { kind = LX_RETURN; goto done; }
      "then"      { kind = LX_THEN; goto done; }
      "true"      { kind = LX_TRUE; goto done; }
      "until"     { kind = LX_UNTIL; goto done; }
      "while"     { kind = LX_WHILE; goto done; }
      name        { kind = LX_NAME; goto done; }
      num         { kind = LX_NUMBER; goto done; }

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
    while (ls->cur < lim && *ls->cur != '\n' && *ls->cur != '\r') ls->cur++;
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
  return kind;
}
