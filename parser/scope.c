/*
** scope.c -- name resolution, as Lua's compiler does it, for one purpose:
** to know before compiling how many locals and upvalues each function has,
** so that a probe (one more upvalue per function, one more local in the
** main chunk) never pushes a function over Lua's limits.
**
** Names are interned in an open-addressing table whose entries point at the
** innermost active declaration of that name; declarations form a stack
** that blocks and functions pop.  Each open function keeps the list of
** declarations it captures; capture propagates outward, so a lookup stops
** at the first function that already holds the variable.
**
** It also resolves gotos, labels and breaks as each dialect's compiler
** does after parsing (lparser.c's labels and pending gotos, lj_parse.c's
** gola_*), so that a chunk Lua would reject for them stops the parse
** (lp_reject) instead of being rewritten and compiled for nothing.
*/
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define SC_MAXVARS 200           /* Lua's limit of active locals */
#define SC_ENV_DECL (-2)         /* "declaration" of the chunk's own _ENV */

typedef struct sc_entry {
  const char *p;                 /* name bytes (in the source), NULL = free */
  uint32_t len;
  uint32_t hash;
  int32_t top;                   /* innermost active declaration, or -1 */
} sc_entry;

typedef struct sc_decl {
  int32_t entry;                 /* its name's entry, -1 for hidden locals */
  int32_t prev;                  /* declaration it shadows, or -1 */
  uint32_t level;                /* function level (0 = main chunk) */
  uint8_t close;                 /* a <close> variable */
  uint8_t readonly;              /* <const> or <close>: not assignable */
} sc_decl;

/* A block: where the stacks stood when it opened. */
typedef struct sc_block {
  uint32_t decls;                /* declarations */
  uint32_t labels;               /* labels */
  uint32_t gotos;                /* pending gotos */
  uint32_t loop;                 /* 1: a loop's block (breaks end there) */
} sc_block;

/* A label, visible while its block is open. */
typedef struct sc_labeldef {
  const char *p; uint32_t len;   /* its name (bytes in the source) */
  uint32_t line;                 /* line of its first `::` */
  uint32_t level;                /* active locals it sees (the block's when
                                    it ends the block: lparser.c's rule) */
  size_t run;                    /* offset of the token that ends its run
                                    of labels (and `;`) */
} sc_labeldef;

/* A goto (or a break outside any loop) not resolved yet. */
typedef struct sc_jump {
  const char *p; uint32_t len;   /* its label's name; p == NULL: a break */
  uint32_t line;                 /* its line in the dialect's messages */
  uint32_t level;                /* active locals where it stands, lowered
                                    to a block's as it leaves the block */
} sc_jump;

typedef struct sc_frame {
  uint32_t func;                 /* function index */
  uint32_t decl_base;            /* first declaration of this function */
  uint32_t nclose;               /* active <close> variables */
  uint32_t nups;                 /* upvalues so far */
  int32_t *caps; uint32_t ncaps, capcaps; /* captured declarations */
  uint32_t block_base;           /* its first block, label and goto: */
  uint32_t label_base, goto_base; /* labels and gotos are per function */
  uint32_t loops;                /* loops open in it */
} sc_frame;

struct lp_scope {
  sc_entry *tab; uint32_t tabsize, tabused;
  sc_decl *decls; uint32_t ndecls, capdecls;
  sc_block *marks; uint32_t nmarks, capmarks;   /* open blocks */
  sc_labeldef *labels; uint32_t nlabels, caplabels; /* visible labels */
  sc_jump *gotos; uint32_t ngotos, capgotos;     /* pending gotos */
  sc_frame *frames; uint32_t nframes, capframes;
  int32_t env_entry;             /* entry of "_ENV" */
};

/* The bytes of a name as two words: for up to 16 bytes they hold every
** byte (the loads overlap, never reach past the name), so names of equal
** length are equal when their keys are; longer names are keyed by their
** first and last 8 bytes.  A name is hashed and compared a few loads at a
** time, not byte by byte (the byte loop was 5 % of li_rewrite). */
typedef struct sc_key { uint64_t a, b; } sc_key;

static uint64_t load64(const char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint64_t load32(const char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline sc_key name_key(const char *p, size_t len) {
  sc_key k;
  if (len >= 8) { k.a = load64(p); k.b = load64(p + len - 8); }
  else if (len >= 4) { k.a = load32(p); k.b = load32(p + len - 4); }
  else if (len > 0) {
    k.a = (unsigned char)p[0] | (uint64_t)(unsigned char)p[len / 2] << 8 |
          (uint64_t)(unsigned char)p[len - 1] << 16;
    k.b = 0;
  } else { k.a = k.b = 0; }
  return k;
}

static uint32_t hash_key(sc_key k, size_t len) {
  uint64_t h = (k.a ^ (uint64_t)len) * 0x9E3779B97F4A7C15u;
  h = (h ^ k.b ^ (h >> 29)) * 0xBF58476D1CE4E5B9u;
  return (uint32_t)(h >> 32);
}

/* Double the table (first: make one of `first` entries). */
static int rehash(lp_scope *s, uint32_t first) {
  uint32_t nsize = s->tabsize ? s->tabsize * 2 : first;
  sc_entry *nt = calloc(nsize, sizeof *nt);
  if (nt == NULL) return 0;
  for (uint32_t i = 0; i < s->tabsize; i++) {
    if (s->tab[i].p == NULL) continue;
    uint32_t j = s->tab[i].hash & (nsize - 1);
    while (nt[j].p) j = (j + 1) & (nsize - 1);
    nt[j] = s->tab[i];
  }
  /* declarations refer to entries by index: renumber them */
  for (uint32_t d = 0; d < s->ndecls; d++) {
    int32_t e = s->decls[d].entry;
    if (e < 0) continue;
    uint32_t j = s->tab[e].hash & (nsize - 1);
    while (nt[j].p != s->tab[e].p || nt[j].len != s->tab[e].len)
      j = (j + 1) & (nsize - 1);
    s->decls[d].entry = (int32_t)j;
  }
  if (s->env_entry >= 0) {
    sc_entry *old = &s->tab[s->env_entry];
    uint32_t j = old->hash & (nsize - 1);
    while (nt[j].p != old->p || nt[j].len != old->len) j = (j + 1) & (nsize - 1);
    s->env_entry = (int32_t)j;
  }
  free(s->tab);
  s->tab = nt;
  s->tabsize = nsize;
  return 1;
}

/* The entry of a name, created if new; -1 when out of memory. */
static int32_t intern(lp_scope *s, const char *p, size_t len) {
  if ((s->tabused + 1) * 4 > s->tabsize * 3 && !rehash(s, 0)) return -1;
  sc_key k = name_key(p, len);
  uint32_t h = hash_key(k, len);
  uint32_t j = h & (s->tabsize - 1);
  while (s->tab[j].p) {
    const sc_entry *e = &s->tab[j];
    if (e->hash == h && e->len == len) {
      sc_key ek = name_key(e->p, len);
      if (ek.a == k.a && ek.b == k.b && (len <= 16 || memcmp(e->p, p, len) == 0))
        return (int32_t)j;
    }
    j = (j + 1) & (s->tabsize - 1);
  }
  s->tab[j].p = p; s->tab[j].len = (uint32_t)len; s->tab[j].hash = h; s->tab[j].top = -1;
  s->tabused++;
  return (int32_t)j;
}

int sc_init(lp_ctx *ctx) {
  lp_scope *s = calloc(1, sizeof *s);
  if (s == NULL) return 1;
  ctx->scope = s;
  s->env_entry = -1;
  /* Sized for the chunk, room for a distinct name per 85 bytes of source
  ** before it grows: a small chunk clears a small table (it was 256
  ** entries for every chunk), a big one does not rehash from a small one. */
  uint32_t first = 64;
  while (first < 16384 && first * 64 < ctx->srclen) first *= 2;
  if (!rehash(s, first)) return 1;
  s->env_entry = intern(s, "_ENV", 4);
  return s->env_entry < 0;
}

void sc_free(lp_ctx *ctx) {
  lp_scope *s = ctx->scope;
  if (s == NULL) return;
  for (uint32_t i = 0; i < s->capframes; i++) free(s->frames[i].caps);
  free(s->tab); free(s->decls); free(s->marks); free(s->frames);
  free(s->labels); free(s->gotos);
  free(s);
  ctx->scope = NULL;
}

static sc_frame *cur_frame(lp_scope *s) {
  return s->nframes ? &s->frames[s->nframes - 1] : NULL;
}

void sc_func_open(lp_ctx *ctx, uint32_t f) {
  lp_scope *s = ctx->scope;
  if (ctx->error) return;
  if (s->nframes == s->capframes) {
    uint32_t nc = s->capframes ? s->capframes * 2 : 16;
    sc_frame *p = realloc(s->frames, nc * sizeof *p);
    if (p == NULL) { lp_oom(ctx); return; }
    memset(p + s->capframes, 0, (nc - s->capframes) * sizeof *p);
    s->frames = p; s->capframes = nc;
  }
  sc_frame *fr = &s->frames[s->nframes++];
  fr->func = f; fr->decl_base = s->ndecls; fr->nclose = 0;
  fr->nups = 0; fr->ncaps = 0;
  fr->block_base = s->nmarks; fr->label_base = s->nlabels;
  fr->goto_base = s->ngotos; fr->loops = 0;
}

/* Pop declarations down to `to`, restoring the names they shadowed. */
static void pop_decls(lp_scope *s, uint32_t to) {
  while (s->ndecls > to) {
    sc_decl *d = &s->decls[--s->ndecls];
    if (d->entry >= 0) s->tab[d->entry].top = d->prev;
    if (d->close) {
      sc_frame *fr = cur_frame(s);
      if (fr && fr->nclose) fr->nclose--;
    }
  }
}

/* Keep the names of a function's upvalues, in the order Lua numbers them,
** so the rewriter can make the probe's upvalue come after them. */
static void record_upnames(lp_ctx *ctx, lp_func *fn, const sc_frame *fr) {
  lp_scope *s = ctx->scope;
  fn->upbase = ctx->nupnames;
  fn->nupnames = 0;
  for (uint32_t i = 0; i < fr->ncaps; i++) {
    if (ctx->nupnames == ctx->capupnames) {
      uint32_t nc = ctx->capupnames ? ctx->capupnames * 2 : 64;
      lp_upname *p = realloc(ctx->upnames, nc * sizeof *p);
      if (p == NULL) { lp_oom(ctx); return; }
      ctx->upnames = p; ctx->capupnames = nc;
    }
    lp_upname *u = &ctx->upnames[ctx->nupnames++];
    if (fr->caps[i] == SC_ENV_DECL) { u->p = "_ENV"; u->len = 4; }
    else {
      const sc_entry *e = &s->tab[s->decls[fr->caps[i]].entry];
      u->p = e->p; u->len = e->len;
    }
    fn->nupnames++;
  }
}

static void goto_undefined(lp_ctx *ctx, const sc_jump *g, const lp_tok *end);

void sc_func_close(lp_ctx *ctx, uint32_t f, const lp_tok *end) {
  lp_scope *s = ctx->scope;
  sc_frame *fr = cur_frame(s);
  if (ctx->error || fr == NULL || fr->func != f) return;
  if (s->ngotos > fr->goto_base) {          /* Lua's leaveblock: undefgoto */
    goto_undefined(ctx, &s->gotos[fr->goto_base], end);
    if (ctx->error) return;
  }
  s->nlabels = fr->label_base;
  s->ngotos = fr->goto_base;
  lp_func *fn = &ctx->funcs[f];
  uint32_t maxup = LP_RULES_51(ctx->version) ? 60 : 255;  /* LJ_MAX_UPVAL too */
  fn->nups = fr->nups;
  record_upnames(ctx, fn, fr);
  if (f == 0) {
    if (fn->maxactive + 1 > SC_MAXVARS) {
      fn->noprobe_tree = 1;
      fn->reason = "the probe's local would exceed the 200-locals limit";
    }
  } else if (fr->nups + 1 > maxup) {
    fn->noprobe_tree = 1;
    fn->reason = "the probe's upvalue would exceed the upvalue limit";
  }
  pop_decls(s, fr->decl_base);
  s->nframes--;
}

/* Open a block; loop: the block of a loop (while, repeat, for). */
static void block_open(lp_ctx *ctx, uint32_t loop) {
  lp_scope *s = ctx->scope;
  if (ctx->error) return;
  if (s->nmarks == s->capmarks) {
    uint32_t nc = s->capmarks ? s->capmarks * 2 : 32;
    sc_block *p = realloc(s->marks, nc * sizeof *p);
    if (p == NULL) { lp_oom(ctx); return; }
    s->marks = p; s->capmarks = nc;
  }
  sc_block *b = &s->marks[s->nmarks++];
  b->decls = s->ndecls; b->labels = s->nlabels; b->gotos = s->ngotos;
  b->loop = loop;
  if (loop) cur_frame(s)->loops++;
}

void sc_block_open(lp_ctx *ctx) { block_open(ctx, 0); }
void sc_loop_open(lp_ctx *ctx) { block_open(ctx, 1); }

static void gotos_leave(lp_ctx *ctx, const sc_block *b);

void sc_block_close(lp_ctx *ctx) {
  lp_scope *s = ctx->scope;
  if (ctx->error || s->nmarks == 0) return;
  const sc_block *b = &s->marks[--s->nmarks];
  pop_decls(s, b->decls);
  if (b->loop) cur_frame(s)->loops--;
  s->nlabels = b->labels;                 /* its labels go out of scope */
  if (s->ngotos > b->gotos) gotos_leave(ctx, b);
}

static void push_decl(lp_ctx *ctx, int32_t entry, int attrib) {
  lp_scope *s = ctx->scope;
  sc_frame *fr = cur_frame(s);
  if (ctx->error || fr == NULL) return;
  if (s->ndecls == s->capdecls) {
    uint32_t nc = s->capdecls ? s->capdecls * 2 : 64;
    sc_decl *p = realloc(s->decls, nc * sizeof *p);
    if (p == NULL) { lp_oom(ctx); return; }
    s->decls = p; s->capdecls = nc;
  }
  sc_decl *d = &s->decls[s->ndecls];
  d->entry = entry;
  d->prev = entry >= 0 ? s->tab[entry].top : -1;
  d->level = s->nframes - 1;
  d->close = attrib == 'x';
  d->readonly = attrib != 0;
  if (entry >= 0) s->tab[entry].top = (int32_t)s->ndecls;
  s->ndecls++;
  if (d->close) fr->nclose++;
  lp_func *fn = &ctx->funcs[fr->func];
  uint32_t active = s->ndecls - fr->decl_base;
  if (active > fn->maxactive) fn->maxactive = (uint16_t)(active > 65535 ? 65535 : active);
}

/* Declare a local; off == LP_NONE declares `self`. */
void sc_declare(lp_ctx *ctx, size_t off, size_t len, int attrib) {
  const char *p = off == LP_NONE ? "self" : ctx->src + off;
  int32_t e = intern(ctx->scope, p, len);
  if (e < 0) { lp_oom(ctx); return; }
  push_decl(ctx, e, attrib);
}

/* Locals the compiler creates for itself (for-loop state). */
void sc_declare_hidden(lp_ctx *ctx, int n) {
  for (int i = 0; i < n; i++) push_decl(ctx, -1, 0);
}

void sc_declare_names(lp_ctx *ctx, lp_names n) {
  for (uint32_t i = 0; i < n.n && !ctx->error; i++) {
    const lp_name *nm = &ctx->names[n.base + i];
    sc_declare(ctx, nm->off, nm->len, nm->attrib);
  }
}

/* Does frame fr capture declaration d already? */
static int captures(const sc_frame *fr, int32_t d) {
  for (uint32_t i = fr->ncaps; i > 0; i--)
    if (fr->caps[i - 1] == d) return 1;
  return 0;
}

/* Variable d (declared at function level `level`; SC_ENV_DECL with level
** -1 for the chunk's _ENV) is used in the current function: it becomes an
** upvalue of every function between, in the order Lua creates them. */
static void capture(lp_ctx *ctx, int32_t d, int64_t level) {
  lp_scope *s = ctx->scope;
  for (int64_t lv = (int64_t)s->nframes - 1; lv > level; lv--) {
    sc_frame *fr = &s->frames[lv];
    if (captures(fr, d)) return;
    if (fr->ncaps == fr->capcaps) {
      uint32_t nc = fr->capcaps ? fr->capcaps * 2 : 8;
      int32_t *p = realloc(fr->caps, nc * sizeof *p);
      if (p == NULL) { lp_oom(ctx); return; }
      fr->caps = p; fr->capcaps = nc;
    }
    fr->caps[fr->ncaps++] = d;
    fr->nups++;
  }
}

/* A global: from 5.2 on it is a field of _ENV, the main chunk's upvalue
** (or a local named _ENV, which is then resolved like any other). */
static void use_env(lp_ctx *ctx) {
  lp_scope *s = ctx->scope;
  int32_t d = s->tab[s->env_entry].top;
  if (d >= 0) {
    if (s->decls[d].level != s->nframes - 1) capture(ctx, d, s->decls[d].level);
    return;
  }
  capture(ctx, SC_ENV_DECL, -1);
}

/* A use of a name; 1 if it is a local of this or an enclosing function
** (reading it runs no code), 2 if that local is also <const> or <close>
** (5.4: assigning to it is an error), 0 if it is a global. */
int sc_use(lp_ctx *ctx, size_t off, size_t len) {
  lp_scope *s = ctx->scope;
  if (ctx->error) return 0;
  int32_t e = intern(s, ctx->src + off, len);
  if (e < 0) { lp_oom(ctx); return 0; }
  int32_t d = s->tab[e].top;
  if (d >= 0) {
    if (s->decls[d].level != s->nframes - 1) capture(ctx, d, s->decls[d].level);
    return s->decls[d].readonly ? 2 : 1;
  }
  if (!LP_RULES_51(ctx->version)) use_env(ctx);
  return 0;
}

uint32_t sc_active(lp_ctx *ctx) {
  lp_scope *s = ctx->scope;
  sc_frame *fr = cur_frame(s);
  return fr ? s->ndecls - fr->decl_base : 0;
}

int sc_close_active(lp_ctx *ctx) {
  sc_frame *fr = cur_frame(ctx->scope);
  return fr && fr->nclose > 0;
}

/* ---- gotos, labels and breaks ------------------------------------------ */

/* How each dialect resolves them, in short (lparser.c, lj_parse.c): a goto
** matches a label of the same name in its block or an enclosing one of the
** same function, the innermost; one defined earlier (backward) always
** works; one defined later (forward) must not see more locals than the
** goto does, unless the label ends its block (only labels and `;` after
** it, `;` not in LuaJIT, before `end`, `else`, `elseif` or the end of the
** chunk, not `until`), when it sees only the block's.  A break ends the
** innermost loop of its function.  A goto or break that nothing resolves
** is an error when its function ends (5.1: a break at once).  A label
** may not repeat one of its block (5.4: any visible one).  The messages
** and their lines are each dialect's own. */

/* The innermost open block of frame fr: its first label, and the locals
** active when it opened (the function's own body: none, parameters are
** declared inside it). */
static uint32_t block_labels(const lp_scope *s, const sc_frame *fr) {
  return s->nmarks > fr->block_base ? s->marks[s->nmarks - 1].labels : fr->label_base;
}
static uint32_t block_gotos(const lp_scope *s, const sc_frame *fr) {
  return s->nmarks > fr->block_base ? s->marks[s->nmarks - 1].gotos : fr->goto_base;
}
static uint32_t block_level(const lp_scope *s, const sc_frame *fr) {
  return s->nmarks > fr->block_base ? s->marks[s->nmarks - 1].decls - fr->decl_base : 0;
}

/* A visible label named p[0..len) at or above index `from`, or NULL. */
static const sc_labeldef *find_label(const lp_scope *s, uint32_t from,
                                  const char *p, uint32_t len) {
  for (uint32_t i = from; i < s->nlabels; i++)
    if (s->labels[i].len == len && memcmp(s->labels[i].p, p, len) == 0)
      return &s->labels[i];
  return NULL;
}

static void drop_goto(lp_scope *s, uint32_t i) {
  memmove(&s->gotos[i], &s->gotos[i + 1], (s->ngotos - i - 1) * sizeof *s->gotos);
  s->ngotos--;
}

static void push_goto(lp_ctx *ctx, const char *p, uint32_t len, uint32_t line) {
  lp_scope *s = ctx->scope;
  if (s->ngotos == s->capgotos) {
    uint32_t nc = s->capgotos ? s->capgotos * 2 : 16;
    sc_jump *q = realloc(s->gotos, nc * sizeof *q);
    if (q == NULL) { lp_oom(ctx); return; }
    s->gotos = q; s->capgotos = nc;
  }
  sc_jump *g = &s->gotos[s->ngotos++];
  g->p = p; g->len = len; g->line = line;
  g->level = s->ndecls - cur_frame(s)->decl_base;
}

/* Block b closed: its pending gotos now stand in the enclosing block, with
** its locals; a label there defined before resolves them (backward). */
static void gotos_leave(lp_ctx *ctx, const sc_block *b) {
  lp_scope *s = ctx->scope;
  const sc_frame *fr = cur_frame(s);
  uint32_t level = b->decls - fr->decl_base, first = block_labels(s, fr);
  for (uint32_t i = b->gotos; i < s->ngotos;) {
    sc_jump *g = &s->gotos[i];
    if (g->level > level) g->level = level;
    if (g->p != NULL && find_label(s, first, g->p, g->len)) drop_goto(s, i);
    else i++;
  }
}

/* A goto or break nothing resolved by the end of its function (end: its
** `end`; NULL for the main chunk, at the end of input). */
static void goto_undefined(lp_ctx *ctx, const sc_jump *g, const lp_tok *end) {
  uint32_t line;
  if (ctx->version == LX_LUAJIT) line = g->line;   /* lj_parse.c sets it */
  else if (end == NULL) line = ctx->la.lastline;   /* the end of input */
  else if ((line = lp_line_after(ctx, (size_t)end->off + end->len, end->lastline)) == 0)
    return;                                        /* a lexical error first */
  int n = (int)g->len;
  if (g->p == NULL) {
    if (ctx->version == LX_LUAJIT) lp_reject(ctx, line, "no loop to break");
    else if (ctx->version == 54) lp_reject(ctx, line, "break outside loop at line %u", g->line);
    else lp_reject(ctx, line, "<break> at line %u not inside a loop", g->line);
  } else if (ctx->version == LX_LUAJIT) {
    lp_reject(ctx, line, "undefined label '%.*s'", n, g->p);
  } else {
    lp_reject(ctx, line, "no visible label '%.*s' for <goto> at line %u", n, g->p, g->line);
  }
}

/* stat -> GOTO NAME */
void sc_goto(lp_ctx *ctx, const lp_tok *kw, const lp_tok *name) {
  lp_scope *s = ctx->scope;
  const sc_frame *fr = cur_frame(s);
  if (ctx->error || fr == NULL) return;
  const char *p = ctx->src + name->off;
  /* the line lparser.c notes: where its lexer stands, on the keyword in
  ** 5.2 and 5.3, past it in 5.4; LuaJIT the name's too */
  uint32_t line = ctx->version == 52 || ctx->version == 53 ? kw->line : name->lastline;
  if (find_label(s, block_labels(s, fr), p, name->len)) return;   /* backward */
  push_goto(ctx, p, name->len, line);
}

/* stat -> BREAK */
void sc_break(lp_ctx *ctx, const lp_tok *kw) {
  lp_scope *s = ctx->scope;
  const sc_frame *fr = cur_frame(s);
  if (ctx->error || fr == NULL || fr->loops > 0) return;
  if (ctx->version == 51) {       /* lparser.c 5.1: at once, near the next token */
    lx_token t;
    if (!lp_peek(ctx, (size_t)kw->off + kw->len, kw->lastline, &t)) return;
    if (t.kind == LX_EOF) lp_reject(ctx, t.lastline, "no loop to break near '<eof>'");
    else lp_reject(ctx, t.lastline, "no loop to break near '%.*s'",
                   (int)(t.len > 40 ? 40 : t.len), ctx->src + t.off);
    return;
  }
  push_goto(ctx, NULL, 0, kw->line);  /* it never resolves */
}

/* The error of goto g, which a label resolves but which would jump into
** the scope of a local (line: where 5.2-5.4 see it); 0 if that local is
** not one Lua could name (a compiler's own: not a case Lua has). */
static int goto_into_scope(lp_ctx *ctx, const sc_jump *g, uint32_t line) {
  lp_scope *s = ctx->scope;
  const sc_decl *d = &s->decls[cur_frame(s)->decl_base + g->level];
  if (d->entry < 0) return 0;
  const sc_entry *e = &s->tab[d->entry];
  int n = (int)g->len, vn = (int)e->len;
  if (ctx->version == LX_LUAJIT)
    lp_reject(ctx, g->line, "<goto %.*s> jumps into the scope of local '%.*s'",
              n, g->p, vn, e->p);
  else
    lp_reject(ctx, line, "<goto %.*s> at line %u jumps into the scope of local '%.*s'",
              n, g->p, g->line, vn, e->p);
  return 1;
}

/* stat -> '::' NAME '::' */
void sc_label(lp_ctx *ctx, const lp_tok *open, const lp_tok *name, const lp_tok *close) {
  lp_scope *s = ctx->scope;
  const sc_frame *fr = cur_frame(s);
  if (ctx->error || fr == NULL) return;
  if (ctx->version == 51) {       /* no labels: `::` is two `:` there */
    lp_error_at(ctx, open->line, "unexpected symbol near ':'");
    return;
  }
  const char *p = ctx->src + name->off;
  uint32_t len = name->len;
  int n = (int)len;
  const sc_labeldef *d;
  /* 5.2, 5.3, LuaJIT: a name repeated in the block, seen at the `::` */
  if (ctx->version != 54 && (d = find_label(s, block_labels(s, fr), p, len)) != NULL) {
    if (ctx->version == LX_LUAJIT) lp_reject(ctx, close->line, "duplicate label '%.*s'", n, p);
    else lp_reject(ctx, close->line, "label '%.*s' already defined on line %u", n, p, d->line);
    return;
  }
  lx_token end;                   /* the token after its run of labels */
  if (!lp_after_labels(ctx, (size_t)close->off + close->len, close->lastline, &end))
    return;                       /* a lexical error first */
  int last = end.kind == LX_END || end.kind == LX_ELSE || end.kind == LX_ELSEIF ||
             end.kind == LX_EOF;
  /* 5.4: a name any visible label has, seen at the end of the run, whose
  ** labels it makes from the last to the first (so the line it names is
  ** the later one's when both are in the run) */
  if (ctx->version == 54 && (d = find_label(s, fr->label_base, p, len)) != NULL) {
    lp_reject(ctx, end.lastline, "label '%.*s' already defined on line %u", n, p,
              d->run == end.off ? open->line : d->line);
    return;
  }
  if (s->nlabels == s->caplabels) {
    uint32_t nc = s->caplabels ? s->caplabels * 2 : 16;
    sc_labeldef *q = realloc(s->labels, nc * sizeof *q);
    if (q == NULL) { lp_oom(ctx); return; }
    s->labels = q; s->caplabels = nc;
  }
  sc_labeldef *l = &s->labels[s->nlabels++];
  l->p = p; l->len = len; l->line = open->line; l->run = end.off;
  l->level = last ? block_level(s, fr) : s->ndecls - fr->decl_base;
  /* forward gotos of this block (its own, and those nested blocks left) */
  for (uint32_t i = block_gotos(s, fr); i < s->ngotos;) {
    const sc_jump *g = &s->gotos[i];
    if (g->p == NULL || g->len != len || memcmp(g->p, p, len) != 0) { i++; continue; }
    if (g->level < l->level && goto_into_scope(ctx, g, end.lastline)) return;
    drop_goto(s, i);
  }
}
