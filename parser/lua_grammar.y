/*
** lua_grammar.y -- an LALR(1) grammar of Lua 5.4 (lemon), which also reads
** 5.1, 5.2, 5.3 and LuaJIT 2.1 source.  It builds no tree: its actions
** record what the rewriter needs (function bodies, returns, tail calls,
** trailing labels, names) and feed the scope tracker (scope.c) for the
** local/upvalue limits.
** The lexer (lexer/lex.re) pushes tokens in through lp_run (%code, at the
** end); comments and whitespace never reach the grammar.
*/

%name LuaParse                     /* entry points LuaParse, LuaParseAlloc... */
%token_prefix TK_                  /* token codes for parse.c's mapping table */
%token_type {lp_tok}               /* every terminal: a token's place (parse.h) */
%extra_argument {lp_ctx *ctx}      /* the context the actions fill */
%stack_size 0                      /* grows on demand; capped in parse.c */
%start_symbol chunk

%include {
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"
/* The parser stack grows through these; parse.c caps its depth so that
** absurd nesting is an error, not unbounded memory.  The cap counts
** entries (yyStackEntry is defined by the time yyGrowStack expands these),
** so the depth at which nesting fails does not depend on their size. */
#define malloc(n) lp_stack_malloc(n, sizeof(yyStackEntry))
#define realloc(p, n) lp_stack_realloc(p, n, sizeof(yyStackEntry))

/* lemon's push function, made static by this first declaration (the
** generated definition then has internal linkage), so that the compiler
** inlines it into the token loop of lp_run (%code, below): it is called
** once per token. */
#if defined(__GNUC__)
__attribute__((always_inline)) inline
#endif
static void LuaParse(void *yyp, int yymajor, lp_tok yyminor, lp_ctx *ctx);

/* Combine the ranges of two pieces into one expression. */
static lp_exp span(uint32_t off, uint32_t end, const lp_ctx *ctx) {
  lp_exp e;
  memset(&e, 0, sizeof e);
  e.off = off; e.end = end; e.kind = EK_OTHER;
  (void)ctx;
  return e;
}
static uint32_t tend(const lp_tok *t) { return t->off + t->len; }

/* var -> NAME, prefixexp -> NAME: a use of the variable.  Tokens and
** expressions go in and out by value, so that lemon may build the result
** in the stack slot of the first right-hand symbol (A-overwrites-N). */
static lp_exp name_exp(lp_ctx *ctx, lp_tok n) {
  int local = sc_use(ctx, n.off, n.len);
  lp_exp e = span(n.off, tend(&n), ctx);
  e.kind = local ? EK_LOCAL : EK_VAR; e.oneline = 1;
  return e;
}

/* var -> NAME where it is assigned to (varlist): as name_exp, and 5.4
** rejects a <const> or <close> local there, seen at the `=` or `,` after. */
static lp_exp assigned_exp(lp_ctx *ctx, lp_tok n) {
  int local = sc_use(ctx, n.off, n.len);
  if (local == 2) lp_assign_const(ctx, n.off, n.len, tend(&n), n.lastline);
  lp_exp e = span(n.off, tend(&n), ctx);
  e.kind = local ? EK_LOCAL : EK_VAR; e.oneline = 1;
  return e;
}

/* prefixexp '.' NAME: a plain dotted chain on one line can name a function */
static lp_exp field_exp(lp_exp p, lp_tok n, const lp_ctx *ctx) {
  lp_exp e = span(p.off, tend(&n), ctx);
  e.kind = EK_VAR; e.oneline = (p.kind == EK_VAR || p.kind == EK_LOCAL) && p.oneline;
  return e;
}

/* A call of the prefix expression starting at `off`, with the arguments
** args_off..args_end: `(`..`)` (empty or not), a table or a string; `call`
** holds its LP_CALL_* flags. */
static lp_exp call_exp(uint32_t off, uint32_t args_off, uint32_t args_end,
                       uint8_t args_kind, int call, uint32_t regs,
                       lp_ctx *ctx) {
  lp_exp e = span(off, args_end, ctx);
  if (ctx->nfstack) ctx->funcs[ctx->fstack[ctx->nfstack - 1]].calls = 1;
  e.kind = EK_CALL; e.oneline = 0;
  e.args_off = args_off; e.args_end = args_end;
  e.args_kind = args_kind; e.call = (uint8_t)call;
  e.func = regs;
  return e;
}

/* LP_CALL_PURE if the callee is a local (its arguments are checked apart). */
static int callee_pure(const lp_exp *callee) {
  return callee->kind == EK_LOCAL ? LP_CALL_PURE : 0;
}

/* The flags of an argument list: a last value that may be several, and
** arguments that all run no code. */
static int args_flags(const lp_ctx *ctx, const lp_explist *el) {
  uint8_t k = ctx->exps[el->base + el->n - 1].kind;
  return (k == EK_CALL || k == EK_VARARG ? LP_CALL_MULTI : 0) |
         (lp_explist_pure(ctx, el) ? LP_CALL_PURE : 0);
}

/* Lua 5.1 (and LuaJIT) reads a `(` at the start of a line as a new
** statement: note a line break in src[from, to) before a string or table
** argument. */
static int split_flag(const lp_ctx *ctx, uint32_t from, uint32_t to) {
  if (!LP_RULES_51(ctx->version)) return 0;
  for (uint32_t i = from; i < to; i++)
    if (ctx->src[i] == '\n' || ctx->src[i] == '\r') return LP_CALL_SPLIT;
  return 0;
}

/* prefixexp '[' exp ']': never names a function */
static lp_exp index_exp(lp_exp p, lp_tok r, const lp_ctx *ctx) {
  lp_exp e = span(p.off, tend(&r), ctx);
  e.kind = EK_VAR; e.oneline = 0;
  return e;
}
}

%syntax_error {
  (void)yymajor; (void)yyminor;
  lp_error(ctx, "syntax error");
}
%stack_overflow { lp_error(ctx, "chunk has too many syntax levels"); }
%parse_failure { if (!ctx->error) lp_error(ctx, "syntax error"); }

/* Precedence, lowest first.  LOWEST tags the rules that end a prefix
** expression, so that `(` after one continues it as a call, as Lua does. */
%nonassoc LOWEST.
%left OR.
%left AND.
%left LT GT LE GE NE EQ.
%left PIPE.
%left TILDE.
%left AMP.
%left SHL SHR.
%right CONCAT.
%left PLUS MINUS.
%left STAR SLASH DSLASH PERCENT.
%right NOT HASH UNARY.
%right CARET.
%nonassoc LPAREN.

%type block {lp_body}
%type statlist {lp_body}
%type stat {lp_stat}
%type exp {lp_exp}
%type prefixexp {lp_exp}
%type var {lp_exp}
%type tablecons {lp_exp}
%type explist {lp_explist}
%type namelist {lp_names}
%type attnamelist {lp_names}
%type varlist {lp_names}
%type funcname {lp_exp}
%type funcbody {uint32_t}
%type fbparams {uint32_t}
%type fbopen {uint32_t}
%type parlist {int}
%type ifhead {size_t}
%type retstat {size_t}

/* chunk -> body EOF */
chunk ::= statlist(S). {
  lp_func_close(ctx, 0, &S, NULL);
}
chunk ::= statlist(S) retstat(R). {
  lp_body b = body_ret(S, R); lp_func_close(ctx, 0, &b, NULL);
}

/* body -> {stat} [retstat]   (no scope of its own).  Not a symbol of its
** own: each rule that holds a body spells out both forms, one reduction
** fewer per block and per function (the stack keeps the same depth:
** statlist takes body's place). */
%include {
/* statlist retstat: the body ends with a return. */
static lp_body body_ret(lp_body s, size_t ret_end) {
  s.trail_off = LP_NONE; s.ends_return = 1; s.last_end = ret_end;
  return s;
}
}

/* block -> body, in a scope of its own */
block(A) ::= bopen statlist(S). { A = S; sc_block_close(ctx); }
block(A) ::= bopen statlist(S) retstat(R). { A = body_ret(S, R); sc_block_close(ctx); }
bopen ::= . { sc_block_open(ctx); }

statlist(A) ::= . { A.trail_off = LP_NONE; A.ends_return = 0; A.last_end = LP_NONE; }
statlist(A) ::= statlist(A) stat(S). { lp_body_add(&A, &S); }

/* retstat -> RETURN [explist] [';'];  value: end of the statement */
retstat(A) ::= RETURN(R). {
  lp_explist el; memset(&el, 0, sizeof el); el.base = ctx->nexps;
  lp_return_stat(ctx, &R, &el); A = tend(&R);
}
retstat(A) ::= RETURN(R) SEMI(S). {
  lp_explist el; memset(&el, 0, sizeof el); el.base = ctx->nexps;
  lp_return_stat(ctx, &R, &el); A = tend(&S);
}
retstat(A) ::= RETURN(R) explist(E). {
  lp_return_stat(ctx, &R, &E); A = E.end; lp_pop_exps(ctx, &E);
}
retstat(A) ::= RETURN(R) explist(E) SEMI(S). {
  lp_return_stat(ctx, &R, &E); A = tend(&S); lp_pop_exps(ctx, &E);
}

/* ---- statements ---------------------------------------------------- */

stat(A) ::= SEMI(S). { size_t off = S.off, end = tend(&S); A.off = off; A.end = end; A.kind = 2; /*A-overwrites-S*/ }

/* stat -> varlist '=' explist */
stat(A) ::= varlist(V) ASSIGN explist(E). {
  lp_assign_names(ctx, V, &E, 0);
  A.off = ctx->names[V.base].off; A.end = E.end; A.kind = 0;
  lp_pop_exps(ctx, &E); lp_pop_names(ctx, V);
}

/* stat -> functioncall  (a prefix expression that must end in a call) */
stat(A) ::= prefixexp(P). [LOWEST] {
  if (P.kind != EK_CALL) lp_error(ctx, "syntax error");
  A.off = P.off; A.end = P.end; A.kind = 0;
}

/* stat -> '::' NAME '::' */
stat(A) ::= DBCOLON(L) NAME(N) DBCOLON(R). {
  sc_label(ctx, &L, &N, &R); A.off = L.off; A.end = tend(&R); A.kind = 1;
}
stat(A) ::= BREAK(B). { sc_break(ctx, &B); A.off = B.off; A.end = tend(&B); A.kind = 0; }
stat(A) ::= GOTO(G) NAME(N). { sc_goto(ctx, &G, &N); A.off = G.off; A.end = tend(&N); A.kind = 0; }

/* stat -> DO block END */
stat(A) ::= DO(D) block END(E). { A.off = D.off; A.end = tend(&E); A.kind = 0; }

/* stat -> WHILE exp DO block END  (the loop's block holds the body's:
** a break inside ends there, as lparser.c's enterblock(isloop)) */
%type whilehead {size_t}
stat(A) ::= whilehead(W) block END(E). { sc_block_close(ctx); A.off = W; A.end = tend(&E); A.kind = 0; }
whilehead(A) ::= WHILE(W) exp DO. { sc_loop_open(ctx); A = W.off; }

/* stat -> REPEAT body UNTIL exp  (the condition sees the body's locals) */
%type rpthead {size_t}
stat(A) ::= rpthead(R) statlist UNTIL exp(X). {
  sc_block_close(ctx); A.off = R; A.end = X.end; A.kind = 0;
}
stat(A) ::= rpthead(R) statlist retstat UNTIL exp(X). {
  sc_block_close(ctx); A.off = R; A.end = X.end; A.kind = 0;
}
rpthead(A) ::= REPEAT(R). { sc_loop_open(ctx); A = R.off; }

/* stat -> IF exp THEN block {ELSEIF exp THEN block} [ELSE block] END */
stat(A) ::= ifhead(H) END(E). { A.off = H; A.end = tend(&E); A.kind = 0; }
stat(A) ::= ifhead(H) ELSE block END(E). { A.off = H; A.end = tend(&E); A.kind = 0; }
ifhead(A) ::= IF(I) exp THEN block. { A = I.off; }
ifhead(A) ::= ifhead(H) ELSEIF exp THEN block. { A = H; }

/* stat -> FOR NAME '=' exp ',' exp [',' exp] DO block END */
stat(A) ::= fornum(F) block END(E). { sc_block_close(ctx); A.off = F; A.end = tend(&E); A.kind = 0; }
stat(A) ::= forin(F) block END(E). { sc_block_close(ctx); A.off = F; A.end = tend(&E); A.kind = 0; }
%type fornum {size_t}
%type forin {size_t}
fornum(A) ::= FOR(F) NAME(N) ASSIGN exp COMMA exp DO. {
  sc_loop_open(ctx); sc_declare_hidden(ctx, 3); sc_declare(ctx, N.off, N.len, 0); A = F.off;
}
fornum(A) ::= FOR(F) NAME(N) ASSIGN exp COMMA exp COMMA exp DO. {
  sc_loop_open(ctx); sc_declare_hidden(ctx, 3); sc_declare(ctx, N.off, N.len, 0); A = F.off;
}
/* stat -> FOR namelist IN explist DO block END */
forin(A) ::= FOR(F) namelist(L) IN explist(E) DO. {
  lp_pop_exps(ctx, &E);
  sc_loop_open(ctx); sc_declare_hidden(ctx, ctx->version >= 54 ? 4 : 3);
  sc_declare_names(ctx, L); lp_pop_names(ctx, L); A = F.off;
}

/* stat -> FUNCTION funcname funcbody */
stat(A) ::= FUNCTION(F) funcname(N) funcbody(B). {
  /* 5.4: `function x()` assigns to x, which may be <const> (after the body) */
  if (N.kind == EK_CONST)
    lp_assign_const(ctx, N.off, N.end - N.off, ctx->funcs[B].end_off + 3, ctx->funcs[B].lastline);
  A.off = F.off; A.end = ctx->funcs[B].end_off + 3; A.kind = 0;
}
/* funcname -> NAME {'.' NAME} [':' NAME]; the first NAME is a variable
** use; the kind EK_CONST: a lone name that is a <const> or <close> local */
funcname(A) ::= NAME(N). {
  int local = sc_use(ctx, N.off, N.len);
  A = span(N.off, tend(&N), ctx);
  if (local == 2) A.kind = EK_CONST;
  lp_set_pending_name(ctx, A.off, A.end - A.off, NULL);
}
funcname(A) ::= funcname(B) DOT NAME(N). {
  A = B; A.kind = EK_OTHER; A.end = tend(&N); lp_set_pending_name(ctx, A.off, A.end - A.off, NULL);
}
funcname(A) ::= funcname(B) COLON NAME(N). {
  A = B; A.kind = EK_OTHER; A.end = tend(&N); lp_set_pending_name(ctx, A.off, A.end - A.off, NULL);
  ctx->pending_self = 1;
}

/* stat -> LOCAL FUNCTION NAME funcbody  (the name is in scope in the body) */
stat(A) ::= lfhead(H) funcbody(B). {
  A.off = H; A.end = ctx->funcs[B].end_off + 3; A.kind = 0;
}
%type lfhead {size_t}
lfhead(A) ::= LOCAL(L) FUNCTION NAME(N). {
  sc_declare(ctx, N.off, N.len, 0);
  lp_set_pending_name(ctx, N.off, N.len, "local ");
  A = L.off;
}

/* stat -> LOCAL attnamelist ['=' explist] */
stat(A) ::= LOCAL(L) attnamelist(N). {
  sc_declare_names(ctx, N);
  A.off = L.off; A.end = ctx->names[N.base + N.n - 1].off + ctx->names[N.base + N.n - 1].len;
  A.kind = 0; lp_pop_names(ctx, N);
}
stat(A) ::= LOCAL(L) attnamelist(N) ASSIGN explist(E). {
  lp_assign_names(ctx, N, &E, 1);
  sc_declare_names(ctx, N);
  A.off = L.off; A.end = E.end; A.kind = 0;
  lp_pop_exps(ctx, &E); lp_pop_names(ctx, N);
}
attnamelist(A) ::= NAME(N). {
  A.base = ctx->nnames; A.n = 1; lp_push_name(ctx, N.off, N.len, N.line, 0, 1);
}
attnamelist(A) ::= NAME(N) LT(L) NAME(T) GT(G). {
  lp_names none = {ctx->nnames, 0};
  A.base = ctx->nnames; A.n = 1;
  lp_push_name(ctx, N.off, N.len, N.line, lp_attrib(ctx, none, &L, &T, &G), 1);
}
attnamelist(A) ::= attnamelist(L) COMMA NAME(N). {
  A = L; A.n++; lp_push_name(ctx, N.off, N.len, N.line, 0, 1);
}
attnamelist(A) ::= attnamelist(L) COMMA NAME(N) LT(B) NAME(T) GT(G). {
  int a = lp_attrib(ctx, L, &B, &T, &G);
  A = L; A.n++; lp_push_name(ctx, N.off, N.len, N.line, a, 1);
}

namelist(A) ::= NAME(N). { A.base = ctx->nnames; A.n = 1; lp_push_name(ctx, N.off, N.len, N.line, 0, 1); }
namelist(A) ::= namelist(L) COMMA NAME(N). { A = L; A.n++; lp_push_name(ctx, N.off, N.len, N.line, 0, 1); }

/* varlist -> var {',' var}: the var texts name assigned functions */
varlist(A) ::= var(V). {
  A.base = ctx->nnames; A.n = 1; lp_push_name(ctx, V.off, V.end - V.off, 0, 0, V.oneline);
}
varlist(A) ::= varlist(L) COMMA var(V). {
  A = L; A.n++; lp_push_name(ctx, V.off, V.end - V.off, 0, 0, V.oneline);
}

/* ---- functions ----------------------------------------------------- */

/* funcbody -> '(' parlist ')' body END */
funcbody(A) ::= fbparams(F) statlist(S) END(E). {
  lp_func_close(ctx, F, &S, &E); A = F;
}
funcbody(A) ::= fbparams(F) statlist(S) retstat(R) END(E). {
  lp_body b = body_ret(S, R); lp_func_close(ctx, F, &b, &E); A = F;
}
fbparams(A) ::= fbopen(F) parlist(V) RPAREN(R). {
  /* lemon may reduce this while `)` is still the token being fed: the
  ** driver stamps the offset of the token after it */
  (void)V; A = F; ctx->pending_body = F + 1; ctx->pending_after = tend(&R);
}
fbopen(A) ::= LPAREN(P). { A = lp_func_open(ctx, P.line); }

parlist(A) ::= . { lp_names n = {ctx->nnames, 0}; lp_func_params_done(ctx, n, 0); A = 0; }
parlist(A) ::= namelist(N). { lp_func_params_done(ctx, N, 0); lp_pop_names(ctx, N); A = 0; }
parlist(A) ::= namelist(N) COMMA DOTS. { lp_func_params_done(ctx, N, 1); lp_pop_names(ctx, N); A = 1; }
parlist(A) ::= DOTS. { lp_names n = {ctx->nnames, 0}; lp_func_params_done(ctx, n, 1); A = 1; }

/* ---- expressions --------------------------------------------------- */

exp(A) ::= NIL(T). { A = span(T.off, tend(&T), ctx); A.kind = EK_CONST; A.oneline = 1; }
exp(A) ::= FALSE(T). { A = span(T.off, tend(&T), ctx); A.kind = EK_CONST; A.oneline = 1; }
exp(A) ::= TRUE(T). { A = span(T.off, tend(&T), ctx); A.kind = EK_CONST; A.oneline = 1; }
exp(A) ::= NUMBER(T). { A = span(T.off, tend(&T), ctx); A.kind = EK_CONST; A.oneline = 1; }
exp(A) ::= STRING(T). { A = span(T.off, tend(&T), ctx); A.kind = EK_CONST; A.oneline = T.line == T.lastline; }
exp(A) ::= LONGSTRING(T). { A = span(T.off, tend(&T), ctx); A.kind = EK_CONST; A.oneline = T.line == T.lastline; }
exp(A) ::= DOTS(T). {
  A = span(T.off, tend(&T), ctx); A.kind = EK_VARARG; A.oneline = 1;
  if (ctx->nfstack) ctx->funcs[ctx->fstack[ctx->nfstack - 1]].dots = 1;
}
exp(A) ::= FUNCTION(T) funcbody(B). {
  A = span(T.off, ctx->funcs[B].end_off + 3, ctx); A.kind = EK_FUNC; A.func = B;
}
exp(A) ::= prefixexp(A). [LOWEST]
exp(A) ::= tablecons(A).

exp(A) ::= exp(A) OR exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) AND exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) LT exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) GT exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) LE exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) GE exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) NE exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) EQ exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) PIPE exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) TILDE exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) AMP exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) SHL exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) SHR exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) CONCAT exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) PLUS exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) MINUS exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) STAR exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) SLASH exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) DSLASH exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) PERCENT exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= exp(A) CARET exp(R). { A = span(A.off, R.end, ctx); }
exp(A) ::= NOT(T) exp(R). { A = span(T.off, R.end, ctx); }
exp(A) ::= HASH(T) exp(R). { A = span(T.off, R.end, ctx); }
exp(A) ::= MINUS(T) exp(R). [UNARY] { A = span(T.off, R.end, ctx); }
exp(A) ::= TILDE(T) exp(R). [UNARY] { A = span(T.off, R.end, ctx); }

/* prefixexp -> NAME | prefixexp '.' NAME | prefixexp '[' exp ']'
**            | prefixexp args | prefixexp ':' NAME args | '(' exp ')'
** A name or a field is a `var` only where it is assigned to (varlist);
** everywhere else it reduces straight to prefixexp, one reduction fewer
** per name and per field than `var` followed by `prefixexp ::= var`.
** Both build their value with the same helper. */
prefixexp(A) ::= NAME(N). { A = name_exp(ctx, N); /*A-overwrites-N*/ }
prefixexp(A) ::= prefixexp(A) DOT NAME(N). { A = field_exp(A, N, ctx); }
prefixexp(A) ::= prefixexp(A) LBRACKET exp RBRACKET(R). { A = index_exp(A, R, ctx); }
prefixexp(A) ::= LPAREN(L) exp(E) RPAREN(R). {
  A = span(L.off, tend(&R), ctx); A.kind = EK_PAREN; A.oneline = E.oneline && L.line == R.line;
}

/* Calls.  args -> '(' [explist] ')' | tablecons | STRING is spelled out in
** each call rule rather than reduced on its own: one reduction fewer per
** call.  The result carries the argument range in args_off/args_end. */
prefixexp(A) ::= prefixexp(A) LPAREN(L) RPAREN(R). {
  A = call_exp(A.off, L.off, tend(&R), '(', LP_CALL_EMPTY | callee_pure(&A), 1, ctx);
}
prefixexp(A) ::= prefixexp(A) LPAREN(L) explist(E) RPAREN(R). {
  int fl = args_flags(ctx, &E) & (LP_CALL_MULTI | callee_pure(&A));
  uint32_t regs = 1 + lp_explist_regs(ctx, &E);
  lp_pop_exps(ctx, &E); A = call_exp(A.off, L.off, tend(&R), '(', fl, regs, ctx);
}
prefixexp(A) ::= prefixexp(A) tablecons(T). {
  A = call_exp(A.off, T.off, T.end, '{', split_flag(ctx, A.end, T.off), 2, ctx);
}
prefixexp(A) ::= prefixexp(A) STRING(S). {
  int fl = callee_pure(&A) | split_flag(ctx, A.end, S.off);
  A = call_exp(A.off, S.off, tend(&S), 's', fl, 2, ctx);
}
prefixexp(A) ::= prefixexp(A) LONGSTRING(S). {
  int fl = callee_pure(&A) | split_flag(ctx, A.end, S.off);
  A = call_exp(A.off, S.off, tend(&S), 's', fl, 2, ctx);
}
/* method calls: prefixexp ':' NAME args (the method lookup may run code) */
prefixexp(A) ::= prefixexp(A) COLON NAME LPAREN(L) RPAREN(R). {
  A = call_exp(A.off, L.off, tend(&R), '(', LP_CALL_EMPTY, 2, ctx);
}
prefixexp(A) ::= prefixexp(A) COLON NAME LPAREN(L) explist(E) RPAREN(R). {
  int fl = args_flags(ctx, &E) & LP_CALL_MULTI;
  uint32_t regs = 2 + lp_explist_regs(ctx, &E);          /* function, self */
  lp_pop_exps(ctx, &E); A = call_exp(A.off, L.off, tend(&R), '(', fl, regs, ctx);
}
prefixexp(A) ::= prefixexp(A) COLON NAME(N) tablecons(T). {
  A = call_exp(A.off, T.off, T.end, '{', split_flag(ctx, tend(&N), T.off), 3, ctx);
}
prefixexp(A) ::= prefixexp(A) COLON NAME(N) STRING(S). {
  A = call_exp(A.off, S.off, tend(&S), 's', split_flag(ctx, tend(&N), S.off), 3, ctx);
}
prefixexp(A) ::= prefixexp(A) COLON NAME(N) LONGSTRING(S). {
  A = call_exp(A.off, S.off, tend(&S), 's', split_flag(ctx, tend(&N), S.off), 3, ctx);
}

/* var -> NAME | prefixexp '.' NAME | prefixexp '[' exp ']' */
var(A) ::= NAME(N). { A = assigned_exp(ctx, N); /*A-overwrites-N*/ }
var(A) ::= prefixexp(A) DOT NAME(N). { A = field_exp(A, N, ctx); }
var(A) ::= prefixexp(A) LBRACKET exp RBRACKET(R). { A = index_exp(A, R, ctx); }

/* explist -> exp {',' exp} */
explist(A) ::= exp(E). {
  uint32_t off = E.off, end = E.end, base = ctx->nexps;
  lp_push_exp(ctx, &E);
  A.off = off; A.end = end; A.n = 1; A.base = base; /*A-overwrites-E*/
}
explist(A) ::= explist(A) COMMA exp(E). {
  A.end = E.end; A.n++; lp_push_exp(ctx, &E);
}

/* tablecons -> '{' [fieldlist [fieldsep]] '}' */
tablecons(A) ::= LBRACE(L) RBRACE(R). { A = span(L.off, tend(&R), ctx); A.kind = EK_TABLE; }
tablecons(A) ::= LBRACE(L) fieldlist RBRACE(R). { A = span(L.off, tend(&R), ctx); A.kind = EK_TABLE; }
/* fieldsep -> ',' | ';' is spelled out in place: one reduction fewer per
** field (the stack keeps the same depth: the token takes fieldsep's place) */
tablecons(A) ::= LBRACE(L) fieldlist COMMA RBRACE(R). { A = span(L.off, tend(&R), ctx); A.kind = EK_TABLE; }
tablecons(A) ::= LBRACE(L) fieldlist SEMI RBRACE(R). { A = span(L.off, tend(&R), ctx); A.kind = EK_TABLE; }
fieldlist ::= field.
fieldlist ::= fieldlist COMMA field.
fieldlist ::= fieldlist SEMI field.
/* field -> '[' exp ']' '=' exp | NAME '=' exp | exp; a function value is
** named after its key */
field ::= LBRACKET(L) exp RBRACKET(R) ASSIGN exp(V). {
  if (V.kind == EK_FUNC && L.line == R.lastline)
    lp_name_func(ctx, V.func, NULL, L.off, tend(&R) - L.off);
}
field ::= NAME(N) ASSIGN exp(V). {
  if (V.kind == EK_FUNC) lp_name_func(ctx, V.func, NULL, N.off, N.len);
}
field ::= exp.

/* The driver's token loop (lp_parse in parse.c sets up the context and
** the lexer), here because lemon's parser is in this file. */
%code {
/* Lexer kinds to lemon token codes.  ORDER TOKENS (lex.h). */
static const unsigned char tokmap[LX_NKINDS] = {
  0, 0,
  TK_AND, TK_BREAK, TK_DO, TK_ELSE, TK_ELSEIF, TK_END, TK_FALSE, TK_FOR,
  TK_FUNCTION, TK_GOTO, TK_IF, TK_IN, TK_LOCAL, TK_NIL, TK_NOT, TK_OR,
  TK_REPEAT, TK_RETURN, TK_THEN, TK_TRUE, TK_UNTIL, TK_WHILE,
  TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_DSLASH, TK_PERCENT, TK_CARET,
  TK_HASH, TK_AMP, TK_TILDE, TK_PIPE, TK_SHL, TK_SHR, TK_CONCAT, TK_DOTS,
  TK_EQ, TK_NE, TK_LE, TK_GE, TK_LT, TK_GT, TK_ASSIGN, TK_LPAREN,
  TK_RPAREN, TK_LBRACE, TK_RBRACE, TK_LBRACKET, TK_RBRACKET, TK_DBCOLON,
  TK_SEMI, TK_COLON, TK_COMMA, TK_DOT,
  TK_NAME, TK_NUMBER, TK_STRING, TK_LONGSTRING
};

/* Note names that could collide with the probe's local (__LI, __LI<k>). */
static void note_name(lp_ctx *ctx, const lp_tok *t) {
  const char *s = ctx->src + t->off;
  if (t->len < 4 || t->len > 6 || memcmp(s, "__LI", 4) != 0) return;
  if (t->len == 4) { ctx->li_used |= 1; return; }
  unsigned k = 0;
  for (size_t i = 4; i < t->len; i++) {
    if (s[i] < '0' || s[i] > '9') return;
    k = k * 10 + (unsigned)(s[i] - '0');
  }
  if (k < 64 && !(t->len > 5 && s[4] == '0')) ctx->li_used |= (uint64_t)1 << k;
}

/* A body's first token: lemon reduces the parameter list either when `)`
** is fed (shift-reduce) or when the token after it is; either way the body
** starts at the first token past the `)`. */
static void stamp_body(lp_ctx *ctx, size_t off) {
  if (ctx->pending_body && off >= ctx->pending_after) {
    ctx->funcs[ctx->pending_body - 1].body_off = off;
    ctx->pending_body = 0;
  }
}

int lp_run(lp_ctx *ctx, lx_state *ls) {
  void *p = LuaParseAlloc(malloc);
  if (p == NULL) { lp_oom(ctx); return ctx->error; }
  /* The lexer writes straight into ctx->la (the lookahead lp_error
  ** quotes); the parser gets a 16-byte copy read field by field.  Copying
  ** the whole lx_token right after the lexer's narrow stores would stall
  ** on store forwarding, once per token. */
  lx_token *tok = &ctx->la;
  for (;;) {
    int k = lx_next(ls, tok);
    if (k == LX_ERROR) {
      if (!ctx->error) {
        ctx->error = 1;
        ctx->errline = ls->errline;
        snprintf(ctx->errmsg, sizeof ctx->errmsg, "%s",
                 ls->errmsg ? ls->errmsg : "lexical error");
      }
      break;
    }
    lp_tok t;
    t.off = (uint32_t)tok->off;
    t.len = (uint32_t)tok->len;
    t.line = tok->line;
    t.lastline = tok->lastline;
    stamp_body(ctx, t.off);
    if (k != LX_EOF) {
      if (!ctx->seen_token) {
        ctx->seen_token = 1;
        ctx->funcs[0].body_off = t.off;
      }
      if (k == LX_FUNCTION) ctx->last_function_line = t.line;
      else if (k == LX_NAME) note_name(ctx, &t);
      if (ctx->nfstack) {       /* (the rewriter's counted functions) */
        lp_func *fn = &ctx->funcs[ctx->fstack[ctx->nfstack - 1]];
        fn->ntok++;
        if (k == LX_WHILE || k == LX_REPEAT || k == LX_FOR || k == LX_GOTO)
          fn->loops = 1;
      }
    }
    LuaParse(p, tokmap[k], t, ctx);   /* the only call: inlined */
    if (k == LX_EOF) break;
    stamp_body(ctx, t.off);
    if (ctx->error) break;
    ctx->last_end = (size_t)t.off + t.len;
  }
  LuaParseFree(p, free);
  return ctx->error;
}
}
