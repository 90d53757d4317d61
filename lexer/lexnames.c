/*
** lexnames.c -- printable names of token kinds, for messages.
*/
#include "lex.h"

/* ORDER TOKENS (lex.h) */
static const char *const kindnames[LX_NKINDS] = {
  "<eof>", "<error>",
  "and", "break", "do", "else", "elseif", "end", "false", "for",
  "function", "goto", "if", "in", "local", "nil", "not", "or",
  "repeat", "return", "then", "true", "until", "while",
  "+", "-", "*", "/", "//", "%", "^",
  "#", "&", "~", "|", "<<", ">>", "..", "...",
  "==", "~=", "<=", ">=", "<", ">", "=", "(",
  ")", "{", "}", "[", "]", "::",
  ";", ":", ",", ".",
  "<name>", "<number>", "<string>", "<string>"
};

const char *lx_kindname(int kind) {
  if (kind < 0 || kind >= LX_NKINDS) return "?";
  return kindnames[kind];
}
