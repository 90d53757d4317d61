/*
** lex.h -- Lua lexer (re2c): bytes in, tokens (kind, offset, length, lines) out.
** Comments and whitespace never leave the lexer.  The lexer never allocates,
** recurses only to look one token past a LuaJIT `goto`, and never reads past
** buf+len (NUL bytes are ordinary bytes).
*/
#ifndef LI_LEX_H
#define LI_LEX_H

#include <stddef.h>
#include <stdint.h>

/* Token kinds.  ORDER TOKENS: lx_kindname() in lex.re follows this order. */
enum lx_kind {
  LX_EOF = 0,   /* end of input (off = len, len = 0) */
  LX_ERROR,     /* lexical error: see lx_state.errmsg / errline */
  /* reserved words (ORDER RESERVED) */
  LX_AND, LX_BREAK, LX_DO, LX_ELSE, LX_ELSEIF, LX_END, LX_FALSE, LX_FOR,
  LX_FUNCTION, LX_GOTO, LX_IF, LX_IN, LX_LOCAL, LX_NIL, LX_NOT, LX_OR,
  LX_REPEAT, LX_RETURN, LX_THEN, LX_TRUE, LX_UNTIL, LX_WHILE,
  /* operators and punctuation */
  LX_PLUS, LX_MINUS, LX_STAR, LX_SLASH, LX_DSLASH, LX_PERCENT, LX_CARET,
  LX_HASH, LX_AMP, LX_TILDE, LX_PIPE, LX_SHL, LX_SHR, LX_CONCAT, LX_DOTS,
  LX_EQ, LX_NE, LX_LE, LX_GE, LX_LT, LX_GT, LX_ASSIGN, LX_LPAREN,
  LX_RPAREN, LX_LBRACE, LX_RBRACE, LX_LBRACKET, LX_RBRACKET, LX_DBCOLON,
  LX_SEMI, LX_COLON, LX_COMMA, LX_DOT,
  /* tokens with contents */
  LX_NAME, LX_NUMBER, LX_STRING, /* short string, quotes included */
  LX_LONGSTRING,                 /* [[...]] / [==[...]==], brackets included */
  LX_NKINDS
};

/* One token.  line/lastline differ only for tokens that span lines. */
typedef struct lx_token {
  size_t off;        /* byte offset of the first byte in the buffer */
  size_t len;        /* length in bytes */
  uint32_t line;     /* line of the first byte (1-based, counted as Lua counts) */
  uint32_t lastline; /* line of the last byte */
  int kind;          /* enum lx_kind */
} lx_token;

/* Lexer state: one per buffer. */
typedef struct lx_state {
  const unsigned char *buf;  /* start of the buffer */
  const unsigned char *cur;  /* next byte to scan */
  const unsigned char *lim;  /* one past the last byte */
  uint32_t line;             /* current line number */
  int version;               /* 51..54, or LX_LUAJIT (see lx_init) */
  unsigned char name_first;  /* byte classes (lex.re) that start a name */
  unsigned char name_rest;   /* ... and that continue one */
  int prev;                  /* kind of the last token (LX_EOF: none yet) */
  int peeking;               /* scanning ahead for LuaJIT's `goto` */
  const char *errmsg;        /* first error (static string), or NULL */
  uint32_t errline;          /* line of the first error */
} lx_state;

/* The version of LuaJIT 2.1's dialect: Lua 5.1 with `goto` statements and
** names that may hold any byte from 0x80 up (lj_char.c: UTF-8 names).
** LuaJIT (without LJ_52) reads `goto` as a statement only where a
** statement starts and a name follows, and as a name everywhere else
** (lj_parse.c, parse_stmt): the lexer returns LX_GOTO there and LX_NAME
** elsewhere.  Its numerals (1LL, 0x10ULL, 12i, 0x1p-2) and escapes (\x,
** \z, \u{...}) need nothing of their own: the lexer takes every Lua's. */
#define LX_LUAJIT 21

/* Start scanning buf[start..len) at line `line` (1 for a whole chunk), as
** Lua `version` does: 51, 52, 53, 54 (0 is 54) or LX_LUAJIT; in 5.1
** `goto` is a name. */
void lx_init(lx_state *ls, const char *buf, size_t len, size_t start,
             uint32_t line, int version);

/* Scan the next token into *tok and return its kind.  After LX_EOF or
** LX_ERROR every further call returns the same kind again. */
int lx_next(lx_state *ls, lx_token *tok);

/* A printable name for a token kind ("end", "..", "<name>"), for messages. */
const char *lx_kindname(int kind);

#endif
