/*
** calltree.c -- the functions of user code and the call tree: a record
** per function (by chunk and definition) and a node per calling context,
** both in open-addressing hash tables, with the nodes found last cached
** by (parent, function) for the probe (li_node_child, profiler.h).
*/
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

/* ======================================================================
** Functions and call-tree nodes
** ====================================================================== */

/* FNV-1a's step a word (8 bytes) at a time, the last one zero-padded
** with its length on top. */
static uint64_t hash_words(uint64_t h, const char *s, size_t n) {
  uint64_t w;
  for (; n >= 8; s += 8, n -= 8) {
    memcpy(&w, s, 8);
    h = (h ^ w) * 1099511628211u;
  }
  w = (uint64_t)n << 56;
  memcpy(&w, s, n);            /* (n < 8: the length byte stays) */
  return (h ^ w) * 1099511628211u;
}

/* A chunk name's hash: the key of the chunks' table, and the seed of its
** functions' keys (fn_hash). */
static uint64_t chunk_hash(const char *chunkname) {
  return hash_words(14695981039346656037u, chunkname, strlen(chunkname));
}

char *li_dup_bytes(const char *s, size_t n) {
  char *c = malloc(n + 1);
  if (c == NULL) return NULL;
  memcpy(c, s, n);
  c[n] = '\0';
  return c;
}

/* The chunk name as Lua shows it in messages, written at out (room for
** strlen(chunkname) + 16 bytes). */
static void display_source(char *out, const char *chunkname) {
  size_t n = strlen(chunkname), line;
  if (chunkname[0] == '@' || chunkname[0] == '=') {
    memcpy(out, chunkname + 1, n);
    return;
  }
  line = strcspn(chunkname, "\r\n");
  if (line > 40) line = 40;
  memcpy(out, "[string \"", 9);
  memcpy(out + 9, chunkname, line);
  strcpy(out + 9 + line, line < n ? "...\"]" : "\"]");
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size) {
  uint32_t c = *cap ? *cap : 16;
  void *np;
  if (need <= *cap) return 1;
  while (c < need) c *= 2;
  np = realloc(*p, (size_t)c * size);
  if (np == NULL) return 0;
  *p = np;
  *cap = c;
  return 1;
}

/* Rebuild the functions' open-addressing table (indexes + 1, keyed by
** their hashes) with room for `need` functions at most half full. */
static int rehash_fns(li_prof *P, uint32_t need) {
  uint32_t cap = P->fnhcap ? P->fnhcap * 2 : 64;
  uint32_t *h;
  while (cap / 2 < need) cap *= 2;
  if ((h = calloc(cap, sizeof *h)) == NULL) return 0;
  for (uint32_t i = 0; i < P->nfn; i++) {
    uint32_t k = (uint32_t)P->fn[i].hash & (cap - 1);
    while (h[k]) k = (k + 1) & (cap - 1);
    h[k] = i + 1;
  }
  free(P->fnhash);
  P->fnhash = h;
  P->fnhcap = cap;
  return 1;
}

/* The profiler's one copy of chunkname (hash h: of its bytes and NUL),
** followed by its source (display_source); NULL when memory ran out. */
static const char *chunk_names(li_prof *P, const char *chunkname, uint64_t h) {
  size_t n = strlen(chunkname);
  uint32_t k;
  char *c;
  for (k = (uint32_t)h & (P->chunkhcap - 1); P->chunkhcap && P->chunkhash[k];
       k = (k + 1) & (P->chunkhcap - 1))
    if (strcmp(P->chunks[P->chunkhash[k] - 1], chunkname) == 0)
      return P->chunks[P->chunkhash[k] - 1];
  if ((P->nchunks + 1) * 2 > P->chunkhcap) {      /* at most half full */
    uint32_t cap = P->chunkhcap ? P->chunkhcap * 2 : 64;
    uint32_t *t = calloc(cap, sizeof *t);
    if (t == NULL) return NULL;
    for (uint32_t i = 0; i < P->nchunks; i++) {
      const char *o = P->chunks[i];
      k = (uint32_t)chunk_hash(o) & (cap - 1);
      while (t[k]) k = (k + 1) & (cap - 1);
      t[k] = i + 1;
    }
    free(P->chunkhash);
    P->chunkhash = t;
    P->chunkhcap = cap;
  }
  if (!grow((void **)&P->chunks, &P->capchunks, P->nchunks + 1, sizeof *P->chunks) ||
      (c = malloc(2 * n + 17)) == NULL)
    return NULL;
  memcpy(c, chunkname, n + 1);
  display_source(c + n + 1, chunkname);
  P->chunks[P->nchunks++] = c;
  for (k = (uint32_t)h & (P->chunkhcap - 1); P->chunkhash[k]; k = (k + 1) & (P->chunkhcap - 1)) {}
  P->chunkhash[k] = P->nchunks;
  return c;
}

/* n bytes for a function's name, from P->names: NULL when memory ran out. */
#define NAME_BLOCK 65536
static char *name_space(li_prof *P, size_t n) {
  char *b;
  if (n > P->names_left) {
    size_t size = n > NAME_BLOCK ? n : NAME_BLOCK;
    if (!grow((void **)&P->names, &P->capnames, P->nnames + 1, sizeof *P->names) ||
        (b = malloc(size)) == NULL)
      return NULL;
    P->names[P->nnames++] = b;
    P->names_next = b;
    P->names_left = size;
  }
  b = P->names_next;
  P->names_next += n;
  P->names_left -= n;
  return b;
}

int li_fn_chunk_begin(li_prof *P, li_fn_chunk *c, const char *chunkname,
                      uint32_t n) {
  c->chunkname = chunkname;
  c->hc = chunk_hash(chunkname);
  c->n = n;
  c->names = chunk_names(P, chunkname, c->hc);
  c->source = c->names != NULL ? c->names + strlen(c->names) + 1 : NULL;
  return c->names != NULL;
}

/* Room for one more function record, made for the `left` still to come
** of its chunk at once: a chunk of 100,000 functions gets one array of
** exactly that many records, not the doubling series whose last step left
** 31,000 records unused. */
static int fn_room(li_prof *P, uint32_t left) {
  uint32_t need = P->nfn + (left ? left : 1), cap;
  li_fn *f;
  if (P->nfn < P->capfn) return 1;
  cap = P->capfn * 2 > need ? P->capfn * 2 : need < 16 ? 16 : need;
  if ((f = realloc(P->fn, (size_t)cap * sizeof *f)) == NULL) return 0;
  P->fn = f;
  P->capfn = cap;
  return 1;
}

/* A function's key hashed after its chunk name's (h): the name, then the
** numbers.  Only the records' table uses it. */
static uint64_t fn_hash(uint64_t h, const char *pre, size_t prelen,
                        const char *name, size_t namelen, uint32_t id,
                        uint32_t line, uint32_t lastline) {
  if (prelen > 0) h = hash_words(h, pre, prelen);
  h = hash_words(h, name, namelen);
  h = (h ^ id) * 1099511628211u;
  h = (h ^ line) * 1099511628211u;
  h = (h ^ lastline) * 1099511628211u;
  return h ^ h >> 32;          /* (the table's slot is the low bits) */
}

/* li_fn_chunk_find with a prefix for the name ("zone ").  The table is
** made room in first, so the free slot where the search ends is where a
** new record goes; the records only when one is made (a chunk loaded
** again finds its functions). */
static uint32_t chunk_find(li_prof *P, const li_fn_chunk *c, uint32_t id,
                           const char *pre, size_t prelen, const char *name,
                           size_t namelen, uint32_t line, uint32_t lastline) {
  uint64_t h = fn_hash(c->hc, pre, prelen, name, namelen, id, line, lastline);
  uint32_t k, i, mask, left = id <= c->n ? c->n - id + 1 : 1;
  li_fn *f;
  if ((P->nfn + 1) * 2 > P->fnhcap && !rehash_fns(P, P->nfn + left))
    return LI_NONE;
  mask = P->fnhcap - 1;
  for (k = (uint32_t)h & mask; P->fnhash[k]; k = (k + 1) & mask) {
    f = &P->fn[P->fnhash[k] - 1];
    if (f->hash == h && f->id == id && f->line == line &&
        f->lastline == lastline &&
        f->chunkname == c->names &&       /* (one copy of each name) */
        strlen(f->name) == prelen + namelen &&
        memcmp(f->name, pre, prelen) == 0 &&
        memcmp(f->name + prelen, name, namelen) == 0)
      return P->fnhash[k] - 1;
  }
  if (!fn_room(P, left)) return LI_NONE;
  f = &P->fn[P->nfn];
  memset(f, 0, sizeof *f);
  if ((f->name = name_space(P, prelen + namelen + 1)) == NULL) return LI_NONE;
  f->chunkname = c->names;
  f->source = c->source;
  memcpy(f->name, pre, prelen);
  memcpy(f->name + prelen, name, namelen);
  f->name[prelen + namelen] = '\0';
  f->id = id; f->line = line; f->lastline = lastline; f->hash = h;
  f->zone = prelen > 0;
  i = P->nfn++;
  P->fnhash[k] = i + 1;
  return i;
}

uint32_t li_fn_chunk_find(li_prof *P, const li_fn_chunk *c, uint32_t id,
                          const char *name, size_t namelen, uint32_t line,
                          uint32_t lastline) {
  return chunk_find(P, c, id, "", 0, name, namelen, line, lastline);
}

uint32_t li_fn_find_pre(li_prof *P, const char *chunkname, uint32_t id,
                        const char *pre, size_t prelen,
                        const char *name, size_t namelen, uint32_t line,
                        uint32_t lastline) {
  li_fn_chunk c;
  if (!li_fn_chunk_begin(P, &c, chunkname, 0)) return LI_NONE;
  return chunk_find(P, &c, id, pre, prelen, name, namelen, line, lastline);
}

uint32_t li_fn_find(li_prof *P, const char *chunkname, uint32_t id,
                    const char *name, size_t namelen, uint32_t line,
                    uint32_t lastline) {
  return li_fn_find_pre(P, chunkname, id, "", 0, name, namelen, line, lastline);
}

static uint32_t node_hash(uint32_t parent, uint32_t func) {
  uint64_t x = ((uint64_t)parent << 32 | func) * 0x9E3779B97F4A7C15u;
  return (uint32_t)(x >> 32);
}

static int rehash_nodes(li_prof *P) {
  uint32_t cap = P->nodehcap ? P->nodehcap * 2 : 256;
  uint32_t *h = calloc(cap, sizeof *h);
  if (h == NULL) return 0;
  for (uint32_t i = 1; i < P->nnode; i++) {
    uint32_t k = node_hash(P->node[i].parent, P->node[i].func) & (cap - 1);
    while (h[k]) k = (k + 1) & (cap - 1);
    h[k] = i;
  }
  free(P->nodehash);
  P->nodehash = h;
  P->nodehcap = cap;
  return 1;
}

/* node_child's search when the node found last in its slot is not the
** one. */
LI_NOINLINE uint32_t li_node_child_slow(li_prof *P, uint32_t parent,
                                        uint32_t func) {
  uint32_t k, i;
  for (k = node_hash(parent, func) & (P->nodehcap - 1); P->nodehash[k];
       k = (k + 1) & (P->nodehcap - 1)) {
    i = P->nodehash[k];
    if (P->node[i].parent == parent && P->node[i].func == func) {
      P->kids[li_kid_slot(parent, func)] = i;
      return i;
    }
  }
  if ((P->nnode + 1) * 2 > P->nodehcap && !rehash_nodes(P)) return LI_NONE;
  if (!grow((void **)&P->node, &P->capnode, P->nnode + 1, sizeof *P->node))
    return LI_NONE;
  i = P->nnode++;
  memset(&P->node[i], 0, sizeof P->node[i]);
  P->node[i].func = func;
  P->node[i].parent = parent;
  P->node[i].min = INT64_MAX;
  P->node[i].max = INT64_MIN;
  P->kids[li_kid_slot(parent, func)] = i;
  for (k = node_hash(parent, func) & (P->nodehcap - 1); P->nodehash[k];
       k = (k + 1) & (P->nodehcap - 1)) {}
  P->nodehash[k] = i;
  return i;
}


/* Node 0, the root: there is always one. */
int li_tree_init(li_prof *P) {
  P->nnode = 0;
  if (!grow((void **)&P->node, &P->capnode, 1, sizeof *P->node)) return 0;
  memset(&P->node[0], 0, sizeof P->node[0]);
  P->node[0].func = LI_NONE;
  P->node[0].parent = LI_NONE;
  P->node[0].min = INT64_MAX;
  P->node[0].max = INT64_MIN;
  P->nnode = 1;
  memset(P->kids, 0, sizeof P->kids);
  /* a table there already is emptied, not made again: a reset needs no
  ** memory, so it cannot leave the profiler without one */
  if (P->nodehash != NULL) {
    memset(P->nodehash, 0, (size_t)P->nodehcap * sizeof *P->nodehash);
    return 1;
  }
  return rehash_nodes(P);
}
