/*
** parse.c -- sets up the parse of one chunk (the token loop itself, lp_run,
** is in lua_grammar.y next to lemon's parser, which it inlines), and holds
** the helpers the grammar actions call to record functions, returns and
** names.  No recursion anywhere: nesting depth lives on lemon's stack,
** which is capped here.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Most entries lemon's stack may hold: far beyond any chunk Lua accepts
** (Lua stops at 200 nested levels), small enough that 100,000 nested
** parentheses end in an error instead of a big allocation.  It was 2 MiB
** of 72-byte entries; it stays at that many entries now that they are
** smaller, so that every input fails (or not) at the same token. */
#define LP_STACK_MAX_ENTRIES (((size_t)2 << 20) / 72)

void *lp_stack_malloc(size_t n, size_t entry) {
  return n / entry > LP_STACK_MAX_ENTRIES ? NULL : malloc(n);
}

void *lp_stack_realloc(void *p, size_t n, size_t entry) {
  return n / entry > LP_STACK_MAX_ENTRIES ? NULL : realloc(p, n);
}

/* ---- growable arrays -------------------------------------------------- */

/* Make room for one more element of size `sz` in *arr (count n, cap *cap). */
static int grow(lp_ctx *ctx, void **arr, uint32_t n, uint32_t *cap, size_t sz) {
  if (n < *cap) return 1;
  uint32_t nc = *cap ? *cap * 2 : 16;
  void *p = realloc(*arr, (size_t)nc * sz);
  if (p == NULL) { lp_oom(ctx); return 0; }
  *arr = p; *cap = nc;
  return 1;
}
#define GROW(ctx, a, n, cap) grow(ctx, (void **)&(a), n, &(cap), sizeof *(a))

/* Append bytes to the name buffer; returns their offset or LP_NONE. */
static size_t addstr(lp_ctx *ctx, const char *prefix, const char *s, size_t len) {
  size_t plen = prefix ? strlen(prefix) : 0;
  size_t need = ctx->nstr + plen + len;
  if (need > ctx->capstr) {
    size_t nc = ctx->capstr ? ctx->capstr * 2 : 1024;
    while (nc < need) nc *= 2;
    char *p = realloc(ctx->strbuf, nc);
    if (p == NULL) { lp_oom(ctx); return LP_NONE; }
    ctx->strbuf = p; ctx->capstr = nc;
  }
  size_t at = ctx->nstr;
  if (plen) memcpy(ctx->strbuf + at, prefix, plen);
  memcpy(ctx->strbuf + at + plen, s, len);
  ctx->nstr = need;
  return at;
}

/* ---- errors ------------------------------------------------------------ */

void lp_error(lp_ctx *ctx, const char *msg) {
  if (ctx->error) return;
  ctx->error = 1;
  ctx->errline = ctx->la.line;
  if (ctx->la.kind == LX_EOF)
    snprintf(ctx->errmsg, sizeof ctx->errmsg, "%s near <eof>", msg);
  else {
    int n = ctx->la.len > 24 ? 24 : (int)ctx->la.len;
    snprintf(ctx->errmsg, sizeof ctx->errmsg, "%s near '%.*s'", msg, n,
             ctx->src + ctx->la.off);
  }
}

/* A syntax error the grammar cannot see, at `line`, in Lua's words. */
void lp_error_at(lp_ctx *ctx, uint32_t line, const char *msg) {
  if (ctx->error) return;
  ctx->error = 1;
  ctx->errline = line;
  snprintf(ctx->errmsg, sizeof ctx->errmsg, "%s", msg);
}

void lp_oom(lp_ctx *ctx) {
  if (ctx->error == 2) return;
  ctx->error = 2;
  ctx->errline = ctx->la.line;
  snprintf(ctx->errmsg, sizeof ctx->errmsg, "not enough memory");
}

/* ---- functions --------------------------------------------------------- */

static uint32_t new_func(lp_ctx *ctx) {
  if (!GROW(ctx, ctx->funcs, ctx->nfuncs, ctx->capfuncs)) return 0;
  if (!GROW(ctx, ctx->fstack, ctx->nfstack, ctx->capfstack)) return 0;
  uint32_t f = ctx->nfuncs++;
  lp_func *fn = &ctx->funcs[f];
  memset(fn, 0, sizeof *fn);
  fn->parent = ctx->nfstack ? ctx->fstack[ctx->nfstack - 1] : 0;
  fn->body_off = fn->end_off = fn->trail_off = LP_NONE;
  fn->name_off = LP_NONE;
  ctx->fstack[ctx->nfstack++] = f;
  return f;
}

/* Most functions one function may hold directly, as each Lua counts them
** (its prototypes' vector, grown by luaM_growvector up to MAXARG_Bx, which
** fails on the one past it): 5.4 has an 17-bit Bx, 5.1-5.3 an 18-bit one.
** LuaJIT keeps child prototypes among a function's GC constants, at most
** BCMAX_D + 1 = 65536 of them (lj_parse.c fs_fixup_k), shared with its
** strings and table templates: more functions alone are surely rejected,
** fewer with many strings are rejected too but are left to the compile
** (it fails, and the loader then compiles the original). */
uint32_t lp_max_children(int version) {
  switch (version) {
  case 54: return (1u << 17) - 1;
  case LX_LUAJIT: return 1u << 16;
  default: return (1u << 18) - 1;
  }
}

/* A function is nested in the innermost open one: count it there, and stop
** the parse, as Lua's compiler does, at the first one past the limit (a
** chunk Lua rejects costs its rejection and the rewriter's scan, no
** rewrite and no second compile). */
static int count_child(lp_ctx *ctx) {
  if (ctx->nfstack == 0) return 1;
  lp_func *parent = &ctx->funcs[ctx->fstack[ctx->nfstack - 1]];
  uint32_t limit = lp_max_children(ctx->version);
  if (++parent->nchildren <= limit) return 1;
  ctx->error = LP_ELIMIT;
  ctx->errline = ctx->la.line;
  snprintf(ctx->errmsg, sizeof ctx->errmsg, "too many functions (limit is %lu)",
           (unsigned long)limit);
  return 0;
}

/* fbopen -> '(' : a function body starts; its `function` keyword was the
** last one seen, and a pending name (funcname, local function) is its.
** Its line is Lua's linedefined: the `function` keyword's for a
** `function funcname` statement, the `(`'s (at `line`) for a local
** function and a function expression (lparser.c passes ls->linenumber
** there), which differ when the header spans lines. */
uint32_t lp_func_open(lp_ctx *ctx, uint32_t line) {
  int stat = ctx->pending_name != LP_NONE && ctx->pending_stat;
  if (ctx->error || !count_child(ctx)) return 0;
  uint32_t f = new_func(ctx);
  if (ctx->error) return 0;
  lp_func *fn = &ctx->funcs[f];
  fn->line = stat ? ctx->last_function_line : line;
  if (ctx->pending_name != LP_NONE) {
    fn->name_off = ctx->pending_name;
    fn->name_len = ctx->pending_len;
    ctx->pending_name = LP_NONE;
  }
  sc_func_open(ctx, f);
  return f;
}

/* parlist reduced: declare `self` for methods, then the parameters. */
void lp_func_params_done(lp_ctx *ctx, lp_names params, int vararg) {
  (void)vararg;
  if (ctx->pending_self) {
    sc_declare(ctx, LP_NONE, 4, 0);
    ctx->pending_self = 0;
  }
  sc_declare_names(ctx, params);
}

/* funcbody (or the chunk) reduced: record where the body ends. */
void lp_func_close(lp_ctx *ctx, uint32_t f, const lp_body *b, const lp_tok *end) {
  if (ctx->error) return;
  lp_func *fn = &ctx->funcs[f];
  if (end) {
    fn->end_off = end->off;
    fn->lastline = end->line;
  } else {                                  /* main chunk: up to EOF */
    fn->end_off = ctx->seen_token ? ctx->last_end : fn->body_off;
  }
  fn->trail_off = b->trail_off;
  fn->ends_return = b->ends_return;
  sc_func_close(ctx, f, end);
  if (ctx->nfstack) ctx->nfstack--;
}

void lp_set_pending_name(lp_ctx *ctx, size_t off, size_t len, const char *prefix) {
  ctx->pending_name = addstr(ctx, prefix, ctx->src + off, len);
  ctx->pending_len = (uint32_t)(len + (prefix ? strlen(prefix) : 0));
  ctx->pending_stat = prefix == NULL;
}

/* Name function f after source text, unless it has a name already. */
void lp_name_func(lp_ctx *ctx, uint32_t f, const char *prefix, size_t off, size_t len) {
  if (ctx->error || f >= ctx->nfuncs || ctx->funcs[f].name_off != LP_NONE) return;
  if (len > 80) return;                     /* too long to be a name */
  size_t at = addstr(ctx, prefix, ctx->src + off, len);
  if (at == LP_NONE) return;
  ctx->funcs[f].name_off = at;
  ctx->funcs[f].name_len = (uint32_t)(len + (prefix ? strlen(prefix) : 0));
}

/* ---- name and expression stacks ----------------------------------------- */

void lp_push_name(lp_ctx *ctx, size_t off, size_t len, uint32_t line, int attrib,
                  int simple) {
  if (!GROW(ctx, ctx->names, ctx->nnames, ctx->capnames)) return;
  lp_name *n = &ctx->names[ctx->nnames++];
  n->off = off; n->len = len; n->line = line;
  n->attrib = (uint8_t)attrib; n->simple = (uint8_t)simple;
}

void lp_pop_names(lp_ctx *ctx, lp_names n) {
  if (n.base <= ctx->nnames) ctx->nnames = n.base;
}

void lp_push_exp(lp_ctx *ctx, const lp_exp *e) {
  if (!GROW(ctx, ctx->exps, ctx->nexps, ctx->capexps)) return;
  ctx->exps[ctx->nexps++] = *e;
}

void lp_pop_exps(lp_ctx *ctx, const lp_explist *el) {
  if (el->base <= ctx->nexps) ctx->nexps = el->base;
}

/* Does evaluating the list run no code (only locals, literals, `...`)? */
int lp_explist_pure(const lp_ctx *ctx, const lp_explist *el) {
  if (ctx->error) return 0;
  for (uint32_t i = 0; i < el->n; i++) {
    uint8_t k = ctx->exps[el->base + i].kind;
    if (k != EK_LOCAL && k != EK_CONST && k != EK_VARARG) return 0;
  }
  return 1;
}

/* Registers that evaluating the list into consecutive registers needs,
** counted as Lua's code generator goes for calls: the i-th value sits at
** base + i, a call there needs its function and its arguments above it
** (EK_CALL's `func`), anything else one register (a lower bound for deep
** operator nesting, which the loader's fallback catches). */
uint32_t lp_explist_regs(const lp_ctx *ctx, const lp_explist *el) {
  uint32_t need = 0;
  if (ctx->error) return 0;
  for (uint32_t i = 0; i < el->n; i++) {
    const lp_exp *e = &ctx->exps[el->base + i];
    uint32_t r = i + (e->kind == EK_CALL ? e->func : 1);
    if (r > need) need = r;
  }
  return need;
}

/* attnamelist's NAME '<' NAME '>' (t the attribute, lt and gt the
** brackets; prev the names before it in the list): `<const>` or `<close>`.
** Only 5.4 has attributes: in the other dialects a `<` after a local's
** name starts a statement, which it cannot ("unexpected symbol"). */
int lp_attrib(lp_ctx *ctx, lp_names prev, const lp_tok *lt, const lp_tok *t,
              const lp_tok *gt) {
  if (ctx->version != 54) {
    lp_error_at(ctx, lt->line, "unexpected symbol near '<'");
    return 0;
  }
  const char *s = ctx->src + t->off;
  int a = 0;
  if (t->len == 5 && memcmp(s, "const", 5) == 0) a = 'c';
  else if (t->len == 5 && memcmp(s, "close", 5) == 0) a = 'x';
  /* lparser.c checks both once past the `>` (getlocalattribute, localstat) */
  size_t after = (size_t)gt->off + gt->len;
  if (a == 0) {
    uint32_t line = lp_line_after(ctx, after, gt->lastline);
    if (line) lp_reject(ctx, line, "unknown attribute '%.*s'", (int)t->len, s);
  } else if (a == 'x') {
    for (uint32_t i = 0; i < prev.n && !ctx->error; i++) {
      if (ctx->names[prev.base + i].attrib != 'x') continue;
      uint32_t line = lp_line_after(ctx, after, gt->lastline);
      if (line) lp_reject(ctx, line, "multiple to-be-closed variables in local list");
    }
  }
  return a;
}

/* A <const> or <close> local (or an upvalue of one) named src[off, off +
** len) is assigned to: 5.4 rejects it with the token after `after` (on
** line `line`) as its lookahead (restassign, funcstat: check_readonly). */
void lp_assign_const(lp_ctx *ctx, size_t off, size_t len, size_t after, uint32_t line) {
  if (ctx->error || ctx->version != 54) return;
  if ((line = lp_line_after(ctx, after, line)) != 0)
    lp_reject(ctx, line, "attempt to assign to const variable '%.*s'", (int)len,
              ctx->src + off);
}

/* Name the functions of `a, b = function..., function...`. */
void lp_assign_names(lp_ctx *ctx, lp_names vars, const lp_explist *el, int local) {
  uint32_t n = vars.n < el->n ? vars.n : el->n;
  if (ctx->error) return;
  for (uint32_t i = 0; i < n; i++) {
    const lp_exp *e = &ctx->exps[el->base + i];
    const lp_name *v = &ctx->names[vars.base + i];
    if (e->kind != EK_FUNC || !v->simple) continue;
    lp_name_func(ctx, e->func, local ? "local " : NULL, v->off, v->len);
  }
}

/* ---- statements -------------------------------------------------------- */

void lp_body_add(lp_body *b, const lp_stat *s) {
  if (s->kind == 1) {                       /* label: may start a trailing run */
    if (b->trail_off == LP_NONE) b->trail_off = s->off;
  } else if (s->kind != 2) {                /* `;` keeps a run going */
    b->trail_off = LP_NONE;
  }
  b->last_end = s->end;
}

/* Registers a probed return needs beyond the original's: the probe function
** and its 0 (`P(0, ...)`), or the probe call after a tail call's arguments.  Leave headroom for the temporaries Lua's code generator
** may use on top (MAXREGS is 255).  LuaJIT has fewer (a frame of at most
** LJ_MAX_SLOTS - 1 = 249 slots), and with 64-bit GC references (LJ_FR2,
** Debian's x86-64 build) a call takes a slot more before its arguments. */
#define LP_REG_LIMIT 255
#define LP_REG_LIMIT_JIT 250
#define LP_REG_HEADROOM 4

void lp_return_stat(lp_ctx *ctx, const lp_tok *ret, const lp_explist *el) {
  if (ctx->error || ctx->nfstack == 0) return;
  if (!GROW(ctx, ctx->rets, ctx->nrets, ctx->caprets)) return;
  uint32_t f = ctx->fstack[ctx->nfstack - 1];
  lp_return *r = &ctx->rets[ctx->nrets++];
  memset(r, 0, sizeof *r);
  r->func = f;
  r->ret_off = ret->off;
  r->ret_end = ret->off + ret->len;
  r->n = el->n;
  r->exp_off = el->off;
  r->exp_end = el->end;
  /* `return f(x)` is a tail call unless a <close> variable is active
  ** (Lua 5.4 then compiles it as an ordinary call). */
  const lp_exp *only = el->n == 1 ? &ctx->exps[el->base] : NULL;
  if (only && only->kind == EK_CALL && !sc_close_active(ctx)) {
    r->tail = 1;
    r->args_off = only->args_off;
    r->args_end = only->args_end;
    r->args_kind = only->args_kind;
    r->call = only->call;
  }
  if (el->n > 0) {
    uint8_t k = ctx->exps[el->base + el->n - 1].kind;
    r->multi = (uint8_t)(k == EK_CALL || k == EK_VARARG);
  }
  r->pure = (uint8_t)(lp_explist_pure(ctx, el) || (r->tail && (r->call & LP_CALL_PURE)));
  int jit = ctx->version == LX_LUAJIT;
  if (sc_active(ctx) + lp_explist_regs(ctx, el) + 2 + (uint32_t)jit + LP_REG_HEADROOM >
      (jit ? LP_REG_LIMIT_JIT : LP_REG_LIMIT)) {
    ctx->funcs[f].noprobe = 1;
    ctx->funcs[f].reason = "a probed return would need too many registers";
  }
}

/* ---- what Lua rejects after parsing ------------------------------------ */

void lp_reject(lp_ctx *ctx, uint32_t line, const char *fmt, ...) {
  if (ctx->error || !ctx->checks) return;
  ctx->error = LP_EREJECT;
  ctx->errline = line;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
  va_end(ap);
}

/* Lexed again from `off` with a lexer of its own: only on the way to an
** error, never once a token. */
int lp_peek(const lp_ctx *ctx, size_t off, uint32_t line, lx_token *t) {
  lx_state ls;
  lx_init(&ls, ctx->src, ctx->srclen, off, line, ctx->version);
  return lx_next(&ls, t) != LX_ERROR;
}

uint32_t lp_line_after(const lp_ctx *ctx, size_t off, uint32_t line) {
  lx_token t;
  return lp_peek(ctx, off, line, &t) ? t.lastline : 0;
}

/* (once a label) */
int lp_after_labels(const lp_ctx *ctx, size_t off, uint32_t line, lx_token *t) {
  lx_state ls;
  lx_token n;
  lx_init(&ls, ctx->src, ctx->srclen, off, line, ctx->version);
  for (;;) {
    int k = lx_next(&ls, t);
    if (k == LX_ERROR) return 0;
    if (k == LX_SEMI && ctx->version != LX_LUAJIT) continue;
    if (k != LX_DBCOLON) return 1;
    /* a label: `::` NAME `::` (anything else is a syntax error to come) */
    if (lx_next(&ls, &n) != LX_NAME || lx_next(&ls, &n) != LX_DBCOLON) return 1;
  }
}

/* ---- the driver -------------------------------------------------------- */

int lp_parse(lp_ctx *ctx, const char *src, size_t len, size_t start,
             uint32_t line, int version, int checks) {
  memset(ctx, 0, sizeof *ctx);
  ctx->checks = checks;
  ctx->src = src;
  ctx->srclen = len;
  ctx->version = version ? version : 54;
  ctx->pending_name = LP_NONE;
  ctx->la.off = start;
  ctx->la.line = line;
  if (sc_init(ctx)) { lp_oom(ctx); return ctx->error; }
  uint32_t main = new_func(ctx);            /* index 0: the main chunk */
  if (ctx->error) return ctx->error;
  ctx->funcs[main].body_off = start;
  sc_func_open(ctx, main);

  lx_state ls;
  lx_init(&ls, src, len, start, line, ctx->version);
  return lp_run(ctx, &ls);
}

void lp_free(lp_ctx *ctx) {
  sc_free(ctx);
  free(ctx->funcs);
  free(ctx->fstack);
  free(ctx->rets);
  free(ctx->names);
  free(ctx->exps);
  free(ctx->strbuf);
  free(ctx->upnames);
  memset(ctx, 0, sizeof *ctx);
}
