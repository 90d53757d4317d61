/*
** rewrite.c -- splice probe text into a Lua chunk.
**
** The parser (parser/) says where functions start and end and where every
** return is; this file decides what text goes where, then copies the source
** with those insertions.  Every insertion goes on the line of an existing
** token and contains no line break, so no line moves; nothing of the
** source is removed.  See rewrite.h for the probe protocol.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite.h"
#include "parse.h"

/* The rewriter's LuaJIT dialect is the lexer's (parse.h passes it on). */
typedef char li_dialect_is_the_lexers[LI_DIALECT_JIT == LX_LUAJIT ? 1 : -1];

#define LI_MAX_INPUT ((size_t)0xFFFFFFFFu)   /* offsets must fit the model */
#define LI_CHUNKNAME_SHOWN 256   /* bytes of a chunk name shown in warnings */

/* One piece of text to insert before source byte `off`. */
typedef struct ins {
  size_t off;            /* where, in the source */
  size_t text;           /* offset of the text in the text buffer */
  uint32_t len;          /* its length */
  uint32_t seq;          /* creation order: ties keep it */
} ins;

/* A growable byte buffer. */
typedef struct buf {
  char *p;
  size_t n, cap;
  int oom;
} buf;

/* Make room for n more bytes and the NUL; 0 when out of memory. */
static int buf_grow(buf *b, size_t n) {
  size_t nc = b->cap ? b->cap : 256;
  while (nc < b->n + n + 1) nc *= 2;
  char *p = realloc(b->p, nc);
  if (p == NULL) { b->oom = 1; return 0; }
  b->p = p; b->cap = nc;
  return 1;
}

/* Every piece of inserted text goes through here, a few bytes at a time:
** the room check stays inline and growing is out of line. */
static inline void buf_add(buf *b, const void *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap && !buf_grow(b, n)) return;
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}

/* Inline, so that a literal's length is known when compiling (buf_str's
** strlen was a third of the planning's time on a function-dense chunk). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void buf_str(buf *b, const char *s) { buf_add(b, s, strlen(s)); }

/* Append v in decimal, as "%ld" writes it (snprintf was a tenth of the
** rewriter's time: one call per probe and three per function). */
static void buf_long(buf *b, long v) {
  char tmp[24], *e = tmp + sizeof tmp, *q = e;
  unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
  do { *--q = (char)('0' + u % 10); u /= 10; } while (u);
  if (v < 0) *--q = '-';
  buf_add(b, q, (size_t)(e - q));
}

/* Append bytes as the body of a Lua short string literal ("..."): runs of
** plain bytes in one copy, `"` and `\` escaped, control bytes as \ddd. */
static void buf_quoted(buf *b, const char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    unsigned char c = 0;
    while (j < n) {
      c = (unsigned char)s[j];
      if (c == '"' || c == '\\' || c < 32 || c == 127) break;
      j++;
    }
    if (j > i) buf_add(b, s + i, j - i);
    if (j == n) return;
    char esc[4];
    esc[0] = '\\';
    if (c == '"' || c == '\\') { esc[1] = (char)c; buf_add(b, esc, 2); }
    else {
      esc[1] = (char)('0' + c / 100); esc[2] = (char)('0' + c / 10 % 10);
      esc[3] = (char)('0' + c % 10);
      buf_add(b, esc, 4);
    }
    i = j + 1;
  }
}

/* ---- the insertion plan ----------------------------------------------- */

typedef struct plan {
  const char *src;
  size_t len;
  ins *v; size_t n, cap;
  buf text;               /* all inserted texts */
  char probe[8];          /* the probe's local name: __LI or __LI<k> */
  size_t probelen;        /* its length */
  int probe_upvalue;      /* the loader's form (rewrite.h) */
  int exits_through;      /* opts->exits_through */
  int version;            /* 51..54 or LI_DIALECT_JIT */
  int oom;
} plan;

static int is_ident(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

/* Start an insertion at source offset `off`; text is then appended with
** the plan_* helpers and closed by plan_end(). */
static void plan_begin(plan *pl, size_t off) {
  if (pl->n == pl->cap) {
    size_t nc = pl->cap ? pl->cap * 2 : 64;
    ins *p = realloc(pl->v, nc * sizeof *p);
    if (p == NULL) { pl->oom = 1; return; }
    pl->v = p; pl->cap = nc;
  }
  if (pl->oom) return;
  ins *in = &pl->v[pl->n];
  in->off = off;
  in->text = pl->text.n;
  in->seq = (uint32_t)pl->n;
}

static void plan_end(plan *pl) {
  if (pl->oom || pl->text.oom) { pl->oom = 1; return; }
  ins *in = &pl->v[pl->n];
  /* keep an inserted name from gluing to a name or number just before it
  ** (a numeral may end in '.', as in `x = 1.`: Lua's lexer would read
  ** `1.__LI` as one malformed number) */
  if (pl->text.n > in->text && in->off > 0 &&
      (is_ident((unsigned char)pl->src[in->off - 1]) || pl->src[in->off - 1] == '.') &&
      is_ident((unsigned char)pl->text.p[in->text])) {
    buf_add(&pl->text, " ", 1);
    if (pl->text.oom) { pl->oom = 1; return; }
    memmove(pl->text.p + in->text + 1, pl->text.p + in->text, pl->text.n - in->text - 1);
    pl->text.p[in->text] = ' ';
  }
  in->len = (uint32_t)(pl->text.n - in->text);
  pl->n++;
}

/* "__LI(id" */
static void plan_call(plan *pl, long id) {
  buf_add(&pl->text, pl->probe, pl->probelen);
  buf_add(&pl->text, "(", 1);
  buf_long(&pl->text, id);
}

/* "__LI()": the exit probe that passes nothing on */
static void plan_exit(plan *pl) {
  buf_add(&pl->text, pl->probe, pl->probelen);
  buf_add(&pl->text, "()", 2);
}

/* "__LI(0": the exit probe that returns the values that follow */
static void plan_exit_values(plan *pl) {
  buf_add(&pl->text, pl->probe, pl->probelen);
  buf_add(&pl->text, "(0", 2);
}

static int cmp_ins(const void *a, const void *b) {
  const ins *x = a, *y = b;
  if (x->off != y->off) return x->off < y->off ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int ins_before(const ins *x, const ins *y) {
  return x->off != y->off ? x->off < y->off : x->seq < y->seq;
}

/* Sort the insertions by (off, seq), as qsort with cmp_ins would: the keys
** are unique, so any correct sort gives the same order.  A bottom-up merge
** sort with the comparison inline; runs of 16 by insertion (the plan is
** mostly in order already: functions by position, then the returns). */
static void sort_ins(ins *v, size_t n) {
  enum { RUN = 16 };
  for (size_t lo = 0; lo < n; lo += RUN) {
    size_t hi = lo + RUN < n ? lo + RUN : n;
    for (size_t i = lo + 1; i < hi; i++) {
      ins x = v[i];
      size_t j = i;
      while (j > lo && ins_before(&x, &v[j - 1])) { v[j] = v[j - 1]; j--; }
      v[j] = x;
    }
  }
  if (n <= RUN) return;
  ins *tmp = malloc(n * sizeof *tmp);
  if (tmp == NULL) { qsort(v, n, sizeof *v, cmp_ins); return; }
  ins *from = v, *to = tmp;
  for (size_t w = RUN; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, k = lo;
      if (mid == hi || ins_before(&from[mid - 1], &from[mid])) {
        memcpy(to + lo, from + lo, (hi - lo) * sizeof *to);   /* in order */
        continue;
      }
      while (i < mid && j < hi) to[k++] = ins_before(&from[j], &from[i]) ? from[j++] : from[i++];
      while (i < mid) to[k++] = from[i++];
      while (j < hi) to[k++] = from[j++];
    }
    ins *t = from; from = to; to = t;
  }
  if (from != v) memcpy(v, from, n * sizeof *v);
  free(tmp);
}

/* ---- names and descriptors ---------------------------------------------- */

void li_chunk_id(char *out, size_t size, const char *name) {
  size_t len = strlen(name);
  if (*name == '=') {
    snprintf(out, size, "%.*s", (int)(size - 1), name + 1);
  } else if (*name == '@') {
    if (len - 1 < size)
      snprintf(out, size, "%s", name + 1);
    else  /* keep the end of a long path: it names the file */
      snprintf(out, size, "...%s", name + len - (size - 4));
  } else {
    size_t n = strcspn(name, "\n");
    size_t room = size - sizeof("[string \"...\"]");
    if (n > room) n = room;
    snprintf(out, size, "[string \"%.*s%s\"]", (int)n, name,
             n < len ? "..." : "");
  }
}

/* The chunk name as Lua shows it: "@f.lua" -> "f.lua", "=x" -> "x",
** otherwise [string "first line..."]. */
static void chunk_display(buf *b, const char *chunkname) {
  if (chunkname == NULL) { buf_str(b, "?"); return; }
  size_t n = strlen(chunkname);
  if (chunkname[0] == '@' || chunkname[0] == '=') {
    n--; if (n > LI_CHUNKNAME_SHOWN) n = LI_CHUNKNAME_SHOWN;
    buf_add(b, chunkname + 1, n);
    return;
  }
  size_t line = strcspn(chunkname, "\r\n");
  int cut = line < n;
  if (line > 40) { line = 40; cut = 1; }
  buf_str(b, "[string \"");
  buf_add(b, chunkname, line);
  if (cut) buf_str(b, "...");
  buf_str(b, "\"]");
}

/* The name of function f for reports. */
static void func_name(buf *b, const lp_ctx *ctx, uint32_t f, const char *chunkname) {
  const lp_func *fn = &ctx->funcs[f];
  if (f == 0) { buf_str(b, "main chunk"); (void)chunkname; return; }
  if (fn->name_off != LP_NONE) {
    /* names come from source text: fold any line break to a space, and
    ** write a NUL byte (inside a string key) as \0, so that a name is a C
    ** string and a field of the descriptor whatever bytes it holds */
    if (fn->name_len == 0) return;
    const char *s = ctx->strbuf + fn->name_off;
    size_t at = b->n, n = fn->name_len;
    if (memchr(s, '\0', n) == NULL) {
      buf_add(b, s, n);
    } else {
      for (size_t i = 0; i < n; i++) {
        if (s[i] == '\0') buf_add(b, "\\0", 2);
        else buf_add(b, s + i, 1);
      }
    }
    if (b->oom) return;
    for (size_t i = at; i < b->n; i++)
      if (b->p[i] == '\n' || b->p[i] == '\r') b->p[i] = ' ';
    return;
  }
  buf_str(b, "anonymous");
}

/* The descriptor string of the prologue, as the runtime decodes it:
**   "LI1" NUL chunkname NUL nfuncs NUL { name NUL line NUL lastline NUL }
** for every function in id order (id 1 = main chunk). */
static void descriptors(buf *d, const lp_ctx *ctx, const char *chunkname) {
  static const char nul = '\0';
  buf_str(d, "LI1"); buf_add(d, &nul, 1);
  if (chunkname) buf_str(d, chunkname);      /* whole: names stay distinct */
  buf_add(d, &nul, 1);
  buf_long(d, (long)ctx->nfuncs); buf_add(d, &nul, 1);
  for (uint32_t f = 0; f < ctx->nfuncs; f++) {
    func_name(d, ctx, f, chunkname); buf_add(d, &nul, 1);
    buf_long(d, (long)ctx->funcs[f].line); buf_add(d, &nul, 1);
    buf_long(d, (long)ctx->funcs[f].lastline); buf_add(d, &nul, 1);
  }
}

/* ---- deciding what goes where ------------------------------------------- */

/* prologue: local P=(("").__luainstr or <no-op factory>)("<descriptors>"); */
static void plan_prologue(plan *pl, const lp_ctx *ctx, const char *chunkname) {
  buf d = {0};
  if (pl->probe_upvalue) {
    /* the loader's form (rewrite.h): the chunk is the inner function;
    ** touching _ENV first makes it upvalue 1 (where load() puts the
    ** environment), the probe comes second; <const> (5.4) marks it in
    ** stripped dumps (bytecode.h).  5.1 (and LuaJIT) has no _ENV and the
    ** probe is upvalue 1 of a function without `...` on 5.1 (its hidden
    ** `arg`, rewrite.h); LuaJIT has no hidden `arg`, so `function(...)`
    ** is exactly its main chunk, whose level may use `...` */
    buf_str(&pl->text, "local ");
    buf_add(&pl->text, pl->probe, pl->probelen);
    if (pl->version == LI_DIALECT_JIT)
      buf_str(&pl->text, " = ...;return function(...) ");
    else if (LP_RULES_51(pl->version))
      buf_str(&pl->text, " = ...;return function() ");
    else if (pl->version <= 53)
      buf_str(&pl->text, " = ...;return function(...)do local _=_ENV end ");
    else
      buf_str(&pl->text, " <const> = ...;return function(...)do local _=_ENV end ");
    return;
  }
  descriptors(&d, ctx, chunkname);
  if (d.oom) { pl->oom = 1; free(d.p); return; }
  buf_str(&pl->text, "local ");
  buf_add(&pl->text, pl->probe, pl->probelen);
  buf_str(&pl->text, "=((\"\")." LI_PROBE_KEY
                     " or function()return function(_,...)return ... end end)(\"");
  buf_quoted(&pl->text, d.p, d.n);
  buf_str(&pl->text, "\");");
  free(d.p);
}

/* Probes of one function: entry, fall-off exit, do-wrap for trailing labels. */
static void plan_function(plan *pl, const lp_ctx *ctx, uint32_t f, int with_prologue,
                          size_t prologue_off, const char *chunkname, int probed,
                          int counted) {
  const lp_func *fn = &ctx->funcs[f];
  long id = (long)f + 1;
  /* a trailing label must stay last (a counted function has no exit) */
  int wrap = fn->trail_off != LP_NONE && !counted;
  plan_begin(pl, with_prologue ? prologue_off : fn->body_off);
  if (with_prologue) plan_prologue(pl, ctx, chunkname);
  if (probed) {
    /* Lua numbers a function's upvalues in the order it first meets them;
    ** name the original ones first in dead code (one jump at run time) so
    ** the probe's upvalue comes last and debug.upvaluejoin(f, 1, ...)
    ** style code still finds what it expects at each index. */
    if (f > 0 && fn->nupnames > 0) {
      buf_str(&pl->text, "if false then local _=");
      for (uint32_t i = 0; i < fn->nupnames; i++) {
        const lp_upname *u = &ctx->upnames[fn->upbase + i];
        if (i) buf_str(&pl->text, " _=");
        buf_add(&pl->text, u->p, u->len);
      }
      buf_str(&pl->text, " end ");
    }
    plan_call(pl, id); buf_str(&pl->text, counted ? ",1);" : ");");
    if (wrap) buf_str(&pl->text, " do ");
  }
  plan_end(pl);
  if (!probed || counted || fn->ends_return) return;
  plan_begin(pl, fn->end_off);
  if (wrap) buf_str(&pl->text, " end ");
  plan_exit(pl); buf_str(&pl->text, f == 0 ? ";" : "; ");
  plan_end(pl);
}

/* Exit probe of one return statement.  The cheapest form that keeps the
** returned values (and a tail call a tail call) and ends the frame after
** they are evaluated: a probe call with no arguments and no results costs
** the VM least, so it goes before the `return` when the values run no code,
** else after the last value when that one yields exactly one value; only a
** last value that may be several passes them through the probe. */
static void plan_return(plan *pl, const lp_return *r) {
  /* (Lua 5.1 would read a `(` put on the line of a string or table
  ** argument as a new statement: that call gets its probe before.) */
  if (r->n == 0 || r->pure || (r->tail && (r->call & LP_CALL_SPLIT))) {
                                            /* return x  ->  P() return x */
    plan_begin(pl, r->ret_off);
    plan_exit(pl); buf_str(&pl->text, " ");
    plan_end(pl);
  } else if (r->tail && r->args_kind == '(' && (r->call & LP_CALL_EMPTY)) {
    plan_begin(pl, r->args_off + 1);        /* f()  ->  f(P()) */
    plan_exit(pl);
    plan_end(pl);
  } else if (r->tail && r->args_kind == '(' && !(r->call & LP_CALL_MULTI)) {
    plan_begin(pl, r->args_end - 1);        /* f(a)  ->  f(a,P()) */
    buf_str(&pl->text, ","); plan_exit(pl);
    plan_end(pl);
  } else if (r->tail && r->args_kind == '(') {   /* f(g())  ->  f(P(0,g())) */
    plan_begin(pl, r->args_off + 1);
    plan_exit_values(pl); buf_str(&pl->text, ",");
    plan_end(pl);
    plan_begin(pl, r->args_end - 1);
    buf_str(&pl->text, ")");
    plan_end(pl);
  } else if (r->tail) {                     /* f"s", f{}  ->  f("s",P()) */
    plan_begin(pl, r->args_off);
    buf_str(&pl->text, "(");
    plan_end(pl);
    plan_begin(pl, r->args_end);
    buf_str(&pl->text, ","); plan_exit(pl); buf_str(&pl->text, ")");
    plan_end(pl);
  } else if (!r->multi && pl->exits_through && r->n == 1) {
                                        /* return a+b  ->  return (P(0,a+b)) */
    plan_begin(pl, r->exp_off);
    buf_str(&pl->text, "("); plan_exit_values(pl); buf_str(&pl->text, ",");
    plan_end(pl);
    plan_begin(pl, r->exp_end);
    buf_str(&pl->text, "))");
    plan_end(pl);
  } else if (!r->multi) {                   /* return a+b  ->  return a+b,P() */
    plan_begin(pl, r->exp_end);
    buf_str(&pl->text, ","); plan_exit(pl);
    plan_end(pl);
  } else {                                  /* return a,f()  ->  return P(0,a,f()) */
    plan_begin(pl, r->exp_off);
    plan_exit_values(pl); buf_str(&pl->text, ",");
    plan_end(pl);
    plan_begin(pl, r->exp_end);
    buf_str(&pl->text, ")");
    plan_end(pl);
  }
}

/* ---- output ------------------------------------------------------------- */

static int emit(plan *pl, li_rewrite_result *r) {
  sort_ins(pl->v, pl->n);
  size_t total = pl->len + pl->text.n;
  r->out = malloc(total + 1);
  r->ins = malloc((pl->n ? pl->n : 1) * 2 * sizeof *r->ins);
  if (r->out == NULL || r->ins == NULL) return LI_EMEM;
  size_t o = 0, from = 0;
  for (size_t i = 0; i < pl->n; i++) {
    const ins *in = &pl->v[i];
    memcpy(r->out + o, pl->src + from, in->off - from);
    o += in->off - from;
    from = in->off;
    memcpy(r->out + o, pl->text.p + in->text, in->len);
    r->ins[2 * i] = o;
    r->ins[2 * i + 1] = in->len;
    o += in->len;
  }
  memcpy(r->out + o, pl->src + from, pl->len - from);
  o += pl->len - from;
  r->out[o] = '\0';
  r->outlen = o;
  r->nins = pl->n;
  return LI_OK;
}

/* The result is the input unchanged. */
static int copy_through(const char *src, size_t len, li_rewrite_result *r, int status) {
  r->out = malloc(len + 1);
  if (r->out == NULL) return LI_EMEM;
  memcpy(r->out, src, len);
  r->out[len] = '\0';
  r->outlen = len;
  return status;
}

/* Where the chunk's text starts: after a BOM and a `#` first line, which
** luaL_loadfilex skips (the line break stays, so lines keep their numbers). */
static size_t text_start(const char *src, size_t len, int skip_first_line) {
  size_t i = 0;
  if (!skip_first_line) return 0;
  if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) i = 3;
  if (i < len && src[i] == '#') {
    const char *nl = memchr(src + i, '\n', len - i);
    i = nl ? (size_t)(nl - src) : len;
  }
  return i;
}

static void add_warning(buf *w, const char *chunkname, uint32_t line,
                        const char *name, const char *reason) {
  chunk_display(w, chunkname);
  buf_add(w, ":", 1);
  buf_long(w, (long)line);
  buf_str(w, ": warning: function '");
  buf_str(w, name);
  buf_str(w, "' left without probes: ");
  buf_str(w, reason);
  buf_str(w, "\n");
}

/* Decide which functions carry probes; collect warnings for the rest.
** loader_form: the chunk takes the loader's form, where the probe is an
** upvalue of the main function, not one of its locals: the main function
** is not left alone for the locals limit (scope.c's only reason there). */
static unsigned char *choose_probed(const lp_ctx *ctx, const li_rewrite_opts *o,
                                    int loader_form, const char *chunkname,
                                    buf *warn, int *any) {
  unsigned char *probed = malloc(ctx->nfuncs ? ctx->nfuncs : 1);
  unsigned char *tree = malloc(ctx->nfuncs ? ctx->nfuncs : 1);  /* subtree off */
  if (probed == NULL || tree == NULL) { free(probed); free(tree); return NULL; }
  *any = 0;
  for (uint32_t f = 0; f < ctx->nfuncs; f++) {
    const lp_func *fn = &ctx->funcs[f];
    int skipped = o && o->skip && f < o->nskip && o->skip[f];
    int off = fn->noprobe_tree && !(f == 0 && loader_form);
    tree[f] = off || skipped || (f > 0 && tree[fn->parent]);
    probed[f] = !tree[f] && !fn->noprobe;
    if (probed[f]) *any = 1;
    if ((fn->noprobe || off) && fn->reason &&
        !(f > 0 && tree[fn->parent])) {
      buf nm = {0};
      func_name(&nm, ctx, f, chunkname);
      add_warning(warn, chunkname, f ? fn->line : 1, nm.p ? nm.p : "?", fn->reason);
      free(nm.p);
    }
  }
  free(tree);
  return probed;
}

/* Is function f counted, not timed (li_rewrite_opts.count_small)? */
static int is_counted(const lp_ctx *ctx, const li_rewrite_opts *o, uint32_t f) {
  const lp_func *fn = &ctx->funcs[f];
  return o != NULL && o->count_small > 0 && f > 0 && !fn->calls && !fn->loops &&
         fn->nchildren == 0 && fn->ntok <= o->count_small;
}

static int fill_descs(const lp_ctx *ctx, const unsigned char *probed,
                      const char *chunkname, li_rewrite_result *r) {
  /* every name in one block, each with its NUL (funcs[0].name is the
  ** block: li_rewrite_free); a malloc'd buffer each, grown from 256 bytes,
  ** made a chunk of 100,000 functions hold 25 MB of names */
  buf nm = {0};
  static const char nul = '\0';
  r->funcs = calloc(ctx->nfuncs ? ctx->nfuncs : 1, sizeof *r->funcs);
  if (r->funcs == NULL) return 0;
  for (uint32_t f = 0; f < ctx->nfuncs; f++) {
    r->funcs[f].name = (char *)(uintptr_t)nm.n;    /* its offset, for now */
    func_name(&nm, ctx, f, chunkname);
    buf_add(&nm, &nul, 1);
  }
  if (nm.oom || (ctx->nfuncs > 0 && nm.p == NULL)) {
    free(nm.p);
    return 0;
  }
  r->nfuncs = ctx->nfuncs;
  for (uint32_t f = 0; f < ctx->nfuncs; f++) {
    r->funcs[f].name = nm.p + (uintptr_t)r->funcs[f].name;
    r->funcs[f].line = ctx->funcs[f].line;
    r->funcs[f].lastline = ctx->funcs[f].lastline;
    r->funcs[f].parent = f ? ctx->funcs[f].parent + 1 : 0;
    r->funcs[f].probed = probed ? probed[f] : 0;
  }
  return 1;
}

int li_rewrite(const char *src, size_t len, const li_rewrite_opts *o,
               li_rewrite_result *r) {
  memset(r, 0, sizeof *r);
  int version = o && o->version ? o->version : 54;
  const char *chunkname = o ? o->chunkname : NULL;
  if (len > LI_MAX_INPUT) {
    snprintf(r->errmsg, sizeof r->errmsg, "chunk too big to instrument");
    return LI_ETOOBIG;
  }
  size_t start = text_start(src, len, o && o->skip_first_line);
  if (start < len && src[start] == '\x1b')   /* binary chunk: never touched */
    return copy_through(src, len, r, LI_PASSTHROUGH);

  lp_ctx ctx;
  int err = lp_parse(&ctx, src, len, start, 1, version,
                     !(o && o->no_reject_checks));
  if (err) {
    r->errline = ctx.errline;
    snprintf(r->errmsg, sizeof r->errmsg, "%s", ctx.errmsg);
    lp_free(&ctx);
    return err == 2 ? LI_EMEM : err == LP_ELIMIT ? LI_ELIMIT :
           err == LP_EREJECT ? LI_EREJECT : LI_ESYNTAX;
  }

  plan pl;
  memset(&pl, 0, sizeof pl);
  pl.src = src; pl.len = len;
  pl.version = version;
  /* 5.1: a chunk whose main level uses `...` keeps the offline form (see
  ** rewrite.h; not LuaJIT: plan_prologue) */
  pl.exits_through = o && o->exits_through;
  pl.probe_upvalue = o && o->probe_upvalue &&
                     !(version == 51 && ctx.funcs[0].dots);
  unsigned k = 0;
  while (k < 64 && (ctx.li_used >> k & 1)) k++;
  if (k == 0) snprintf(pl.probe, sizeof pl.probe, "__LI");
  else snprintf(pl.probe, sizeof pl.probe, "__LI%u", k);
  pl.probelen = strlen(pl.probe);

  buf warn = {0};
  int any = 0, status = LI_OK;
  unsigned char *probed = choose_probed(&ctx, o, pl.probe_upvalue, chunkname, &warn, &any);
  if (probed == NULL || !fill_descs(&ctx, probed, chunkname, r)) { status = LI_EMEM; goto done; }
  if (k == 64) {                            /* absurd, but never collide */
    any = 0;
    add_warning(&warn, chunkname, 1, "main chunk", "every probe name is taken");
    for (uint32_t f = 0; f < ctx.nfuncs; f++) r->funcs[f].probed = 0;
  }
  if (any && !pl.probe_upvalue &&
      ctx.funcs[0].nchildren >= lp_max_children(version)) {
    /* the offline prologue's no-op factory is one function more in the
    ** main chunk, which holds as many as Lua compiles already */
    any = 0;
    add_warning(&warn, chunkname, 1, "main chunk",
                "the probe factory would exceed the functions limit");
    for (uint32_t f = 0; f < ctx.nfuncs; f++) r->funcs[f].probed = 0;
  }
  if (!any) {                               /* nothing to probe: unchanged */
    status = copy_through(src, len, r, LI_OK);
    goto done;
  }

  /* The prologue opens the main chunk: at offset 0 (line 1, where Lua puts
  ** the main function's first instruction), or, after a skipped first line,
  ** before the first token. */
  size_t prologue_off = 0;
  if (start > 0)
    prologue_off = ctx.seen_token ? ctx.funcs[0].body_off : (start < len ? start + 1 : len);
  if (!ctx.seen_token) ctx.funcs[0].end_off = prologue_off;
  for (uint32_t f = 1; f < ctx.nfuncs; f++)
    r->funcs[f].counted = r->funcs[f].probed && is_counted(&ctx, o, f);
  plan_function(&pl, &ctx, 0, 1, prologue_off, chunkname, probed[0], 0);
  for (uint32_t f = 1; f < ctx.nfuncs; f++)
    if (probed[f]) plan_function(&pl, &ctx, f, 0, 0, chunkname, 1, r->funcs[f].counted);
  for (uint32_t i = 0; i < ctx.nrets; i++)
    if (probed[ctx.rets[i].func] && !r->funcs[ctx.rets[i].func].counted)
      plan_return(&pl, &ctx.rets[i]);
  if (pl.probe_upvalue) {
    /* ends the inner function right after the last token (made last, so
    ** it follows every insertion there): its closing return is on the line
    ** of the main chunk's, the line of its last token */
    plan_begin(&pl, ctx.funcs[0].end_off);
    buf_str(&pl.text, " end");
    plan_end(&pl);
  }
  if (pl.oom || pl.text.oom) { status = LI_EMEM; goto done; }
  status = emit(&pl, r);
  r->probe_upvalue = !pl.probe_upvalue ? 0 : LP_RULES_51(version) ? 1 : 2;

done:
  if (warn.oom) status = LI_EMEM;
  r->warnings = warn.p;
  free(probed);
  free(pl.v);
  free(pl.text.p);
  lp_free(&ctx);
  return status;
}

void li_rewrite_free(li_rewrite_result *r) {
  if (r == NULL) return;
  free(r->out);
  if (r->funcs && r->nfuncs > 0) free(r->funcs[0].name);  /* all names */
  free(r->funcs);
  free(r->ins);
  free(r->warnings);
  memset(r, 0, sizeof *r);
}
