/*
** graph.c -- what a snapshot's graph says (docs/heap.md, "luaheap"): the
** Lua type of each node, the dominator tree from node 0 and the retained
** sizes it gives, a shortest path from node 0 to every node, and that
** path written like Lua.
**
** Dominators by Lengauer and Tarjan's algorithm ("A fast algorithm for
** finding dominators in a flowgraph", 1979), the simple version (path
** compression, no balancing: O(E log N)), over the strong edges only: a
** weak reference does not keep an object alive.  Everything is a loop
** over arrays: the depth-first search keeps its own stack and the path
** compression its own, so a 10^6-deep chain costs memory, not C stack.
*/
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"

#define PATH_HEAD 24   /* a path longer than PATH_HEAD + PATH_TAIL edges */
#define PATH_TAIL 24   /* is written with the middle left out */
#define KEY_MAX 120    /* bytes of a key written in a path */

/* ORDER LH_KIND */
static const char *const kind_names[] = {
  "table", "function", "C function", "string", "userdata", "light userdata",
  "thread", "prototype", "cdata", "root"
};

const char *lh_kind_name(const lh_heap *h, unsigned k)
{
  if (k < LH_KIND_OTHER) return kind_names[k];
  k -= LH_KIND_OTHER;
  return k < h->nntypes ? h->ntype_names[k] : "?";
}

static const char *str(const lh_heap *h, uint32_t i)
{
  return h->sbuf + h->soff[i];
}

static int starts(const lh_heap *h, uint32_t s, const char *prefix)
{
  size_t n = strlen(prefix);
  return h->slen[s] >= n && memcmp(str(h, s), prefix, n) == 0;
}

static int is(const lh_heap *h, uint32_t s, const char *name)
{
  return h->slen[s] == strlen(name) && strcmp(str(h, s), name) == 0;
}

/* Each node's Lua type from its node type and the start of its name
** (docs/heap.md, "Nodes").  A file without snapshot.lua (Chrome's) keeps
** its node types, synthetic nodes being roots in both. */
static void classify(lh_heap *h)
{
  uint8_t base[256];
  enum { B_OTHER, B_OBJECT, B_CLOSURE, B_STRING, B_NATIVE, B_CODE, B_HIDDEN,
         B_SYNTHETIC };
  static const char *const bnames[] = {"", "object", "closure", "string",
                                       "native", "code", "hidden",
                                       "synthetic"};
  for (uint32_t t = 0; t < h->nntypes; t++) {
    base[t] = B_OTHER;
    for (uint8_t b = 1; b < sizeof bnames / sizeof *bnames; b++)
      if (strcmp(h->ntype_names[t], bnames[b]) == 0) base[t] = b;
    if (!h->has_lua && base[t] != B_SYNTHETIC) base[t] = B_OTHER;
  }
  for (uint32_t v = 0; v < h->nnodes; v++) {
    uint32_t nm = h->name[v];
    uint8_t k;
    switch (base[h->ntype[v]]) {
    case B_OBJECT:
      k = is(h, nm, "thread") || is(h, nm, "thread (main)") ? LH_THREAD
                                                             : LH_TABLE;
      break;
    case B_CLOSURE:
      k = starts(h, nm, "C function") ? LH_CFUNCTION : LH_FUNCTION;
      break;
    case B_STRING: k = LH_STRING; break;
    case B_NATIVE:
      k = starts(h, nm, "light userdata") ? LH_LIGHTUD : LH_USERDATA;
      break;
    case B_CODE: k = LH_PROTO; break;
    case B_HIDDEN:
      k = starts(h, nm, "cdata") ? LH_CDATA
                                 : (uint8_t)(LH_KIND_OTHER + h->ntype[v]);
      break;
    case B_SYNTHETIC: k = LH_ROOT; break;
    default: k = (uint8_t)(LH_KIND_OTHER + h->ntype[v]); break;
    }
    h->kind[v] = k;
  }
}

int lh_edge_strong(const lh_heap *h, uint32_t src, uint32_t e)
{
  return h->etype[e] != LH_E_WEAK && (h->etype[e] != LH_E_SHORTCUT || src == 0);
}


/* ======================================================================
** Dominators
** ====================================================================== */

/* Lengauer-Tarjan's working arrays, indexed by depth-first number. */
typedef struct lt {
  uint32_t *num;      /* node -> depth-first number, LH_NONE unvisited */
  uint32_t *vert;     /* depth-first number -> node */
  uint32_t *par;      /* parent in the depth-first tree */
  uint32_t *semi;     /* semidominator */
  uint32_t *idom;     /* immediate dominator (relative, then final) */
  uint32_t *anc;      /* ancestor in the link-eval forest */
  uint32_t *label;    /* vertex of least semi on the compressed path */
  uint32_t *bucket;   /* head of the vertices whose semi is this one */
  uint32_t *next;     /* next in that bucket */
  uint32_t *stack;    /* the search's and compress's own stack */
  uint32_t *cursor;   /* the search: next edge of each node on the stack */
  uint32_t *pfirst;   /* predecessors by strong edges, CSR by target */
  uint32_t *pred;
  uint32_t n;         /* vertices reached */
} lt;

static void lt_free(lt *t)
{
  free(t->num); free(t->vert); free(t->par); free(t->semi); free(t->idom);
  free(t->anc); free(t->label); free(t->bucket); free(t->next);
  free(t->stack); free(t->cursor); free(t->pfirst); free(t->pred);
}

/* Depth-first from node 0 over strong edges: numbers, parents. */
static void lt_search(const lh_heap *h, lt *t)
{
  uint32_t sp = 0, n = 0;
  for (uint32_t v = 0; v < h->nnodes; v++) t->num[v] = LH_NONE;
  t->num[0] = n;
  t->vert[n] = 0;
  t->par[n++] = LH_NONE;
  t->stack[sp] = 0;
  t->cursor[sp++] = h->first_edge[0];
  while (sp > 0) {
    uint32_t v = t->stack[sp - 1], e = t->cursor[sp - 1];
    if (e == h->first_edge[v + 1]) {
      sp--;
      continue;
    }
    t->cursor[sp - 1] = e + 1;
    if (lh_edge_strong(h, v, e) && t->num[h->to[e]] == LH_NONE) {
      uint32_t w = h->to[e];
      t->num[w] = n;
      t->vert[n] = w;
      t->par[n++] = t->num[v];
      t->stack[sp] = w;
      t->cursor[sp++] = h->first_edge[w];
    }
  }
  t->n = n;
}

/* Predecessor lists (CSR) of the strong edges between reached nodes. */
static int lt_preds(const lh_heap *h, lt *t)
{
  uint32_t n = t->n;
  uint64_t total = 0;
  t->pfirst = calloc((size_t)n + 1, sizeof *t->pfirst);
  if (t->pfirst == NULL) return -1;
  for (uint32_t v = 0; v < h->nnodes; v++) {
    if (t->num[v] == LH_NONE) continue;
    for (uint32_t e = h->first_edge[v]; e < h->first_edge[v + 1]; e++)
      if (lh_edge_strong(h, v, e)) {
        t->pfirst[t->num[h->to[e]] + 1]++;   /* to[e] reached: v was */
        total++;
      }
  }
  for (uint32_t i = 0; i < n; i++) t->pfirst[i + 1] += t->pfirst[i];
  t->pred = malloc((size_t)(total + 1) * sizeof *t->pred);
  if (t->pred == NULL) return -1;
  /* fill, using cursor as each target's next free slot */
  memcpy(t->cursor, t->pfirst, (size_t)n * sizeof *t->cursor);
  for (uint32_t v = 0; v < h->nnodes; v++) {
    if (t->num[v] == LH_NONE) continue;
    for (uint32_t e = h->first_edge[v]; e < h->first_edge[v + 1]; e++)
      if (lh_edge_strong(h, v, e))
        t->pred[t->cursor[t->num[h->to[e]]]++] = t->num[v];
  }
  return 0;
}

/* compress(v), without recursion: the chain of ancestors up to the one
** whose ancestor is a forest root, then each updated from the top down,
** as the recursive version's returns would. */
static void lt_compress(lt *t, uint32_t v)
{
  uint32_t sp = 0, x = v;
  while (t->anc[t->anc[x]] != LH_NONE) {
    t->stack[sp++] = x;
    x = t->anc[x];
  }
  while (sp > 0) {
    uint32_t a;
    x = t->stack[--sp];
    a = t->anc[x];
    if (t->semi[t->label[a]] < t->semi[t->label[x]]) t->label[x] = t->label[a];
    t->anc[x] = t->anc[a];
  }
}

static uint32_t lt_eval(lt *t, uint32_t v)
{
  if (t->anc[v] == LH_NONE) return v;
  lt_compress(t, v);
  return t->label[v];
}

static void lt_dominators(lt *t)
{
  uint32_t n = t->n;
  for (uint32_t i = 0; i < n; i++) {
    t->semi[i] = t->label[i] = i;
    t->anc[i] = t->bucket[i] = LH_NONE;
  }
  for (uint32_t w = n - 1; w >= 1; w--) {
    uint32_t p = t->par[w];
    for (uint32_t k = t->pfirst[w]; k < t->pfirst[w + 1]; k++) {
      uint32_t x = lt_eval(t, t->pred[k]);
      if (t->semi[x] < t->semi[w]) t->semi[w] = t->semi[x];
    }
    t->next[w] = t->bucket[t->semi[w]];
    t->bucket[t->semi[w]] = w;
    t->anc[w] = p;                        /* link(p, w) */
    for (uint32_t v = t->bucket[p]; v != LH_NONE; v = t->next[v]) {
      uint32_t x = lt_eval(t, v);
      t->idom[v] = t->semi[x] < t->semi[v] ? x : p;
    }
    t->bucket[p] = LH_NONE;
  }
  for (uint32_t w = 1; w < n; w++)
    if (t->idom[w] != t->semi[w]) t->idom[w] = t->idom[t->idom[w]];
  t->idom[0] = LH_NONE;
}

/* Dominators and retained sizes into h. */
static int dominate(lh_heap *h)
{
  lt t;
  size_t n = (size_t)h->nnodes + 1;
  memset(&t, 0, sizeof t);
  t.num = malloc(n * sizeof *t.num);
  t.vert = malloc(n * sizeof *t.vert);
  t.par = malloc(n * sizeof *t.par);
  t.stack = malloc(n * sizeof *t.stack);
  t.cursor = malloc(n * sizeof *t.cursor);
  if (!t.num || !t.vert || !t.par || !t.stack || !t.cursor) goto oom;
  lt_search(h, &t);
  if (lt_preds(h, &t) < 0) goto oom;
  n = (size_t)t.n + 1;
  t.semi = malloc(n * sizeof *t.semi);
  t.idom = malloc(n * sizeof *t.idom);
  t.anc = malloc(n * sizeof *t.anc);
  t.label = malloc(n * sizeof *t.label);
  t.bucket = malloc(n * sizeof *t.bucket);
  t.next = malloc(n * sizeof *t.next);
  if (!t.semi || !t.idom || !t.anc || !t.label || !t.bucket || !t.next)
    goto oom;
  lt_dominators(&t);
  for (uint32_t v = 0; v < h->nnodes; v++) {
    h->idom[v] = LH_NONE;
    h->retained[v] = h->self[v];
  }
  for (uint32_t i = 1; i < t.n; i++) h->idom[t.vert[i]] = t.vert[t.idom[i]];
  /* a dominator is numbered before what it dominates: children first */
  for (uint32_t i = t.n - 1; i >= 1; i--)
    h->retained[t.vert[t.idom[i]]] += h->retained[t.vert[i]];
  lt_free(&t);
  return 0;
oom:
  lt_free(&t);
  return -1;
}


/* ======================================================================
** Shortest paths
** ====================================================================== */

/* Breadth first from node 0 over strong edges, in file order. */
static void shortest(lh_heap *h)
{
  uint32_t head = 0, tail = 0;
  for (uint32_t v = 0; v < h->nnodes; v++)
    h->bfs_edge[v] = h->bfs_parent[v] = LH_NONE;
  h->bfs_order[tail++] = 0;
  h->bfs_parent[0] = 0;   /* (visited; set back below) */
  h->bfs_depth[0] = 0;
  h->bfs_anchor[0] = 0;
  while (head < tail) {
    uint32_t v = h->bfs_order[head++];
    for (uint32_t e = h->first_edge[v]; e < h->first_edge[v + 1]; e++) {
      uint32_t w = h->to[e];
      if (h->bfs_parent[w] != LH_NONE || !lh_edge_strong(h, v, e)) continue;
      h->bfs_parent[w] = v;
      h->bfs_edge[w] = e;
      h->bfs_depth[w] = h->bfs_depth[v] + 1;
      h->bfs_anchor[w] = h->bfs_depth[w] <= PATH_HEAD ? w : h->bfs_anchor[v];
      h->bfs_order[tail++] = w;
    }
  }
  h->bfs_parent[0] = LH_NONE;
  h->nreachable = tail;
}

int lh_analyse(lh_heap *h, char *err, size_t errsz)
{
  size_t n = (size_t)h->nnodes + 1;
  classify(h);
  h->idom = malloc(n * sizeof *h->idom);
  h->retained = malloc(n * sizeof *h->retained);
  h->bfs_edge = malloc(n * sizeof *h->bfs_edge);
  h->bfs_parent = malloc(n * sizeof *h->bfs_parent);
  h->bfs_order = malloc(n * sizeof *h->bfs_order);
  h->bfs_depth = malloc(n * sizeof *h->bfs_depth);
  h->bfs_anchor = malloc(n * sizeof *h->bfs_anchor);
  if (!h->idom || !h->retained || !h->bfs_edge || !h->bfs_parent ||
      !h->bfs_order || !h->bfs_depth || !h->bfs_anchor || dominate(h) < 0) {
    snprintf(err, errsz, "%s: out of memory", h->file);
    return -1;
  }
  shortest(h);
  return 0;
}

uint32_t lh_find_id(const lh_heap *h, uint64_t id)
{
  for (uint32_t v = 0; v < h->nnodes; v++)
    if (h->id[v] == id) return v;
  return LH_NONE;
}


/* ======================================================================
** Paths written like Lua
** ====================================================================== */

int lh_buf_add(lh_buf *b, const char *s, size_t n)
{
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    char *p;
    while (cap < b->n + n + 1) cap *= 2;
    p = realloc(b->p, cap);
    if (p == NULL) return -1;
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
  return 0;
}

static int add(lh_buf *b, const char *s)
{
  return lh_buf_add(b, s, strlen(s));
}

static int is_keyword(const char *s, size_t n)
{
  static const char *const kw[] = {
    "and", "break", "do", "else", "elseif", "end", "false", "for",
    "function", "goto", "if", "in", "local", "nil", "not", "or", "repeat",
    "return", "then", "true", "until", "while"};
  for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
    if (strlen(kw[i]) == n && memcmp(kw[i], s, n) == 0) return 1;
  return 0;
}

/* A Lua name (and no keyword)?  With dots: names joined by dots, as the
** registry's "package.loaded". */
static int is_name(const char *s, size_t n, int dots)
{
  size_t start = 0;
  if (n == 0) return 0;
  for (size_t i = 0; i <= n; i++) {
    unsigned char c = i < n ? (unsigned char)s[i] : '.';
    if (c == '.') {
      if (i == start || (!dots && i < n) || is_keyword(s + start, i - start))
        return 0;
      start = i + 1;
    } else if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (i > start && c >= '0' && c <= '9'))) {
      return 0;
    }
  }
  return 1;
}

/* s written as a Lua string literal, cut after KEY_MAX bytes.  escaped:
** s is a name our writer made, its backslashes already escapes (a key is
** named as its string is: "\\", "\ddd"), so they pass as they are. */
static int add_quoted(lh_buf *b, const char *s, size_t n, int escaped)
{
  size_t m = n > KEY_MAX ? KEY_MAX : n;
  if (add(b, "\"") < 0) return -1;
  for (size_t i = 0; i < m; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[8];
    if (c == '"' || (c == '\\' && !escaped)) snprintf(esc, sizeof esc, "\\%c", c);
    else if (c == '\n') snprintf(esc, sizeof esc, "\\n");
    else if (c == '\t') snprintf(esc, sizeof esc, "\\t");
    else if (c == '\r') snprintf(esc, sizeof esc, "\\r");
    else if (c < 0x20 || c == 0x7f) snprintf(esc, sizeof esc, "\\%03u", c);
    else {
      esc[0] = (char)c;
      esc[1] = '\0';
    }
    if (add(b, esc) < 0) return -1;
  }
  return add(b, n > KEY_MAX ? "\"..." : "\"");
}

/* A string of the file, cut after KEY_MAX bytes. */
static int add_text(lh_buf *b, const char *s, size_t n)
{
  if (n <= KEY_MAX) return lh_buf_add(b, s, n);
  return lh_buf_add(b, s, KEY_MAX) < 0 ? -1 : add(b, "...");
}

/* A string key: .key or ["key"]. */
static int add_key(lh_buf *b, const char *s, size_t n, int bare, int escaped)
{
  if (is_name(s, n, 0) && n <= KEY_MAX) {
    if (!bare && add(b, ".") < 0) return -1;
    return lh_buf_add(b, s, n);
  }
  return add(b, "[") < 0 || add_quoted(b, s, n, escaped) < 0 ? -1
                                                              : add(b, "]");
}

/* " <WHAT NAME>" */
static int add_angle(lh_buf *b, const char *what, const char *s, size_t n)
{
  if (add(b, " <") < 0 || add(b, what) < 0) return -1;
  if (what[0] != '\0' && add(b, " ") < 0) return -1;
  return add_text(b, s, n) < 0 ? -1 : add(b, ">");
}

/* An internal edge's name (or a weak edge's, the same names as a string):
** "[KEY]" as it is, "(X)" as " <X>", digits as [N], else a key. */
static int add_named(lh_buf *b, const char *s, size_t n, int generalise,
                     int weak, int escaped)
{
  if (n > 0 && s[0] == '[')
    return generalise ? add(b, "[*]") : add_text(b, s, n);
  if (n >= 2 && s[0] == '(' && s[n - 1] == ')')
    return add_angle(b, "", s + 1, n - 2);
  if (weak) {
    size_t i = s[0] == '-' ? 1 : 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == n && n > (size_t)(s[0] == '-'))
      return generalise ? add(b, "[*]")
             : add(b, "[") < 0 || lh_buf_add(b, s, n) < 0 ? -1 : add(b, "]");
    return add_key(b, s, n, 0, escaped);
  }
  return add_angle(b, "", s, n);
}

int lh_segment(const lh_heap *h, lh_buf *b, uint32_t src, uint32_t e,
               int first, int generalise)
{
  char num[32];
  const char *s = NULL;
  size_t n = 0;
  int thread = h->kind[src] == LH_THREAD;
  lh_etype t = (lh_etype)h->etype[e];
  if (t != LH_E_ELEMENT && t != LH_E_HIDDEN) {
    s = str(h, (uint32_t)h->ename[e]);
    n = h->slen[h->ename[e]];
  }
  if (first) {
    /* out of a synthetic node: a thread as the main thread or the root
    ** that holds it (not "(registry)[1]": the registry's reference to the
    ** main thread is how Lua finds it, not who holds it); a name bare;
    ** else the node's name first */
    if (h->kind[h->to[e]] == LH_THREAD)
      return is(h, h->name[h->to[e]], "thread (main)")
                 ? add(b, "(main thread)")
                 : add_text(b, str(h, h->name[src]), h->slen[h->name[src]]);
    if ((t == LH_E_PROPERTY || t == LH_E_SHORTCUT) && is_name(s, n, 1) &&
        n <= KEY_MAX)
      return lh_buf_add(b, s, n);
    if (add_text(b, str(h, h->name[src]), h->slen[h->name[src]]) < 0)
      return -1;
  }
  switch (t) {
  case LH_E_PROPERTY:
  case LH_E_SHORTCUT:
    return add_key(b, s, n, 0, h->has_lua);
  case LH_E_ELEMENT:
    if (generalise) return add(b, "[*]");
    snprintf(num, sizeof num, "[%" PRId64 "]", h->ename[e]);
    return add(b, num);
  case LH_E_HIDDEN:
    snprintf(num, sizeof num, "%" PRId64, h->ename[e]);
    return add_angle(b, thread ? "stack" : "hidden", num, strlen(num));
  case LH_E_CONTEXT:
    return add_angle(b, thread ? "local" : "upvalue", s, n);
  case LH_E_INTERNAL:
    return add_named(b, s, n, generalise, 0, h->has_lua);
  case LH_E_WEAK:
    return add_named(b, s, n, generalise, 1, h->has_lua);
  default:
    return add_angle(b, "", s, n);
  }
}

/* Append the path of the edges edges[0..k-1] (edges[i] leading out of
** srcs[i]), root side first; gap > 0: that many steps left out before
** edges[PATH_HEAD]. */
static int render(const lh_heap *h, lh_buf *b, const uint32_t *edges,
                  const uint32_t *srcs, uint32_t k, uint32_t gap,
                  int generalise)
{
  int started = 0;
  for (uint32_t i = 0; i < k; i++) {
    uint32_t e = edges[i], src = srcs[i];
    if (gap > 0 && i == PATH_HEAD) {
      char note[64];
      snprintf(note, sizeof note, " ...(%" PRIu32 " steps)...", gap);
      if (add(b, note) < 0) return -1;
    }
    if (h->kind[h->to[e]] == LH_ROOT) continue;   /* into a root: nothing */
    if (lh_segment(h, b, src, e, !started && h->kind[src] == LH_ROOT,
                   generalise) < 0)
      return -1;
    started = 1;
  }
  return 0;
}

/* The edges of the path to v, root side first, into edges/srcs: all of
** them, or when there are more than PATH_HEAD + PATH_TAIL, the first and
** the last of them, found from both ends (the anchor at depth PATH_HEAD
** leads to the first), so a path 10^6 deep costs as little as any. */
static uint32_t path_edges(const lh_heap *h, uint32_t v, uint32_t *edges,
                           uint32_t *srcs, uint32_t *gap)
{
  uint32_t depth = h->bfs_depth[v], k = 0, x;
  *gap = 0;
  if (depth <= PATH_HEAD + PATH_TAIL) {
    k = depth;
    for (uint32_t i = k, y = v; y != 0; y = h->bfs_parent[y]) {
      edges[--i] = h->bfs_edge[y];
      srcs[i] = h->bfs_parent[y];
    }
    return k;
  }
  *gap = depth - PATH_HEAD - PATH_TAIL;
  x = v;
  for (uint32_t i = PATH_HEAD + PATH_TAIL; i > PATH_HEAD; x = h->bfs_parent[x]) {
    edges[--i] = h->bfs_edge[x];
    srcs[i] = h->bfs_parent[x];
  }
  x = h->bfs_anchor[v];
  for (uint32_t i = PATH_HEAD; i > 0; x = h->bfs_parent[x]) {
    edges[--i] = h->bfs_edge[x];
    srcs[i] = h->bfs_parent[x];
  }
  return PATH_HEAD + PATH_TAIL;
}

char *lh_path(const lh_heap *h, uint32_t v, int generalise)
{
  lh_buf b = {NULL, 0, 0};
  uint32_t edges[PATH_HEAD + PATH_TAIL], srcs[PATH_HEAD + PATH_TAIL], k, gap;
  if (v == 0 || h->kind[v] == LH_ROOT) {   /* a root: its name */
    if (v != 0 && h->bfs_edge[v] == LH_NONE) {
      errno = 0;
      return NULL;
    }
    if (add_text(&b, str(h, h->name[v]), h->slen[h->name[v]]) < 0 ||
        add(&b, "") < 0)
      goto oom;
    return b.p;
  }
  if (h->bfs_edge[v] == LH_NONE) {
    errno = 0;
    return NULL;
  }
  k = path_edges(h, v, edges, srcs, &gap);
  if (render(h, &b, edges, srcs, k, gap, generalise) < 0 || add(&b, "") < 0)
    goto oom;
  return b.p;
oom:
  free(b.p);
  errno = ENOMEM;
  return NULL;
}
