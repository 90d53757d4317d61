/*
** test_lexer.c -- Criterion tests of the re2c lexer: every token kind,
** numerals, strings and escapes, long brackets, Lua's four line-break
** forms, NUL bytes, errors, and random input.
*/
#define _POSIX_C_SOURCE 200809L  /* strdup */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"

#define MAXTOK 256

/* Lex a buffer of exactly len bytes (a malloc'd copy, so an overread shows
** under valgrind or ASan); fills toks, returns the count (EOF/ERROR last). */
static int lex(const char *s, size_t len, int version, lx_token *toks, lx_state *out) {
  char *b = malloc(len ? len : 1);
  memcpy(b, s, len);
  lx_state ls;
  lx_init(&ls, b, len, 0, 1, version);
  int n = 0;
  for (;;) {
    cr_assert_lt(n, MAXTOK);
    int k = lx_next(&ls, &toks[n++]);
    if (k == LX_EOF || k == LX_ERROR) break;
  }
  if (out) *out = ls;
  free(b);
  return n;
}

static int lexs(const char *s, lx_token *toks) { return lex(s, strlen(s), 54, toks, NULL); }

/* The one token in s (followed by EOF), checking its extent is all of s. */
static int single(const char *s) {
  lx_token t[MAXTOK];
  int n = lexs(s, t);
  cr_assert_eq(n, 2, "'%s' gave %d tokens", s, n);
  cr_assert_eq(t[0].off, 0);
  cr_assert_eq(t[0].len, strlen(s), "'%s': length %zu", s, t[0].len);
  cr_assert_eq(t[1].kind, LX_EOF);
  return t[0].kind;
}

Test(lexer, keywords) {
  static const char *kw[] = {"and", "break", "do", "else", "elseif", "end", "false", "for",
    "function", "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return",
    "then", "true", "until", "while"};
  for (int i = 0; i < 22; i++) {
    cr_assert_eq(single(kw[i]), LX_AND + i, "%s", kw[i]);
    cr_assert_str_eq(lx_kindname(LX_AND + i), kw[i]);
  }
  cr_assert_eq(single("ends"), LX_NAME);
  cr_assert_eq(single("_end"), LX_NAME);
  cr_assert_eq(single("Local"), LX_NAME);
}

/* The front reads names and runs of spaces 8 bytes at a time where 8
** bytes are left, and keywords as one word: every keyword, every prefix
** and extension of one, in upper case, and every name byte next to every
** other byte, each far from the end and at the very end of the buffer. */
Test(lexer, names_and_keywords_in_words) {
  static const char *kw[] = {"and", "break", "do", "else", "elseif", "end", "false", "for",
    "function", "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return",
    "then", "true", "until", "while"};
  static const char *tails[] = {"", " ", "        x", "(", "\n\n", "_", "1", "\xC3\xA9"};
  char word[32], src[96];
  lx_token t[MAXTOK];
  for (int i = 0; i < 22; i++)
    for (int v = 0; v < 4; v++)
      for (size_t tl = 0; tl < sizeof tails / sizeof tails[0]; tl++) {
        size_t n = strlen(kw[i]);
        snprintf(word, sizeof word, "%s", kw[i]);
        if (v == 1) word[n - 1] = 0;                       /* a prefix */
        else if (v == 2) { word[n] = 'z'; word[n + 1] = 0; } /* an extension */
        else if (v == 3) word[0] = (char)(word[0] - 'a' + 'A');
        for (int pad = 0; pad < 12; pad++) {
          int len = snprintf(src, sizeof src, "%*s%s%s", pad, "", word, tails[tl]);
          lex(src, (size_t)len, 54, t, NULL);
          /* a tail that starts with a name byte continues the name */
          size_t wl = strlen(word) + (tails[tl][0] == '_' || tails[tl][0] == '1');
          char full[40];
          snprintf(full, sizeof full, "%.*s", (int)wl, src + pad);
          int k = LX_NAME;
          for (int j = 0; j < 22; j++) if (strcmp(full, kw[j]) == 0) k = LX_AND + j;
          cr_assert_eq(t[0].off, (size_t)pad, "'%s'", src);
          cr_assert_eq(t[0].len, wl, "'%s'", src);
          cr_assert_eq(t[0].kind, k, "'%s'", src);
        }
      }
  /* every byte after a name: in the name or not, as Lua's lctype says
  ** (LuaJIT: the bytes from 0x80 up too) */
  for (int version = 54; version <= 55; version++)
    for (int c = 1; c < 256; c++)
      for (int at = 1; at < 10; at++) {
        memset(src, 'a', sizeof src);
        src[at] = (char)c;
        int isname = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     c == '_' || (version == 55 && c >= 0x80);
        for (size_t len = (size_t)at + 1; len < 24; len += 7) {
          lex(src, len, version == 55 ? LX_LUAJIT : 54, t, NULL);
          if (isname) cr_assert_eq(t[0].len, len, "byte %d at %d", c, at);
          else cr_assert_eq(t[0].len, (size_t)at, "byte %d at %d", c, at);
        }
      }
  /* runs of spaces of every length, then a name, then the end */
  for (int pad = 0; pad < 40; pad++)
    for (int tail = 0; tail < 12; tail++) {
      int len = snprintf(src, sizeof src, "%*sx%*s", pad, "", tail, "");
      int nt = lex(src, (size_t)len, 54, t, NULL);
      cr_assert_eq(nt, 2);
      cr_assert_eq(t[0].off, (size_t)pad);
      cr_assert_eq(t[1].kind, LX_EOF);
      cr_assert_eq(t[1].off, (size_t)len);
    }
}

/* String and long-bracket bodies are scanned 8 bytes at a time where 8
** are left: a closing quote, `\\`, a line break or `]` at every place of
** bodies of every length, with the buffer ending right after the token
** or later. */
Test(lexer, string_bodies_in_words) {
  char src[64];
  lx_token t[MAXTOK];
  lx_state ls;
  for (int blen = 0; blen < 20; blen++)
    for (int tail = 0; tail < 10; tail += 9) {
      /* "aaa...a" and [==[aaa...a]==]: one token, the whole of it */
      int len = snprintf(src, sizeof src, "'%.*s'%*s", blen, "abcdefghijklmnopqrstuvwxyz", tail, "");
      lex(src, (size_t)len, 54, t, NULL);
      cr_assert_eq(t[0].kind, LX_STRING);
      cr_assert_eq(t[0].len, (size_t)blen + 2, "body %d", blen);
      len = snprintf(src, sizeof src, "[==[%.*s]=]]==]%*s", blen, "abcdefghijklmnopqrstuvwxyz", tail, "");
      lex(src, (size_t)len, 54, t, NULL);
      cr_assert_eq(t[0].kind, LX_LONGSTRING);
      cr_assert_eq(t[0].len, (size_t)blen + 11, "long body %d", blen);
      for (int at = 0; at < blen; at++) {
        /* a line break inside: a short string is unfinished, a long one
        ** counts the line */
        len = snprintf(src, sizeof src, "'%.*s'%*s", blen, "abcdefghijklmnopqrstuvwxyz", tail, "");
        src[1 + at] = '\n';
        int n = lex(src, (size_t)len, 54, t, &ls);
        cr_assert_eq(t[n - 1].kind, LX_ERROR, "break at %d of %d", at, blen);
        len = snprintf(src, sizeof src, "[[%.*s]]%*s", blen, "abcdefghijklmnopqrstuvwxyz", tail, "");
        src[2 + at] = '\n';
        lex(src, (size_t)len, 54, t, &ls);
        cr_assert_eq(t[0].kind, LX_LONGSTRING);
        cr_assert_eq(t[0].len, (size_t)blen + 4);
        cr_assert_eq(t[0].lastline, 2u);
        /* an escaped quote, then the rest of the body */
        len = snprintf(src, sizeof src, "\"%.*s\"%*s", blen, "abcdefghijklmnopqrstuvwxyz", tail, "");
        src[1 + at] = '\\';
        n = lex(src, (size_t)len, 54, t, NULL);
        if (at == blen - 1) cr_assert_eq(t[n - 1].kind, LX_ERROR, "escaped quote at %d", at);
        else {
          cr_assert_eq(t[0].kind, LX_STRING);
          cr_assert_eq(t[0].len, (size_t)blen + 2);
        }
        /* the closing quote early: the string ends there */
        len = snprintf(src, sizeof src, "'%.*s'%*s", blen, "abcdefghijklmnopqrstuvwxyz", tail, "");
        src[1 + at] = '\'';
        lex(src, (size_t)len, 54, t, NULL);
        cr_assert_eq(t[0].kind, LX_STRING);
        cr_assert_eq(t[0].len, (size_t)at + 2);
      }
    }
}

Test(lexer, goto_is_a_name_in_51) {
  lx_token t[MAXTOK];
  lex("goto", 4, 51, t, NULL);
  cr_assert_eq(t[0].kind, LX_NAME);
  lex("goto", 4, 52, t, NULL);
  cr_assert_eq(t[0].kind, LX_GOTO);
  lex("goto", 4, 0, t, NULL);
  cr_assert_eq(t[0].kind, LX_GOTO);
}

/* LuaJIT: `goto` is LX_GOTO only where a statement may start and a name
** follows; names hold bytes from 0x80 up; numerals keep their suffixes. */
Test(lexer, luajit_goto_names_and_numerals) {
  static const struct { const char *s; int at, kind; } cases[] = {
    { "goto x", 0, LX_GOTO },
    { "goto  --[[c]]\n x", 0, LX_GOTO },
    { "goto = 1", 0, LX_NAME },
    { "goto(1)", 0, LX_NAME },
    { "goto goto", 0, LX_NAME },
    { "goto end", 0, LX_NAME },
    { "x = goto y", 2, LX_NAME },
    { "a.goto b", 2, LX_NAME },
    { "local goto x", 1, LX_NAME },
    { "f() goto x", 3, LX_GOTO },
    { "do goto x", 1, LX_GOTO },
    { "::l:: goto l", 3, LX_GOTO },
    { "goto é", 0, LX_GOTO },
    { "café", 0, LX_NAME },
    { "x1é2", 0, LX_NAME },
    { "123LL", 0, LX_NUMBER },
    { "0x10ULL", 0, LX_NUMBER },
    { "12i", 0, LX_NUMBER },
    { "0x1p-2", 0, LX_NUMBER },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lx_token t[MAXTOK];
    int n = lex(cases[i].s, strlen(cases[i].s), LX_LUAJIT, t, NULL);
    cr_assert_gt(n, cases[i].at, "case %zu", i);
    cr_expect_eq(t[cases[i].at].kind, cases[i].kind, "case %zu '%s': %s", i, cases[i].s,
                 lx_kindname(t[cases[i].at].kind));
  }
  lx_token t[MAXTOK];
  int n = lex("café", 5, LX_LUAJIT, t, NULL);
  cr_expect_eq(n, 2);
  cr_expect_eq(t[0].len, 5);
  lex("café", 5, 51, t, NULL);                 /* 5.1: 'é' is no name byte */
  cr_expect_eq(t[0].len, 3);
}

Test(lexer, operators) {
  static const struct { const char *s; int k; } ops[] = {
    {"+", LX_PLUS}, {"-", LX_MINUS}, {"*", LX_STAR}, {"/", LX_SLASH}, {"//", LX_DSLASH},
    {"%", LX_PERCENT}, {"^", LX_CARET}, {"#", LX_HASH}, {"&", LX_AMP}, {"~", LX_TILDE},
    {"|", LX_PIPE}, {"<<", LX_SHL}, {">>", LX_SHR}, {"..", LX_CONCAT}, {"...", LX_DOTS},
    {"==", LX_EQ}, {"~=", LX_NE}, {"<=", LX_LE}, {">=", LX_GE}, {"<", LX_LT}, {">", LX_GT},
    {"=", LX_ASSIGN}, {"(", LX_LPAREN}, {")", LX_RPAREN}, {"{", LX_LBRACE}, {"}", LX_RBRACE},
    {"[", LX_LBRACKET}, {"]", LX_RBRACKET}, {"::", LX_DBCOLON}, {";", LX_SEMI},
    {":", LX_COLON}, {",", LX_COMMA}, {".", LX_DOT}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    cr_assert_eq(single(ops[i].s), ops[i].k, "%s", ops[i].s);
    cr_assert_str_eq(lx_kindname(ops[i].k), ops[i].s);
  }
  lx_token t[MAXTOK];
  cr_assert_eq(lexs("a....b", t), 5);       /* a ... . b */
  cr_assert_eq(t[1].kind, LX_DOTS);
  cr_assert_eq(t[2].kind, LX_DOT);
  cr_assert_eq(lexs("~==", t), 3);          /* ~= then = */
  cr_assert_eq(t[0].kind, LX_NE);
}

Test(lexer, numerals) {
  static const char *nums[] = {"3", "345", "0xff", "0xBEBADA", "3.0", "3.1416", "314.16e-2",
    "0.31416E1", "34e1", "0x0.1E", "0xA23p-4", "0X1.921FB54442D18P+1", "3.", ".5", "1e10",
    "0xA.8p1", "1ULL", "0x10LL", "12i", "1e+5"};
  for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
    cr_assert_eq(single(nums[i]), LX_NUMBER, "%s", nums[i]);
  lx_token t[MAXTOK];
  cr_assert_eq(lexs("0x1e+1", t), 4);       /* 0x1e + 1 */
  cr_assert_eq(t[0].len, 4);
  cr_assert_eq(t[1].kind, LX_PLUS);
  cr_assert_eq(t[2].kind, LX_NUMBER);
  cr_assert_eq(lexs("1..2", t), 2);         /* Lua: malformed number */
  cr_assert_eq(t[0].kind, LX_NUMBER);
  cr_assert_eq(lexs("a.b", t), 4);
  cr_assert_eq(t[1].kind, LX_DOT);
}

Test(lexer, short_strings_and_escapes) {
  static const char *strs[] = {"'a'", "\"a\"", "'\\a\\b\\f\\n\\r\\t\\v\\\\\\\"\\''",
    "'\\x41\\u{48}\\u{7FFFFFFF}\\65\\0'", "\"it's\"", "'say \"hi\"'", "''"};
  for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
    cr_assert_eq(single(strs[i]), LX_STRING, "%s", strs[i]);
  lx_token t[MAXTOK];
  /* \z skips spaces and line breaks, which still count */
  cr_assert_eq(lexs("'a\\z  \n\n  b' x", t), 3);
  cr_assert_eq(t[0].line, 1);
  cr_assert_eq(t[0].lastline, 3);
  cr_assert_eq(t[1].line, 3);
  /* an escaped line break of each form is one line */
  static const char *forms[] = {"\n", "\r", "\r\n", "\n\r"};
  for (int i = 0; i < 4; i++) {
    char s[32];
    snprintf(s, sizeof s, "'a\\%sb' x", forms[i]);
    cr_assert_eq(lexs(s, t), 3, "form %d", i);
    cr_assert_eq(t[0].kind, LX_STRING);
    cr_assert_eq(t[1].line, 2, "form %d: line %u", i, t[1].line);
  }
}

Test(lexer, long_brackets) {
  cr_assert_eq(single("[[a]]"), LX_LONGSTRING);
  cr_assert_eq(single("[=[a]]b]=]"), LX_LONGSTRING);
  cr_assert_eq(single("[==[]=]]]==]"), LX_LONGSTRING);
  cr_assert_eq(single("[===[\n]==]\n]===]"), LX_LONGSTRING);
  lx_token t[MAXTOK];
  cr_assert_eq(lexs("--[[ c\n]] x --[==[\n]]\n]==] y -- line\nz", t), 4);
  cr_assert_eq(t[0].line, 2);
  cr_assert_eq(t[1].line, 4);
  cr_assert_eq(t[2].line, 5);
  cr_assert_eq(lexs("--[ not long\nx", t), 2);
  cr_assert_eq(t[0].line, 2);
  cr_assert_eq(lexs("a[b]", t), 5);
  cr_assert_eq(t[1].kind, LX_LBRACKET);
}

Test(lexer, line_breaks_counted_as_lua_counts_them) {
  lx_token t[MAXTOK];
  cr_assert_eq(lexs("a\r\nb\n\rc\rd\ne", t), 6);
  for (int i = 0; i < 5; i++) cr_assert_eq(t[i].line, (uint32_t)i + 1, "token %d line %u", i, t[i].line);
  cr_assert_eq(lexs("a\n\nb\r\rc\r\n\r\nd\n\r\ne", t), 6);
  cr_assert_eq(t[1].line, 3);
  cr_assert_eq(t[2].line, 5);
  cr_assert_eq(t[3].line, 7);
  cr_assert_eq(t[4].line, 9);
  cr_assert_eq(lexs("[[\r\n\n\r]]x", t), 3);   /* inside a long string too */
  cr_assert_eq(t[0].lastline, 3);
  cr_assert_eq(t[1].line, 3);
}

Test(lexer, nul_bytes) {
  lx_token t[MAXTOK];
  const char s[] = "'a\0b' --\0c\n[[\0]] x";
  cr_assert_eq(lex(s, sizeof s - 1, 54, t, NULL), 4);
  cr_assert_eq(t[0].kind, LX_STRING);
  cr_assert_eq(t[0].len, 5);
  cr_assert_eq(t[1].kind, LX_LONGSTRING);
  cr_assert_eq(t[2].kind, LX_NAME);
  lx_state ls;
  cr_assert_eq(lex("x \0 y", 5, 54, t, &ls), 2);
  cr_assert_eq(t[1].kind, LX_ERROR);
  cr_assert_str_eq(ls.errmsg, "unexpected symbol");
}

Test(lexer, errors) {
  static const struct { const char *s; const char *msg; uint32_t line; } e[] = {
    {"x = 'abc", "unfinished string", 1}, {"x = 'ab\nc'", "unfinished string", 1},
    {"\n[[abc", "unfinished long string", 2}, {"--[==[ abc ]]", "unfinished long comment", 1},
    {"x = [=abc", "invalid long string delimiter", 1}, {"\n\n@", "unexpected symbol", 3},
    {"$", "unexpected symbol", 1}, {"'\\", "unfinished string", 1}};
  for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
    lx_token t[MAXTOK];
    lx_state ls;
    int n = lex(e[i].s, strlen(e[i].s), 54, t, &ls);
    cr_assert_eq(t[n - 1].kind, LX_ERROR, "%s", e[i].s);
    cr_assert_str_eq(ls.errmsg, e[i].msg, "%s", e[i].s);
    cr_assert_eq(ls.errline, e[i].line, "%s: line %u", e[i].s, ls.errline);
    lx_token again;
    cr_assert_eq(lx_next(&ls, &again), LX_ERROR);
  }
}

Test(lexer, token_text_and_offsets) {
  const char *s = "local function f(a, ...) return a .. \"x\" end -- c";
  static const char *want[] = {"local", "function", "f", "(", "a", ",", "...", ")",
                               "return", "a", "..", "\"x\"", "end"};
  lx_token t[MAXTOK];
  int n = lexs(s, t);
  cr_assert_eq(n, 14);
  for (int i = 0; i < 13; i++) {
    cr_assert_eq(t[i].len, strlen(want[i]));
    cr_assert(memcmp(s + t[i].off, want[i], t[i].len) == 0, "token %d", i);
  }
  cr_assert_eq(t[13].kind, LX_EOF);
  cr_assert_eq(t[13].off, strlen(s));
}

Test(lexer, start_offset_and_line) {
  lx_token t[MAXTOK];
  char *b = strdup("#!/usr/bin/lua\nx");
  lx_state ls;
  lx_init(&ls, b, strlen(b), 14, 1, 54);
  cr_assert_eq(lx_next(&ls, &t[0]), LX_NAME);
  cr_assert_eq(t[0].line, 2);
  cr_assert_eq(t[0].off, 15);
  free(b);
}

Test(lexer, random_bytes_always_terminate) {
  unsigned seed = 2024;
  for (int i = 0; i < 10000; i++) {
    size_t len = (size_t)(i % 64) + 1;
    char *b = malloc(len);
    for (size_t j = 0; j < len; j++) {
      seed = seed * 1103515245u + 12345u;
      b[j] = (char)(seed >> 16);
    }
    lx_state ls;
    lx_init(&ls, b, len, 0, 1, 54);
    lx_token t;
    int steps = 0, k;
    do {
      k = lx_next(&ls, &t);
      cr_assert_leq(t.off + (k == LX_ERROR ? 0 : t.len), len);
      cr_assert_lt(++steps, 200);
    } while (k != LX_EOF && k != LX_ERROR);
    free(b);
  }
}
