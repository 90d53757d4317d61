/*
** summary.c -- luaheap's reports (docs/heap.md, "luaheap"): summary, diff
** and path, each as text for a person and as JSON for the html report
** (the schema under "luaheap --json").
**
** Each report loads what it needs first and writes only once everything
** is read and analysed, so a bad file writes nothing.  Lists are sorted
** with every tie broken (bytes, count, then node number or name), so the
** same files always give the same bytes.
*/
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "writers.h"

#define NAME_MAX_OUT 100   /* bytes of a name written */
#define MERGE_KEYS 16      /* string keys of one holder that make a group */
#define GROUP_SITES 5      /* allocating functions listed per group */
#define INDENT "                             "   /* under a list's path */

/* qsort, which must not be given NULL even for no elements */
static void sort(void *base, size_t n, size_t size,
                 int (*cmp)(const void *, const void *))
{
  if (n > 1) qsort(base, n, size, cmp);
}

static const char *const etype_names[] = {   /* ORDER lh_etype */
  "context", "element", "property", "internal", "hidden", "shortcut", "weak",
  "other"
};

static const char *str(const lh_heap *h, uint32_t i)
{
  return h->sbuf + h->soff[i];
}

/* How much of a name to write: at most NAME_MAX_OUT bytes, not cutting a
** UTF-8 sequence; *cut when something was left out. */
static size_t name_len(const char *s, size_t n, int *cut)
{
  *cut = n > NAME_MAX_OUT;
  if (!*cut) return n;
  n = NAME_MAX_OUT;
  while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80) n--;
  return n;
}

/* Does a node's name say more than its type?  ("table" does not.) */
static int telling_name(const lh_heap *h, uint32_t v)
{
  const char *k = lh_kind_name(h, h->kind[v]);
  if (h->slen[h->name[v]] == 0) return 0;
  return !(h->slen[h->name[v]] == strlen(k) && strcmp(str(h, h->name[v]), k) == 0);
}

static int failed_write(FILE *f, char *err, size_t errsz)
{
  if (fflush(f) == 0 && !ferror(f)) return 0;
  snprintf(err, errsz, "write error: %s", strerror(errno ? errno : EIO));
  return -1;
}


/* ======================================================================
** Output pieces
** ====================================================================== */

static void json_name(FILE *f, const lh_heap *h, uint32_t s)
{
  int cut;
  size_t n = name_len(str(h, s), h->slen[s], &cut);
  if (!cut) {
    li_json_lstring(f, str(h, s), n);
  } else {   /* the cut name and "...", as one literal */
    char *b = malloc(n + 4);
    if (b == NULL) {
      li_json_lstring(f, str(h, s), n);
      return;
    }
    memcpy(b, str(h, s), n);
    memcpy(b + n, "...", 3);
    li_json_lstring(f, b, n + 3);
    free(b);
  }
}

static void text_name(FILE *f, const char *s, size_t len)
{
  int cut;
  size_t n = name_len(s, len, &cut);
  char *b = malloc(n + 1);
  if (b != NULL) {
    memcpy(b, s, n);
    b[n] = '\0';
    li_put_line_text(f, b, NULL);   /* (stops at a NUL: none is written) */
    free(b);
  }
  if (cut) fputs("...", f);
}

/* v's name after a space when it says more than its type; a string's in
** quotes. */
static void text_node_name(FILE *f, const lh_heap *h, uint32_t v,
                           const char *sep)
{
  int q = h->kind[v] == LH_STRING;
  if (!telling_name(h, v)) return;
  fputs(sep, f);
  if (q) fputc('"', f);
  text_name(f, str(h, h->name[v]), h->slen[h->name[v]]);
  if (q) fputc('"', f);
}

/* The path of v as JSON: a string, or null. */
static int json_path(FILE *f, const lh_heap *h, uint32_t v)
{
  char *p = lh_path(h, v, 0);
  if (p == NULL) {
    fputs("null", f);
    return errno == ENOMEM ? -1 : 0;
  }
  li_json_lstring(f, p, strlen(p));
  free(p);
  return 0;
}

static int json_object(FILE *f, const lh_heap *h, uint32_t v)
{
  fprintf(f, "{\"id\":%" PRIu64 ",\"node\":%" PRIu32 ",\"type\":", h->id[v], v);
  li_json_string(f, lh_kind_name(h, h->kind[v]));
  fputs(",\"name\":", f);
  json_name(f, h, h->name[v]);
  fprintf(f, ",\"self_size\":%" PRIu64 ",\"retained_size\":%" PRIu64
          ",\"path\":", h->self[v], h->retained[v]);
  if (json_path(f, h, v) < 0) return -1;
  fputs(",\"site\":", f);
  if (h->site_of != NULL && h->site_of[v] != LH_NONE)
    li_json_string(f, h->sites[h->site_of[v]]);
  else
    fputs("null", f);
  fputc('}', f);
  return 0;
}

/* One object as a line of text: sizes, type, path, id, name. */
static int text_object(FILE *f, const lh_heap *h, uint32_t v)
{
  char *p = lh_path(h, v, 0);
  if (p == NULL && errno == ENOMEM) return -1;
  fprintf(f, "  %12" PRIu64 " %12" PRIu64 "  %-14s ", h->self[v],
          h->retained[v], lh_kind_name(h, h->kind[v]));
  if (p != NULL) li_put_line_text(f, p, NULL);
  else fputs("(no path: held weakly or not at all)", f);
  fprintf(f, "  @%" PRIu64, h->id[v]);
  text_node_name(f, h, v, " ");
  fputc('\n', f);
  free(p);
  return 0;
}


/* ======================================================================
** Counting by type, choosing the top N
** ====================================================================== */

typedef struct tally {
  uint64_t count, bytes;
} tally;

/* A row of a "by type" table. */
typedef struct type_row {
  unsigned kind;
  tally t;
} type_row;

static int cmp_tally(const tally *a, const tally *b)
{
  if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  return 0;
}

static const lh_heap *sort_heap;   /* qsort's context (one sort at a time) */

static int cmp_type_row(const void *pa, const void *pb)
{
  const type_row *a = pa, *b = pb;
  int c = cmp_tally(&a->t, &b->t);
  return c != 0 ? c : strcmp(lh_kind_name(sort_heap, a->kind),
                             lh_kind_name(sort_heap, b->kind));
}

/* The rows with a count, sorted; by[256] indexed by kind. */
static uint32_t type_rows(const lh_heap *h, const tally *by, type_row *rows)
{
  uint32_t n = 0;
  for (unsigned k = 0; k < 256; k++)
    if (by[k].count > 0) {
      rows[n].kind = k;
      rows[n++].t = by[k];
    }
  sort_heap = h;
  sort(rows, n, sizeof *rows, cmp_type_row);
  return n;
}

static void json_types(FILE *f, const lh_heap *h, const tally *by)
{
  type_row rows[256];
  uint32_t n = type_rows(h, by, rows);
  fputc('[', f);
  for (uint32_t i = 0; i < n; i++) {
    fputs(i ? ",{\"type\":" : "{\"type\":", f);
    li_json_string(f, lh_kind_name(h, rows[i].kind));
    fprintf(f, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
            rows[i].t.count, rows[i].t.bytes);
  }
  fputc(']', f);
}

static void text_types(FILE *f, const lh_heap *h, const tally *by)
{
  type_row rows[256];
  uint32_t n = type_rows(h, by, rows);
  fprintf(f, "  %12s %12s  %s\n", "count", "bytes", "type");
  for (uint32_t i = 0; i < n; i++)
    fprintf(f, "  %12" PRIu64 " %12" PRIu64 "  %s\n", rows[i].t.count,
            rows[i].t.bytes, lh_kind_name(h, rows[i].kind));
}

/* Is a before b in a list by value (larger first, then lower node)? */
static int before(const uint64_t *val, uint32_t a, uint32_t b)
{
  return val[a] != val[b] ? val[a] > val[b] : a < b;
}

/* The top nodes (no root; reached: only those reached from node 0) by
** val, best first, in out[0..*n-1]: a bounded heap whose root is the
** worst kept. */
static void top_nodes(const lh_heap *h, const uint64_t *val, unsigned top,
                      int reached, uint32_t *out, uint32_t *n)
{
  uint32_t k = 0;
  for (uint32_t v = 0; v < h->nnodes && top > 0; v++) {
    uint32_t i;
    if (h->kind[v] == LH_ROOT || (reached && h->bfs_edge[v] == LH_NONE))
      continue;
    if (k < top) {
      i = k++;
      while (i > 0 && before(val, out[(i - 1) / 2], v)) {
        out[i] = out[(i - 1) / 2];
        i = (i - 1) / 2;
      }
      out[i] = v;
      continue;
    }
    if (!before(val, v, out[0])) continue;
    i = 0;   /* replace the worst, sift down */
    for (;;) {
      uint32_t c = 2 * i + 1;
      if (c >= k) break;
      if (c + 1 < k && before(val, out[c], out[c + 1])) c++;
      if (!before(val, v, out[c])) break;
      out[i] = out[c];
      i = c;
    }
    out[i] = v;
  }
  /* heap to sorted: pop the worst to the end */
  for (uint32_t m = k; m > 1; m--) {
    uint32_t last = out[m - 1], i = 0, worst = out[0];
    for (;;) {
      uint32_t c = 2 * i + 1;
      if (c >= m - 1) break;
      if (c + 1 < m - 1 && before(val, out[c], out[c + 1])) c++;
      if (!before(val, last, out[c])) break;
      out[i] = out[c];
      i = c;
    }
    out[i] = last;
    out[m - 1] = worst;
  }
  *n = k;
}


/* ======================================================================
** summary
** ====================================================================== */

static void text_lua(FILE *f, const lh_heap *h)
{
  if (!h->has_lua) {
    fputs("no snapshot.lua (not written by luainstr): node types shown\n", f);
    return;
  }
  fprintf(f, "%s%s, %s sizes, %s",
          strcmp(h->lua_version, "jit") == 0 ? "LuaJIT" : "Lua ",
          strcmp(h->lua_version, "jit") == 0 ? "" : h->lua_version,
          h->exact ? "exact" : "estimated",
          h->collected ? "after a full collection" : "no collection first");
  if (h->taken_ns > 0) {
    char t[32];
    li_fmt_ns(t, sizeof t, h->taken_ns);
    fprintf(f, ", taken at %s", t);
  }
  fputc('\n', f);
}

int lh_write_summary(FILE *f, const lh_heap *h, unsigned top, int json)
{
  tally by[256], lost = {0, 0};
  uint32_t *list = malloc(((size_t)top + 1) * sizeof *list), n;
  if (list == NULL) return -1;
  memset(by, 0, sizeof by);
  for (uint32_t v = 0; v < h->nnodes; v++) {
    if (h->kind[v] != LH_ROOT) {
      by[h->kind[v]].count++;
      by[h->kind[v]].bytes += h->self[v];
    }
    if (v != 0 && h->bfs_edge[v] == LH_NONE) {
      lost.count++;
      lost.bytes += h->self[v];
    }
  }
  if (json) {
    fputs("{\"luaheap\":1,\"command\":\"summary\",\"file\":", f);
    li_json_string(f, h->file);
    fputs(",\"lua\":", f);
    if (h->has_lua) {
      fputs("{\"version\":", f);
      li_json_string(f, h->lua_version);
      fprintf(f, ",\"exact\":%s,\"collected\":%s,\"gc_count_bytes\":",
              h->exact ? "true" : "false", h->collected ? "true" : "false");
      if (h->has_gc_count) fprintf(f, "%" PRIu64, h->gc_count_bytes);
      else fputs("null", f);
      fprintf(f, ",\"taken_ns\":%" PRIu64 "}", h->taken_ns);
    } else {
      fputs("null", f);
    }
    fprintf(f, ",\"nodes\":%" PRIu32 ",\"edges\":%" PRIu32 ",\"bytes\":%"
            PRIu64 ",\"unreachable\":{\"count\":%" PRIu64 ",\"bytes\":%"
            PRIu64 "},\"types\":", h->nnodes, h->nedges, h->total_self,
            lost.count, lost.bytes);
    json_types(f, h, by);
    fputs(",\"largest\":[", f);
    top_nodes(h, h->self, top, 0, list, &n);
    for (uint32_t i = 0; i < n; i++) {
      if (i) fputc(',', f);
      if (json_object(f, h, list[i]) < 0) goto oom;
    }
    fputs("],\"retainers\":[", f);
    top_nodes(h, h->retained, top, 1, list, &n);
    for (uint32_t i = 0; i < n; i++) {
      if (i) fputc(',', f);
      if (json_object(f, h, list[i]) < 0) goto oom;
    }
    fputs("]}\n", f);
  } else {
    fputs("luaheap summary ", f);
    li_put_line_text(f, h->file, NULL);
    fputc('\n', f);
    text_lua(f, h);
    fprintf(f, "%" PRIu32 " nodes, %" PRIu32 " edges, %" PRIu64 " bytes\n",
            h->nnodes, h->nedges, h->total_self);
    if (h->has_lua && h->has_gc_count) {
      fprintf(f, "collectgarbage(\"count\"): %" PRIu64 " bytes", h->gc_count_bytes);
      if (h->gc_count_bytes > 0)
        fprintf(f, "; the objects' sizes are %.1f%% of it",
                100.0 * (double)h->total_self / (double)h->gc_count_bytes);
      fputc('\n', f);
    }
    if (lost.count > 0)
      fprintf(f, "not reachable from the roots through strong references: %"
              PRIu64 " objects, %" PRIu64 " bytes\n", lost.count, lost.bytes);
    fputs("\nBy type\n", f);
    text_types(f, h, by);
    fputs("\nLargest objects\n", f);
    fprintf(f, "  %12s %12s  %-14s %s\n", "bytes", "retained", "type", "path");
    top_nodes(h, h->self, top, 0, list, &n);
    for (uint32_t i = 0; i < n; i++)
      if (text_object(f, h, list[i]) < 0) goto oom;
    fputs("\nBiggest retained sizes\n", f);
    fprintf(f, "  %12s %12s  %-14s %s\n", "bytes", "retained", "type", "path");
    top_nodes(h, h->retained, top, 1, list, &n);
    for (uint32_t i = 0; i < n; i++)
      if (text_object(f, h, list[i]) < 0) goto oom;
  }
  free(list);
  return 0;
oom:
  free(list);
  return -1;
}

int lh_summary(FILE *f, const char *path, unsigned top, int json, char *err,
               size_t errsz)
{
  lh_heap *h = lh_load(path, err, errsz);
  int rc;
  if (h == NULL) return -1;
  rc = lh_write_summary(f, h, top, json);
  lh_free(h);
  if (rc < 0) {
    snprintf(err, errsz, "%s: out of memory", path);
    return -1;
  }
  return failed_write(f, err, errsz);
}

int lh_write_summary_json(FILE *f, const char *path, char *err, size_t errsz)
{
  return lh_summary(f, path, LH_JSON_TOP, 1, err, errsz);
}


/* ======================================================================
** diff
** ====================================================================== */

/* A set of (id, kind) pairs: open addressing over the ids. */
typedef struct idset {
  uint64_t *id;
  uint8_t *kind;
  uint8_t *used;
  size_t mask;
} idset;

/* (keyed: ids are the file's, and an invertible hash of them let two
** crafted 80k-node snapshots take 33.7 s to diff instead of 0.15) */
static size_t hash_id(uint64_t id)
{
  return (size_t)li_hash_keyed(id);
}

/* Objects that a diff compares: not roots, not light userdata (their
** ids are counted, not addresses). */
static int comparable(const lh_heap *h, uint32_t v)
{
  return h->kind[v] != LH_ROOT && h->kind[v] != LH_LIGHTUD;
}

static int idset_make(idset *s, const lh_heap *h)
{
  size_t cap = 16;
  while (cap < (size_t)h->nnodes * 2) cap *= 2;
  s->id = malloc(cap * sizeof *s->id);
  s->kind = malloc(cap);
  s->used = calloc(cap, 1);
  s->mask = cap - 1;
  if (!s->id || !s->kind || !s->used) return -1;
  for (uint32_t v = 0; v < h->nnodes; v++) {
    size_t i;
    if (!comparable(h, v)) continue;
    i = hash_id(h->id[v]) & s->mask;
    while (s->used[i] && !(s->id[i] == h->id[v] && s->kind[i] == h->kind[v]))
      i = (i + 1) & s->mask;
    s->used[i] = 1;
    s->id[i] = h->id[v];
    s->kind[i] = h->kind[v];
  }
  return 0;
}

static int idset_has(const idset *s, uint64_t id, uint8_t kind)
{
  size_t i = hash_id(id) & s->mask;
  while (s->used[i]) {
    if (s->id[i] == id && s->kind[i] == kind) return 1;
    i = (i + 1) & s->mask;
  }
  return 0;
}

static void idset_free(idset *s)
{
  free(s->id);
  free(s->kind);
  free(s->used);
}

/* Counts under a key (a kind or a site) within a group. */
typedef struct sub {
  uint32_t key;
  tally t;
} sub;

typedef struct subs {
  sub *v;
  uint32_t n, cap;
  uint32_t *slot;       /* index + 1 of v by key, open addressing; NULL */
  uint32_t mask;        /* until there are more than a few (a scan of 80k
                           sites per object took 9.5 s) */
} subs;

#define SUBS_SCAN 8     /* up to this many keys, a scan */

/* The slot of key in s's index: its entry's, or the empty one to take. */
static uint32_t subs_slot(const subs *s, uint32_t key)
{
  uint32_t j = (uint32_t)li_hash_keyed(key) & s->mask;
  while (s->slot[j] != 0 && s->v[s->slot[j] - 1].key != key) j = (j + 1) & s->mask;
  return j;
}

/* The index for s->n + 1 entries: 0, or -1 when memory ran out. */
static int subs_index(subs *s)
{
  uint32_t nslots = s->slot != NULL ? s->mask + 1 : 0, *old = s->slot;
  if (s->n + 1 <= SUBS_SCAN || (s->n + 1) * 2 <= nslots) return 0;
  nslots = nslots ? nslots * 2 : 64;
  if ((s->slot = calloc(nslots, sizeof *s->slot)) == NULL) {
    s->slot = old;
    return -1;
  }
  s->mask = nslots - 1;
  free(old);
  for (uint32_t i = 0; i < s->n; i++) s->slot[subs_slot(s, s->v[i].key)] = i + 1;
  return 0;
}

static int subs_add(subs *s, uint32_t key, uint64_t bytes)
{
  uint32_t i = UINT32_MAX, j = 0;
  if (s->slot != NULL) {
    j = subs_slot(s, key);
    if (s->slot[j] != 0) i = s->slot[j] - 1;
  } else {
    for (uint32_t k = 0; k < s->n && i == UINT32_MAX; k++)
      if (s->v[k].key == key) i = k;
  }
  if (i != UINT32_MAX) {
    s->v[i].t.count++;
    s->v[i].t.bytes += bytes;
    return 0;
  }
  if (s->n == s->cap) {
    uint32_t cap = s->cap ? s->cap * 2 : 4;
    sub *v = realloc(s->v, cap * sizeof *v);
    if (v == NULL) return -1;
    s->v = v;
    s->cap = cap;
  }
  if (subs_index(s) < 0) return -1;
  s->v[s->n].key = key;
  s->v[s->n].t.count = 1;
  s->v[s->n].t.bytes = bytes;
  s->n++;
  if (s->slot != NULL) s->slot[subs_slot(s, key)] = s->n;
  return 0;
}

static void subs_free(subs *s)
{
  free(s->v);
  free(s->slot);
}

/* Sorted for output: the index by key no longer holds (dropped: an add
** after it scans). */
static void subs_sort(subs *x, int (*cmp)(const void *, const void *))
{
  sort(x->v, x->n, sizeof *x->v, cmp);
  free(x->slot);
  x->slot = NULL;
}

static const char *const *sort_names;   /* names of sub keys for sorting */

static int cmp_sub(const void *pa, const void *pb)
{
  const sub *a = pa, *b = pb;
  int c = cmp_tally(&a->t, &b->t);
  return c != 0 ? c : strcmp(sort_names[a->key], sort_names[b->key]);
}

static int cmp_sub_kind(const void *pa, const void *pb)
{
  const sub *a = pa, *b = pb;
  int c = cmp_tally(&a->t, &b->t);
  return c != 0 ? c : strcmp(lh_kind_name(sort_heap, a->key),
                             lh_kind_name(sort_heap, b->key));
}

/* A group of new objects: one retaining path. */
typedef struct group {
  char *path;          /* generalised; NULL: no path */
  tally t;
  subs kinds, sites;
  uint32_t example;    /* the top object with the most new bytes under it */
  uint64_t example_bytes;
} group;

/* The groups by path: open addressing over the path strings. */
typedef struct groups {
  group *v;
  uint32_t n, cap;
  uint32_t *slot;      /* index + 1, 0 empty */
  size_t mask;
} groups;

static uint32_t hash_s(const char *s)
{
  uint32_t x = 2166136261u;
  while (*s) x = (x ^ (unsigned char)*s++) * 16777619u;
  return x;
}

/* The group of path (NULL: the one without a path), made if new; path
** is taken over.  LH_NONE when memory ran out. */
static uint32_t group_of(groups *g, char *path)
{
  size_t i;
  if ((size_t)(g->n + 1) * 2 > g->mask + 1 || g->slot == NULL) {
    size_t cap = g->slot ? (g->mask + 1) * 2 : 64;
    uint32_t *slot = calloc(cap, sizeof *slot);
    if (slot == NULL) goto oom;
    for (uint32_t k = 0; k < g->n; k++) {
      i = (g->v[k].path ? hash_s(g->v[k].path) : 0) & (cap - 1);
      while (slot[i] != 0) i = (i + 1) & (cap - 1);
      slot[i] = k + 1;
    }
    free(g->slot);
    g->slot = slot;
    g->mask = cap - 1;
  }
  i = (path ? hash_s(path) : 0) & g->mask;
  while (g->slot[i] != 0) {
    group *x = &g->v[g->slot[i] - 1];
    if ((x->path == NULL && path == NULL) ||
        (x->path != NULL && path != NULL && strcmp(x->path, path) == 0)) {
      free(path);
      return g->slot[i] - 1;
    }
    i = (i + 1) & g->mask;
  }
  if (g->n == g->cap) {
    uint32_t cap = g->cap ? g->cap * 2 : 16;
    group *v = realloc(g->v, cap * sizeof *v);
    if (v == NULL) goto oom;
    g->v = v;
    g->cap = cap;
  }
  memset(&g->v[g->n], 0, sizeof g->v[g->n]);
  g->v[g->n].path = path;
  g->v[g->n].example = LH_NONE;
  g->slot[i] = ++g->n;
  return g->n - 1;
oom:
  free(path);
  return LH_NONE;
}

static void groups_free(groups *g)
{
  for (uint32_t i = 0; i < g->n; i++) {
    free(g->v[i].path);
    subs_free(&g->v[i].kinds);
    subs_free(&g->v[i].sites);
  }
  free(g->v);
  free(g->slot);
}

static int cmp_group(const void *pa, const void *pb)
{
  const group *a = pa, *b = pb;
  int c = cmp_tally(&a->t, &b->t);
  if (c != 0) return c;
  if (a->path == NULL || b->path == NULL)
    return (a->path == NULL) - (b->path == NULL);
  return strcmp(a->path, b->path);
}

/* A top object (the first new one on a path) and where it goes. */
typedef struct topobj {
  uint32_t node;
  char *full;          /* its generalised path (NULL: none) */
  char *holder;        /* its holder's, when a string key leads to it */
} topobj;

static int cmp_top_holder(const void *pa, const void *pb)
{
  const topobj *a = pa, *b = pb;
  int c = strcmp(a->holder, b->holder);
  return c != 0 ? c : strcmp(a->full, b->full);
}

/* What a diff found, in the shown snapshot s. */
typedef struct diffed {
  const lh_heap *s;
  uint8_t *isnew;      /* per node of s */
  uint32_t *top;       /* per node: its group's top object, LH_NONE */
  uint64_t *under;     /* per top object: new bytes it heads */
  tally total, freed;
  tally by[256];
  groups g;
  uint32_t *group_of_top;   /* per node (top objects only): its group */
  subs sites;          /* all new objects by site */
  const char *warn[3]; /* what makes the diff doubtful */
  uint32_t nwarn;
} diffed;

/* The groups' keys: each top object's generalised path, or its holder's
** path with [*] when its holder has new objects under MERGE_KEYS string
** keys or more. */
static int make_groups(diffed *d, topobj *tops, uint32_t ntops)
{
  topobj *sorted;
  uint32_t nh = 0;
  /* the tops reached by a string key, sorted by holder, then path */
  for (uint32_t i = 0; i < ntops; i++)
    if (tops[i].holder != NULL) nh++;
  sorted = malloc(((size_t)nh + 1) * sizeof *sorted);
  if (sorted == NULL) return -1;
  nh = 0;
  for (uint32_t i = 0; i < ntops; i++)
    if (tops[i].holder != NULL) sorted[nh++] = tops[i];
  sort(sorted, nh, sizeof *sorted, cmp_top_holder);
  for (uint32_t i = 0; i < nh;) {
    uint32_t j = i, keys = 0;
    while (j < nh && strcmp(sorted[j].holder, sorted[i].holder) == 0) {
      if (j == i || strcmp(sorted[j].full, sorted[j - 1].full) != 0) keys++;
      j++;
    }
    if (keys >= MERGE_KEYS) {
      for (uint32_t k = i; k < j; k++) {
        /* mark: the merged key replaces the path */
        size_t n = strlen(sorted[k].holder);
        char *m = malloc(n + 4);
        if (m == NULL) goto oom;
        memcpy(m, sorted[k].holder, n);
        memcpy(m + n, "[*]", 4);
        d->group_of_top[sorted[k].node] = group_of(&d->g, m);
        if (d->group_of_top[sorted[k].node] == LH_NONE) goto oom;
      }
    }
    i = j;
  }
  for (uint32_t i = 0; i < ntops; i++) {
    uint32_t t = tops[i].node;
    if (d->group_of_top[t] != LH_NONE) continue;   /* merged */
    d->group_of_top[t] = group_of(&d->g, tops[i].full);
    tops[i].full = NULL;   /* (taken over) */
    if (d->group_of_top[t] == LH_NONE) goto oom;
  }
  free(sorted);
  return 0;
oom:
  free(sorted);
  return -1;
}

/* Group every new object of d->s under its top object. */
static int group_new(diffed *d)
{
  const lh_heap *s = d->s;
  topobj *tops = NULL;
  uint32_t ntops = 0, cap = 0;
  int rc = -1;
  /* top objects: nearest first, so a parent's top is known */
  for (uint32_t i = 0; i < s->nreachable; i++) {
    uint32_t v = s->bfs_order[i], p = s->bfs_parent[v];
    if (!d->isnew[v]) continue;
    if (p != LH_NONE && d->isnew[p]) {
      d->top[v] = d->top[p];
      continue;
    }
    d->top[v] = v;
    if (ntops == cap) {
      topobj *t;
      cap = cap ? cap * 2 : 256;
      t = realloc(tops, cap * sizeof *t);
      if (t == NULL) goto done;
      tops = t;
    }
    tops[ntops].node = v;
    tops[ntops].holder = NULL;
    tops[ntops].full = lh_path(s, v, 1);
    if (tops[ntops].full == NULL) goto done;
    ntops++;
    if (p != LH_NONE && s->kind[p] != LH_ROOT &&
        s->etype[s->bfs_edge[v]] == LH_E_PROPERTY) {
      tops[ntops - 1].holder = lh_path(s, p, 1);
      if (tops[ntops - 1].holder == NULL) goto done;
    }
  }
  if (make_groups(d, tops, ntops) < 0) goto done;
  /* every new object into its group */
  for (uint32_t v = 0; v < s->nnodes; v++) {
    uint32_t gi;
    group *g;
    if (!d->isnew[v]) continue;
    if (d->top[v] == LH_NONE) {
      gi = group_of(&d->g, NULL);
      if (gi == LH_NONE) goto done;
    } else {
      gi = d->group_of_top[d->top[v]];
      d->under[d->top[v]] += s->self[v];
    }
    g = &d->g.v[gi];
    g->t.count++;
    g->t.bytes += s->self[v];
    if (subs_add(&g->kinds, s->kind[v], s->self[v]) < 0) goto done;
    if (s->site_of != NULL && s->site_of[v] != LH_NONE &&
        (subs_add(&g->sites, s->site_of[v], s->self[v]) < 0 ||
         subs_add(&d->sites, s->site_of[v], s->self[v]) < 0))
      goto done;
  }
  /* each group's example: its top object heading the most new bytes, or
  ** (no path) its largest object */
  for (uint32_t v = 0; v < s->nnodes; v++) {
    group *g;
    uint64_t b;
    if (!d->isnew[v]) continue;
    if (d->top[v] == LH_NONE) {
      g = &d->g.v[group_of(&d->g, NULL)];
      b = s->self[v];
    } else if (d->top[v] == v) {
      g = &d->g.v[d->group_of_top[v]];
      b = d->under[v];
    } else {
      continue;
    }
    if (g->example == LH_NONE || b > g->example_bytes) {
      g->example = v;
      g->example_bytes = b;
    }
  }
  rc = 0;
done:
  for (uint32_t i = 0; i < ntops; i++) {
    free(tops[i].full);
    free(tops[i].holder);
  }
  free(tops);
  return rc;
}

static void json_subs_sites(FILE *f, const lh_heap *s, subs *x, unsigned top)
{
  sort_names = (const char *const *)s->sites;
  subs_sort(x, cmp_sub);
  fputc('[', f);
  for (uint32_t i = 0; i < x->n && i < top; i++) {
    fputs(i ? ",{\"site\":" : "{\"site\":", f);
    li_json_string(f, s->sites[x->v[i].key]);
    fprintf(f, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
            x->v[i].t.count, x->v[i].t.bytes);
  }
  fputc(']', f);
}

static void sort_kinds(const lh_heap *s, subs *x)
{
  sort_heap = s;
  subs_sort(x, cmp_sub_kind);
}

static const char *const diff_note =
  "objects are matched by id (address) and type: an address is reused once "
  "its object is collected, so a new object at the address of a dead one of "
  "its type is not seen as new";

static int diff_json(FILE *f, diffed *d, const char *a, const char *b,
                     const char *c, unsigned top)
{
  const lh_heap *s = d->s;
  fputs("{\"luaheap\":1,\"command\":\"diff\",\"a\":", f);
  li_json_string(f, a);
  fputs(",\"b\":", f);
  li_json_string(f, b);
  fputs(",\"c\":", f);
  li_json_string(f, c);
  fprintf(f, ",\"shown\":\"%s\",\"note\":", c ? "C" : "B");
  li_json_string(f, diff_note);
  fprintf(f, ",\"memory_mode\":%s,\"new\":{\"count\":%" PRIu64 ",\"bytes\":%"
          PRIu64 "},\"freed\":{\"count\":%" PRIu64 ",\"bytes\":%" PRIu64
          "},\"types\":", s->site_of ? "true" : "false", d->total.count,
          d->total.bytes, d->freed.count, d->freed.bytes);
  json_types(f, s, d->by);
  fputs(",\"warnings\":[", f);
  for (uint32_t i = 0; i < d->nwarn; i++) {
    if (i) fputc(',', f);
    li_json_string(f, d->warn[i]);
  }
  fputs("],\"groups\":[", f);
  for (uint32_t i = 0; i < d->g.n && i < top; i++) {
    group *g = &d->g.v[i];
    fputs(i ? ",{\"path\":" : "{\"path\":", f);
    li_json_string(f, g->path);
    fprintf(f, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"types\":[",
            g->t.count, g->t.bytes);
    sort_kinds(s, &g->kinds);
    for (uint32_t k = 0; k < g->kinds.n; k++) {
      fputs(k ? ",{\"type\":" : "{\"type\":", f);
      li_json_string(f, lh_kind_name(s, g->kinds.v[k].key));
      fprintf(f, ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
              g->kinds.v[k].t.count, g->kinds.v[k].t.bytes);
    }
    fputs("],\"sites\":", f);
    json_subs_sites(f, s, &g->sites, GROUP_SITES);
    fputs(",\"example\":", f);
    if (json_object(f, s, g->example) < 0) return -1;
    fputc('}', f);
  }
  fputs("],\"sites\":", f);
  json_subs_sites(f, s, &d->sites, top);
  fputs("}\n", f);
  return 0;
}

static void text_sites(FILE *f, const lh_heap *s, subs *x, unsigned top,
                       const char *indent)
{
  sort_names = (const char *const *)s->sites;
  subs_sort(x, cmp_sub);
  for (uint32_t i = 0; i < x->n && i < top; i++) {
    fprintf(f, "%s%12" PRIu64 " %12" PRIu64 "  ", indent, x->v[i].t.count,
            x->v[i].t.bytes);
    li_put_line_text(f, s->sites[x->v[i].key], NULL);
    fputc('\n', f);
  }
}

static int diff_text(FILE *f, diffed *d, const char *a, const char *b,
                     const char *c, unsigned top)
{
  const lh_heap *s = d->s;
  fputs("luaheap diff ", f);
  li_put_line_text(f, a, NULL);
  fputc(' ', f);
  li_put_line_text(f, b, NULL);
  if (c != NULL) {
    fputc(' ', f);
    li_put_line_text(f, c, NULL);
  }
  fputc('\n', f);
  fprintf(f, "new: %" PRIu64 " objects, %" PRIu64 " bytes (%s)\n",
          d->total.count, d->total.bytes,
          c ? "in B and still in C, not in A; sizes and paths in C"
            : "in B, not in A");
  fprintf(f, "freed: %" PRIu64 " objects, %" PRIu64 " bytes (in A, not in B)\n",
          d->freed.count, d->freed.bytes);
  fprintf(f, "(%s)\n", diff_note);
  for (uint32_t i = 0; i < d->nwarn; i++) fprintf(f, "warning: %s\n", d->warn[i]);
  if (d->total.count == 0) return 0;
  fputs("\nBy type\n", f);
  text_types(f, s, d->by);
  fputs("\nBy retaining path\n", f);
  fprintf(f, "  %12s %12s  %s\n", "count", "bytes", "path");
  for (uint32_t i = 0; i < d->g.n && i < top; i++) {
    group *g = &d->g.v[i];
    char *p;
    fprintf(f, "  %12" PRIu64 " %12" PRIu64 "  ", g->t.count, g->t.bytes);
    if (g->path) li_put_line_text(f, g->path, NULL);
    else fputs("(no path: held weakly or not at all)", f);
    fputs("\n" INDENT, f);
    sort_kinds(s, &g->kinds);
    for (uint32_t k = 0; k < g->kinds.n; k++)
      fprintf(f, "%s%s %" PRIu64 " (%" PRIu64 " bytes)", k ? ", " : "",
              lh_kind_name(s, g->kinds.v[k].key), g->kinds.v[k].t.count,
              g->kinds.v[k].t.bytes);
    fputc('\n', f);
    p = lh_path(s, g->example, 0);
    if (p == NULL && errno == ENOMEM) return -1;
    if (p != NULL) {
      fputs(INDENT "e.g. ", f);
      li_put_line_text(f, p, NULL);
      fprintf(f, "  @%" PRIu64 "\n", s->id[g->example]);
      free(p);
    }
    sort_names = (const char *const *)s->sites;
    sort(g->sites.v, g->sites.n, sizeof *g->sites.v, cmp_sub);
    for (uint32_t k = 0; k < g->sites.n && k < GROUP_SITES; k++) {
      fputs(INDENT "allocated by ", f);
      li_put_line_text(f, s->sites[g->sites.v[k].key], NULL);
      fprintf(f, ": %" PRIu64 " (%" PRIu64 " bytes)\n",
              g->sites.v[k].t.count, g->sites.v[k].t.bytes);
    }
  }
  if (d->g.n > top)
    fprintf(f, "  (%" PRIu32 " more paths)\n", d->g.n - top);
  if (s->site_of != NULL) {
    fputs("\nBy allocating function\n", f);
    fprintf(f, "  %12s %12s  %s\n", "count", "bytes", "function");
    text_sites(f, s, &d->sites, top, "  ");
  }
  return 0;
}

int lh_write_diff(FILE *f, const lh_heap *ha, const lh_heap *hb,
                  const lh_heap *hc, unsigned top, int json)
{
  const char *a = ha->file, *b = hb->file, *c = hc ? hc->file : NULL;
  idset sa, sb;
  diffed d;
  const lh_heap *s = hc ? hc : hb;
  int rc = -1;
  memset(&sa, 0, sizeof sa);
  memset(&sb, 0, sizeof sb);
  memset(&d, 0, sizeof d);
  d.s = s;
  if (idset_make(&sa, ha) < 0 || (hc && idset_make(&sb, hb) < 0)) goto done;
  d.isnew = calloc((size_t)s->nnodes + 1, 1);
  d.top = malloc(((size_t)s->nnodes + 1) * sizeof *d.top);
  d.under = calloc((size_t)s->nnodes + 1, sizeof *d.under);
  d.group_of_top = malloc(((size_t)s->nnodes + 1) * sizeof *d.group_of_top);
  if (!d.isnew || !d.top || !d.under || !d.group_of_top) goto done;
  for (uint32_t v = 0; v < s->nnodes; v++) {
    d.top[v] = d.group_of_top[v] = LH_NONE;
    if (!comparable(s, v) || idset_has(&sa, s->id[v], s->kind[v])) continue;
    if (hc && !idset_has(&sb, s->id[v], s->kind[v])) continue;
    d.isnew[v] = 1;
    d.total.count++;
    d.total.bytes += s->self[v];
    d.by[s->kind[v]].count++;
    d.by[s->kind[v]].bytes += s->self[v];
  }
  /* freed: in A, not in B */
  idset_free(&sb);
  memset(&sb, 0, sizeof sb);
  if (idset_make(&sb, hb) < 0) goto done;
  {
    uint64_t kept = 0, inb = 0;
    for (uint32_t v = 0; v < ha->nnodes; v++) {
      if (!comparable(ha, v)) continue;
      if (idset_has(&sb, ha->id[v], ha->kind[v])) {
        kept++;
      } else {
        d.freed.count++;
        d.freed.bytes += ha->self[v];
      }
    }
    for (uint32_t v = 0; v < hb->nnodes; v++) inb += comparable(hb, v);
    /* ids are addresses: files of two runs (or two states) share none */
    if (kept == 0 && d.freed.count > 0 && inb > 0)
      d.warn[d.nwarn++] = "A and B have no object in common: snapshots of "
                          "two runs or two states? (ids are addresses)";
    if (ha->taken_ns > hb->taken_ns && hb->taken_ns > 0)
      d.warn[d.nwarn++] = "B was taken before A (snapshot.lua.taken_ns)";
    if (hc && hb->taken_ns > hc->taken_ns && hc->taken_ns > 0)
      d.warn[d.nwarn++] = "C was taken before B (snapshot.lua.taken_ns)";
  }
  if (group_new(&d) < 0) goto done;
  sort(d.g.v, d.g.n, sizeof *d.g.v, cmp_group);
  rc = json ? diff_json(f, &d, a, b, c, top) : diff_text(f, &d, a, b, c, top);
done:
  idset_free(&sa);
  idset_free(&sb);
  free(d.isnew);
  free(d.top);
  free(d.under);
  free(d.group_of_top);
  subs_free(&d.sites);
  groups_free(&d.g);
  return rc;
}

int lh_diff(FILE *f, const char *a, const char *b, const char *c,
            unsigned top, int json, char *err, size_t errsz)
{
  lh_heap *ha = NULL, *hb = NULL, *hc = NULL;
  int rc = -1;
  if ((ha = lh_load(a, err, errsz)) == NULL ||
      (hb = lh_load(b, err, errsz)) == NULL ||
      (c != NULL && (hc = lh_load(c, err, errsz)) == NULL))
    goto done;
  if (lh_write_diff(f, ha, hb, hc, top, json) < 0) {
    snprintf(err, errsz, "out of memory");
    goto done;
  }
  rc = failed_write(f, err, errsz);
done:
  lh_free(ha);
  lh_free(hb);
  lh_free(hc);
  return rc;
}

int lh_write_diff_json(FILE *f, const char *a, const char *b, const char *c,
                       char *err, size_t errsz)
{
  return lh_diff(f, a, b, c, LH_JSON_TOP, 1, err, errsz);
}


/* ======================================================================
** path
** ====================================================================== */

int lh_write_path(FILE *f, const lh_heap *h, uint32_t v, int json)
{
  uint32_t k = 0, *chain;
  char *p = lh_path(h, v, 0);
  if (p == NULL && errno == ENOMEM) return -1;
  if (p != NULL)
    for (uint32_t x = v; x != 0; x = h->bfs_parent[x]) k++;
  chain = malloc(((size_t)k + 1) * sizeof *chain);
  if (chain == NULL) {
    free(p);
    return -1;
  }
  if (p != NULL)
    for (uint32_t x = v, i = k; x != 0; x = h->bfs_parent[x]) chain[--i] = x;
  if (json) {
    fputs("{\"luaheap\":1,\"command\":\"path\",\"file\":", f);
    li_json_string(f, h->file);
    fputs(",\"object\":", f);
    if (json_object(f, h, v) < 0) goto oom;
    fputs(",\"steps\":[", f);
  } else {
    if (p != NULL) li_put_line_text(f, p, NULL);
    else fputs("(no path: held weakly or not at all)", f);
    fprintf(f, "\n%s @%" PRIu64 ", %" PRIu64 " bytes, retains %" PRIu64
            " bytes", lh_kind_name(h, h->kind[v]), h->id[v], h->self[v],
            h->retained[v]);
    text_node_name(f, h, v, ": ");
    fputc('\n', f);
    if (h->site_of != NULL && h->site_of[v] != LH_NONE) {
      fputs("allocated by ", f);
      li_put_line_text(f, h->sites[h->site_of[v]], NULL);
      fputc('\n', f);
    }
  }
  for (uint32_t i = 0, started = 0; i < k; i++) {
    uint32_t x = chain[i], e = h->bfs_edge[x], src = h->bfs_parent[x];
    lh_buf seg = {NULL, 0, 0};
    lh_etype t = (lh_etype)h->etype[e];
    int named = t != LH_E_ELEMENT && t != LH_E_HIDDEN;
    if (h->kind[x] != LH_ROOT) {
      if (lh_segment(h, &seg, src, e, !started && h->kind[src] == LH_ROOT, 0) < 0)
        goto oom;
      started = 1;
    }
    if (json) {
      fprintf(f, "%s{\"edge_type\":\"%s\",\"edge\":", i ? "," : "",
              etype_names[t]);
      if (named) li_json_lstring(f, str(h, (uint32_t)h->ename[e]),
                                 h->slen[h->ename[e]]);
      else fprintf(f, "%" PRId64, h->ename[e]);
      fputs(",\"segment\":", f);
      li_json_lstring(f, seg.p ? seg.p : "", seg.n);
      fprintf(f, ",\"id\":%" PRIu64 ",\"node\":%" PRIu32 ",\"type\":",
              h->id[x], x);
      li_json_string(f, lh_kind_name(h, h->kind[x]));
      fputs(",\"name\":", f);
      json_name(f, h, h->name[x]);
      fputc('}', f);
    } else {
      fprintf(f, "  %-9s ", etype_names[t]);
      if (named) {
        fputc('"', f);
        text_name(f, str(h, (uint32_t)h->ename[e]), h->slen[h->ename[e]]);
        fputc('"', f);
      } else {
        fprintf(f, "%" PRId64, h->ename[e]);
      }
      fprintf(f, " -> %s @%" PRIu64, lh_kind_name(h, h->kind[x]), h->id[x]);
      text_node_name(f, h, x, " ");
      fputc('\n', f);
    }
    free(seg.p);
  }
  if (json) fputs("]}\n", f);
  free(chain);
  free(p);
  return 0;
oom:
  free(chain);
  free(p);
  return -1;
}

int lh_pathcmd(FILE *f, const char *path, uint64_t id, int json, char *err,
               size_t errsz)
{
  lh_heap *h = lh_load(path, err, errsz);
  uint32_t v;
  int rc;
  if (h == NULL) return -1;
  v = lh_find_id(h, id);
  if (v == LH_NONE) {
    snprintf(err, errsz, "%s: no object with id %" PRIu64, path, id);
    lh_free(h);
    return -1;
  }
  rc = lh_write_path(f, h, v, json);
  lh_free(h);
  if (rc < 0) {
    snprintf(err, errsz, "%s: out of memory", path);
    return -1;
  }
  return failed_write(f, err, errsz);
}
