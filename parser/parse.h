/*
** parse.h -- what the parser learns about a chunk, for the rewriter.
** The lemon grammar (lua_grammar.y) fills an lp_ctx through the helpers
** declared here; parse.c drives the lexer and the parser.
*/
#ifndef LI_PARSE_H
#define LI_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include "lex.h"

#define LP_NONE ((size_t)-1)

/* A token as the grammar actions see it.  Sixteen bytes, so lemon passes
** it in two registers instead of copying a 32-byte lx_token through memory
** for every shift and reduce; offsets fit because li_rewrite takes at most
** 4 GiB.  The kind is lemon's major code and is not kept here. */
typedef struct lp_tok {
  uint32_t off;         /* byte offset of the first byte */
  uint32_t len;         /* length in bytes */
  uint32_t line;        /* line of the first byte */
  uint32_t lastline;    /* line of the last byte */
} lp_tok;

/* Kinds of expression the rewriter cares about. */
enum { EK_OTHER = 0, EK_CALL, EK_PAREN, EK_VAR, EK_FUNC, EK_VARARG, EK_TABLE,
       EK_LOCAL,        /* a name that is a local or an upvalue (an EK_VAR) */
       EK_CONST };      /* nil, false, true, a number or a string literal */

/* Flags of a call (lp_exp.call). */
#define LP_CALL_EMPTY 1   /* `()` */
#define LP_CALL_MULTI 2   /* its last argument is a call or `...` */
#define LP_CALL_PURE  4   /* callee and arguments are EK_LOCAL, EK_CONST or
                             EK_VARARG: evaluating them runs no code */
#define LP_CALL_SPLIT 8   /* Lua 5.1: a line break before a string or table
                             argument, where a `(` would be ambiguous syntax */

/* What an expression looks like from outside. */
typedef struct lp_exp {
  uint32_t off, end;    /* byte range [off, end) in the source */
  uint32_t args_off;    /* EK_CALL: offset of `(`, of the string or of `{` */
  uint32_t args_end;    /* EK_CALL: one past `)`, the string or `}` */
  uint32_t func;        /* EK_FUNC: function index; EK_CALL: registers its
                           evaluation needs above its base (lp_explist_regs) */
  uint8_t kind;         /* EK_* */
  uint8_t args_kind;    /* EK_CALL: '(' , 's' (string) or '{' */
  uint8_t call;         /* EK_CALL: LP_CALL_* flags */
  uint8_t oneline;      /* 1 if the whole expression is on one line */
} lp_exp;

/* A list of expressions; the expressions themselves sit on lp_ctx.exps
** from index `base` (the last one is exps[base + n - 1]).  Sixteen bytes:
** it does not carry a copy of its last expression, so that lemon's stack
** entries stay small (see lp_tok). */
typedef struct lp_explist {
  uint32_t off, end;    /* range of the whole list */
  uint32_t n;           /* number of expressions */
  uint32_t base;        /* index of the first on lp_ctx.exps */
} lp_explist;

/* A run of names (namelist, attnamelist, varlist) on lp_ctx.names. */
typedef struct lp_names {
  uint32_t base, n;
} lp_names;

/* What a block ends with. */
typedef struct lp_body {
  size_t trail_off;     /* start of trailing labels/`;` run, or LP_NONE */
  int ends_return;      /* last statement is a return */
  size_t last_end;      /* end of the last statement (or LP_NONE) */
} lp_body;

/* One statement, as seen by the block that holds it. */
typedef struct lp_stat {
  size_t off, end;
  int kind;             /* 0 other, 1 label, 2 `;` */
} lp_stat;

/* A name on the name stack (or a var text for assignments). */
typedef struct lp_name {
  size_t off, len;
  uint32_t line;
  uint8_t attrib;       /* 0, 'c' const, 'x' close */
  uint8_t simple;       /* var: 1 if the text is a plain dotted name chain */
} lp_name;

/* The name of an upvalue (bytes in the source, or a literal). */
typedef struct lp_upname {
  const char *p;
  uint32_t len;
} lp_upname;

/* One function (index 0 is the main chunk). */
typedef struct lp_func {
  uint32_t parent;      /* index of the enclosing function (main: 0) */
  uint32_t line;        /* line of `function` (main: 0) */
  uint32_t lastline;    /* line of `end` (main: 0) */
  size_t body_off;      /* where the body's first token starts */
  size_t end_off;       /* main: end of the last token; else offset of `end` */
  size_t trail_off;     /* trailing labels of the body, or LP_NONE */
  int ends_return;      /* body ends with a return statement */
  size_t name_off;      /* name text: offset in lp_ctx.strbuf, or LP_NONE */
  uint32_t name_len;
  uint32_t nups;        /* upvalues the function has before probing */
  uint32_t nchildren;   /* functions nested directly in it so far */
  uint32_t upbase, nupnames; /* their names, in Lua's order, in upnames */
  uint16_t maxactive;   /* most local variables active at once */
  uint8_t noprobe;      /* 1: leave this function without probes */
  uint8_t noprobe_tree; /* 1: ... and every function inside it */
  uint8_t dots;         /* 1: its own body uses `...` (the rewriter's 5.1
                           loader form needs to know, rewrite.h) */
  uint8_t calls;        /* 1: its own body makes a call */
  uint8_t loops;        /* 1: its own body has a loop or a goto */
  uint32_t ntok;        /* tokens of its own body (nested functions' apart),
                           give or take the one after its `end` */
  const char *reason;   /* why it is left alone (static) */
} lp_func;

/* One return statement.  Offsets fit 32 bits as lp_tok's do: a chunk of
** 100,000 small functions has 200,000 of these (they were 80 bytes). */
typedef struct lp_return {
  uint32_t func;        /* index of the function it leaves */
  uint32_t ret_off;     /* offset of the `return` keyword */
  uint32_t ret_end;     /* one past the `return` keyword */
  uint32_t exp_off, exp_end; /* range of its expressions (n > 0) */
  uint32_t n;           /* number of expressions */
  uint32_t args_off, args_end; /* tail: the call's arguments */
  uint8_t tail;         /* 1 if it is a tail call */
  uint8_t pure;         /* 1 if evaluating the values runs no code: every
                           one is an EK_LOCAL, EK_CONST or EK_VARARG, or it
                           is a tail call with LP_CALL_PURE */
  uint8_t multi;        /* 1 if the last expression is a call or `...` */
  uint8_t args_kind;    /* tail: '(' 's' '{' */
  uint8_t call;         /* tail: LP_CALL_* flags of the call */
} lp_return;

typedef struct lp_scope lp_scope;   /* scope.c */

/* Does the dialect keep Lua 5.1's rules where the rewriter cares: no
** _ENV, 60 upvalues, a `(` at the start of a line read as a new statement
** (lparser.c's "ambiguous syntax")?  LuaJIT 2.1 does, built without
** LUAJIT_ENABLE_LUA52COMPAT as Debian builds it (lj_parse.c, !LJ_52). */
#define LP_RULES_51(version) ((version) == 51 || (version) == LX_LUAJIT)

/* Parser context: everything the grammar actions write. */
typedef struct lp_ctx {
  const char *src;      /* the source buffer */
  size_t srclen;
  int version;          /* 51..54, or LX_LUAJIT (lex.h) */
  lx_token la;          /* the token being fed to the parser (lookahead) */
  uint32_t last_function_line; /* line of the last `function` keyword seen */
  lp_func *funcs; uint32_t nfuncs, capfuncs;
  uint32_t *fstack; uint32_t nfstack, capfstack; /* open functions */
  lp_return *rets; uint32_t nrets, caprets;
  lp_name *names; uint32_t nnames, capnames;     /* name stack */
  lp_exp *exps; uint32_t nexps, capexps;         /* expression stack */
  char *strbuf; size_t nstr, capstr;             /* function names */
  lp_upname *upnames; uint32_t nupnames, capupnames; /* upvalue names */
  size_t pending_name; uint32_t pending_len;     /* name for the next function */
  int pending_stat;     /* ... given by `function funcname` (a statement) */
  int pending_self;     /* next function is a method: declare `self` */
  size_t last_end;      /* end of the last token fed to the parser */
  int seen_token;       /* a token has been fed */
  uint32_t pending_body; /* function index + 1 whose body starts next */
  size_t pending_after; /* ... at the first token at or after this offset */
  uint64_t li_used;     /* bit k: the name __LI<k> (k=0: __LI) occurs */
  lp_scope *scope;      /* name resolution (scope.c) */
  int error;            /* 0 ok; 1 syntax error; 2 out of memory; 3 too deep;
                           LP_ELIMIT: too many nested functions;
                           LP_EREJECT: Lua rejects it after parsing */
  int checks;           /* 1: stop with LP_EREJECT where Lua would (lp_parse) */
  uint32_t errline;
  char errmsg[160];
} lp_ctx;

/* ctx->error when a function has more nested functions than the dialect's
** Lua compiles (lp_func_open). */
#define LP_ELIMIT 4
/* ctx->error when the chunk is one the dialect's compiler rejects after
** parsing it (a goto with no visible label, a break outside a loop, an
** assignment to a <const>...: lp_reject), with Lua's words and line. */
#define LP_EREJECT 5

/* Parse src[start..len); fills ctx (free with lp_free). Returns ctx->error.
** checks: 1 to stop with LP_EREJECT at what the dialect's compiler
** rejects after parsing (0: parse it as if Lua did not). */
int lp_parse(lp_ctx *ctx, const char *src, size_t len, size_t start,
             uint32_t line, int version, int checks);
void lp_free(lp_ctx *ctx);
/* Most functions one function may hold directly in the dialect's Lua. */
uint32_t lp_max_children(int version);
/* lp_parse's token loop (lua_grammar.y): feeds the lexer's tokens to
** lemon's parser until the end or the first error; returns ctx->error. */
int lp_run(lp_ctx *ctx, lx_state *ls);

/* --- helpers called by grammar actions (parse.c) ---------------------- */
void *lp_stack_malloc(size_t n, size_t entry);   /* lemon's stack, capped */
void *lp_stack_realloc(void *p, size_t n, size_t entry);
void lp_error(lp_ctx *ctx, const char *msg);
void lp_error_at(lp_ctx *ctx, uint32_t line, const char *msg);
void lp_oom(lp_ctx *ctx);
uint32_t lp_func_open(lp_ctx *ctx, uint32_t line); /* at the `(` of a body */
void lp_func_params_done(lp_ctx *ctx, lp_names params, int vararg);
void lp_func_close(lp_ctx *ctx, uint32_t f, const lp_body *b, const lp_tok *end);
void lp_set_pending_name(lp_ctx *ctx, size_t off, size_t len, const char *prefix);
void lp_name_func(lp_ctx *ctx, uint32_t f, const char *prefix, size_t off, size_t len);
void lp_push_name(lp_ctx *ctx, size_t off, size_t len, uint32_t line, int attrib,
                  int simple);
void lp_push_exp(lp_ctx *ctx, const lp_exp *e);
void lp_return_stat(lp_ctx *ctx, const lp_tok *ret, const lp_explist *el);
void lp_assign_names(lp_ctx *ctx, lp_names vars, const lp_explist *el, int local);
void lp_pop_names(lp_ctx *ctx, lp_names n);
void lp_pop_exps(lp_ctx *ctx, const lp_explist *el);
int lp_explist_pure(const lp_ctx *ctx, const lp_explist *el);
uint32_t lp_explist_regs(const lp_ctx *ctx, const lp_explist *el);
void lp_body_add(lp_body *b, const lp_stat *s);
int lp_attrib(lp_ctx *ctx, lp_names prev, const lp_tok *lt, const lp_tok *t,
              const lp_tok *gt);
void lp_assign_const(lp_ctx *ctx, size_t off, size_t len, size_t after,
                     uint32_t line);

/* --- parse.c: what the dialect's compiler rejects after parsing -------- */
/* Stop with LP_EREJECT (unless ctx->checks is 0): `line` is where Lua's
** lexer stood when its compiler raised the error, fmt its message. */
void lp_reject(lp_ctx *ctx, uint32_t line, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
/* The first token at or after src[off] (on line `line`), as Lua's lexer
** reads it for its lookahead; 0 if that is a lexical error. */
int lp_peek(const lp_ctx *ctx, size_t off, uint32_t line, lx_token *t);
/* Its last line (where Lua's lexer then stands), or 0. */
uint32_t lp_line_after(const lp_ctx *ctx, size_t off, uint32_t line);
/* The first token past a run of labels and (but in LuaJIT) `;` that starts
** at src[off]; 0 on a lexical error. */
int lp_after_labels(const lp_ctx *ctx, size_t off, uint32_t line, lx_token *t);

/* --- scope.c: name resolution, for the local/upvalue limits ----------- */
int sc_init(lp_ctx *ctx);
void sc_free(lp_ctx *ctx);
void sc_func_open(lp_ctx *ctx, uint32_t f);
void sc_func_close(lp_ctx *ctx, uint32_t f, const lp_tok *end); /* NULL: main */
void sc_block_open(lp_ctx *ctx);
void sc_loop_open(lp_ctx *ctx);       /* a loop's block (sc_block_close) */
void sc_goto(lp_ctx *ctx, const lp_tok *kw, const lp_tok *name);
void sc_break(lp_ctx *ctx, const lp_tok *kw);
void sc_label(lp_ctx *ctx, const lp_tok *open, const lp_tok *name,
              const lp_tok *close);
void sc_block_close(lp_ctx *ctx);
void sc_declare(lp_ctx *ctx, size_t off, size_t len, int attrib);
void sc_declare_hidden(lp_ctx *ctx, int n);
void sc_declare_names(lp_ctx *ctx, lp_names n);   /* from the name stack */
int sc_use(lp_ctx *ctx, size_t off, size_t len);  /* 1: a local, 2: const */
uint32_t sc_active(lp_ctx *ctx);                  /* locals active now */
int sc_close_active(lp_ctx *ctx);                 /* a <close> is active */

#endif
