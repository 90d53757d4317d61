/*
** test_heapfile.c -- Criterion tests of heap/ (the .heapsnapshot reader,
** dominators, paths): random graphs whose dominators, retained sizes and
** path lengths are worked out again the slow way (a node d dominates w
** when w cannot be reached once d is taken out), written with their
** fields in random orders as Chrome may; a chain 10^6 deep; every prefix
** of a file and every one-byte change of it read without a crash (ASan
** checks the bounds in the sanitizer build); and the html view's two
** entry points.
*/
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"

#define MAXN 40

/* ---- text building -------------------------------------------------------- */

typedef struct text {
  char *p;
  size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
  va_list ap;
  int k;
  for (;;) {
    va_start(ap, fmt);
    k = vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    if ((size_t)k < t->cap - t->n) break;
    t->cap = t->cap * 2 + (size_t)k + 64;
    t->p = realloc(t->p, t->cap);
    cr_assert_not_null(t->p);
  }
  t->n += (size_t)k;
}

static uint64_t rng = 88172645463325252ULL;
static uint32_t rnd(uint32_t n)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % n);
}

/* ---- a random graph ------------------------------------------------------- */

enum { E_PROPERTY, E_WEAK, E_SHORTCUT, E_ELEMENT };

typedef struct graph {
  uint32_t n, ne;
  uint32_t nedges[MAXN];
  uint32_t from[MAXN * 4], to[MAXN * 4], type[MAXN * 4];
  uint64_t self[MAXN];
} graph;

static void random_graph(graph *g)
{
  g->n = 2 + rnd(MAXN - 1);
  g->ne = 0;
  for (uint32_t v = 0; v < g->n; v++) {
    uint32_t k = rnd(4);
    g->self[v] = v == 0 ? 0 : 1 + rnd(1000);
    g->nedges[v] = k;
    for (uint32_t i = 0; i < k; i++) {
      uint32_t r = rnd(10);
      g->from[g->ne] = v;
      g->to[g->ne] = rnd(g->n);
      g->type[g->ne++] = r < 6 ? E_PROPERTY : r < 8 ? E_ELEMENT
                       : r < 9 ? E_WEAK : E_SHORTCUT;
    }
  }
}

static const char *const edge_type_names[] = {"property", "weak", "shortcut",
                                              "element"};

/* g as a .heapsnapshot with its node and edge fields in a random order,
** an extra field each, the type lists shuffled, random white space. */
static char *write_graph(const graph *g, size_t *len)
{
  static const char *nf[] = {"type", "name", "id", "self_size", "edge_count",
                             "detachedness"};
  static const char *ef[] = {"type", "name_or_index", "to_node", "extra"};
  uint32_t nperm[6], eperm[4], ntperm[2] = {0, 1}, etperm[4] = {0, 1, 2, 3};
  text t = {NULL, 0, 0};
  const char *sp = rnd(2) ? " " : "\n ";
  for (uint32_t i = 0; i < 6; i++) nperm[i] = i;
  for (uint32_t i = 0; i < 4; i++) eperm[i] = i;
  for (uint32_t i = 5; i > 0; i--) {
    uint32_t j = rnd(i + 1), x = nperm[i];
    nperm[i] = nperm[j]; nperm[j] = x;
  }
  for (uint32_t i = 3; i > 0; i--) {
    uint32_t j = rnd(i + 1), x = eperm[i];
    eperm[i] = eperm[j]; eperm[j] = x;
    j = rnd(i + 1); x = etperm[i];
    etperm[i] = etperm[j]; etperm[j] = x;
  }
  if (rnd(2)) { ntperm[0] = 1; ntperm[1] = 0; }
  put(&t, "{\"snapshot\":{\"meta\":{\"node_fields\":[");
  for (uint32_t i = 0; i < 6; i++) put(&t, "%s\"%s\"", i ? "," : "", nf[nperm[i]]);
  put(&t, "],%s\"node_types\":[", sp);
  for (uint32_t i = 0; i < 6; i++) {
    if (i) put(&t, ",");
    if (nperm[i] == 0) {
      const char *tn[2] = {"synthetic", "object"};
      put(&t, "[\"%s\",\"%s\"]", tn[ntperm[0]], tn[ntperm[1]]);
    } else {
      put(&t, "\"number\"");
    }
  }
  put(&t, "],\"edge_fields\":[");
  for (uint32_t i = 0; i < 4; i++) put(&t, "%s\"%s\"", i ? "," : "", ef[eperm[i]]);
  put(&t, "],\"edge_types\":[");
  for (uint32_t i = 0; i < 4; i++) {
    if (i) put(&t, ",");
    if (eperm[i] == 0) {
      put(&t, "[");
      for (uint32_t k = 0; k < 4; k++)
        put(&t, "%s\"%s\"", k ? "," : "", edge_type_names[etperm[k]]);
      put(&t, "]");
    } else {
      put(&t, "\"string_or_number\"");
    }
  }
  put(&t, "]},%s\"node_count\":%u,\"edge_count\":%u,\"lua\":{\"version\":\"5.4\"}},"
      "\"nodes\":[", sp, g->n, g->ne);
  for (uint32_t v = 0; v < g->n; v++) {
    uint64_t vals[6];
    uint32_t synth = ntperm[0] == 0 ? 0 : 1;
    vals[0] = v == 0 ? synth : 1 - synth;
    vals[1] = v == 0 ? 0 : 1;              /* "(GC roots)", "table" */
    vals[2] = 2 * (uint64_t)v + 1000;
    vals[3] = g->self[v];
    vals[4] = g->nedges[v];
    vals[5] = rnd(3);
    for (uint32_t i = 0; i < 6; i++)
      put(&t, "%s%llu", v == 0 && i == 0 ? "" : i == 0 ? ",\n" : ",",
          (unsigned long long)vals[nperm[i]]);
  }
  put(&t, "],%s\"edges\":[", sp);
  for (uint32_t e = 0; e < g->ne; e++) {
    uint64_t vals[4];
    uint32_t ty = 0;
    for (uint32_t k = 0; k < 4; k++)
      if (etperm[k] == g->type[e]) ty = k;
    vals[0] = ty;
    vals[1] = g->type[e] == E_ELEMENT ? e : 2 + e % 3;  /* "a", "b", "c" */
    vals[2] = (uint64_t)g->to[e] * 6;
    vals[3] = 7;
    for (uint32_t i = 0; i < 4; i++)
      put(&t, "%s%llu", e == 0 && i == 0 ? "" : i == 0 ? ",\n" : ",",
          (unsigned long long)vals[eperm[i]]);
  }
  put(&t, "],\"strings\":[\"(GC roots)\",\"table\",\"a\",\"b\",\"c\"]}");
  *len = t.n;
  return t.p;
}

/* Nodes reached from 0 by strong edges, not passing through node cut. */
static void reach(const graph *g, uint32_t cut, uint8_t *seen, uint32_t *dist)
{
  uint32_t queue[MAXN], head = 0, tail = 0;
  memset(seen, 0, MAXN);
  for (uint32_t v = 0; v < MAXN; v++) dist[v] = UINT32_MAX;
  if (cut == 0) return;
  seen[0] = 1;
  dist[0] = 0;
  queue[tail++] = 0;
  while (head < tail) {
    uint32_t v = queue[head++];
    for (uint32_t e = 0; e < g->ne; e++) {
      uint32_t w = g->to[e];
      if (g->from[e] != v || g->type[e] == E_WEAK) continue;
      if (g->type[e] == E_SHORTCUT && v != 0) continue;
      if (w == cut || seen[w]) continue;
      seen[w] = 1;
      dist[w] = dist[v] + 1;
      queue[tail++] = w;
    }
  }
}

Test(heapfile, random_graphs_dominators_the_slow_way)
{
  for (int round = 0; round < 3000; round++) {
    graph g;
    size_t len;
    char err[256], *file;
    uint8_t seen[MAXN], dom[MAXN][MAXN];   /* dom[d][w]: d dominates w */
    uint32_t dist[MAXN], d2[MAXN];
    lh_heap *h;
    random_graph(&g);
    file = write_graph(&g, &len);
    h = lh_load_mem("random", file, len, err, sizeof err);
    cr_assert_not_null(h, "round %d: %s\n%s", round, err, file);
    reach(&g, LH_NONE, seen, dist);
    for (uint32_t d = 0; d < g.n; d++) {
      uint8_t s2[MAXN];
      reach(&g, d, s2, d2);
      for (uint32_t w = 0; w < g.n; w++)
        dom[d][w] = seen[w] && (w == d || !s2[w]);
    }
    for (uint32_t w = 0; w < g.n; w++) {
      uint32_t want = LH_NONE, best = 0;
      uint64_t retained = 0;
      /* the immediate dominator: the strict dominator dominated by all
      ** the others, i.e. with the most dominators itself */
      for (uint32_t d = 0; d < g.n; d++) {
        uint32_t k = 0;
        if (d == w || !dom[d][w]) continue;
        for (uint32_t x = 0; x < g.n; x++) k += dom[x][d];
        if (want == LH_NONE || k > best) {
          want = d;
          best = k;
        }
      }
      cr_assert_eq(h->idom[w], want, "round %d node %u: idom %u, want %u\n%s",
                   round, w, h->idom[w], want, file);
      for (uint32_t x = 0; x < g.n; x++)
        if (dom[w][x] || (x == w)) retained += g.self[x];
      cr_assert_eq(h->retained[w], retained, "round %d node %u: retained %llu,"
                   " want %llu", round, w, (unsigned long long)h->retained[w],
                   (unsigned long long)retained);
      /* the path: as long as the shortest, or none */
      if (w != 0) {
        uint32_t k = 0;
        if (h->bfs_edge[w] != LH_NONE)
          for (uint32_t x = w; x != 0; x = h->bfs_parent[x]) k++;
        cr_assert_eq(seen[w] ? k : UINT32_MAX, dist[w], "round %d node %u",
                     round, w);
        cr_assert_eq(h->bfs_edge[w] == LH_NONE, !seen[w]);
      }
    }
    lh_free(h);
    free(file);
  }
}

/* ---- a chain 10^6 deep ---------------------------------------------------- */

Test(heapfile, chain_a_million_deep, .timeout = 120)
{
  const uint32_t n = 1000000;
  text t = {NULL, 0, 0};
  char err[256], *p;
  lh_heap *h;
  put(&t, "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\","
      "\"self_size\",\"edge_count\"],\"node_types\":[[\"synthetic\",\"object\"]],"
      "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\"edge_types\":"
      "[[\"property\"]]},\"node_count\":%u,\"edge_count\":%u,\"lua\":{}},"
      "\"nodes\":[0,0,1,0,1", n, n - 1);
  for (uint32_t v = 1; v < n; v++)
    put(&t, ",1,1,%u,16,%u", 2 * v + 1000, v + 1 < n ? 1 : 0);
  put(&t, "],\"edges\":[0,2,5");
  for (uint32_t v = 2; v < n; v++) put(&t, ",0,3,%u", 5 * v);
  put(&t, "],\"strings\":[\"(GC roots)\",\"table\",\"head\",\"next\"]}");
  h = lh_load_mem("chain", t.p, t.n, err, sizeof err);
  cr_assert_not_null(h, "%s", err);
  cr_assert_eq(h->retained[1], 16ull * (n - 1));
  cr_assert_eq(h->retained[n - 1], 16);
  cr_assert_eq(h->idom[n - 1], n - 2);
  p = lh_path(h, n - 1, 0);
  cr_assert_not_null(p);
  cr_assert(strstr(p, "head.next.next") == p, "%.80s", p);
  /* 24 steps, the middle left out, 24 steps */
  snprintf(err, sizeof err, " ...(%u steps)...", n - 1 - 48);
  cr_assert(strstr(p, err) != NULL, "%.200s", p);
  free(p);
  lh_free(h);
  free(t.p);
}

/* ---- every prefix, every one-byte change ---------------------------------- */

static char *read_fixture(const char *name, size_t *len)
{
  char path[512];
  FILE *f;
  char *b;
  snprintf(path, sizeof path, "%s/heap/luaheap/%s", LI_TEST_DIR, name);
  f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  b = malloc(1 << 16);
  *len = fread(b, 1, 1 << 16, f);
  fclose(f);
  return b;
}

Test(heapfile, every_prefix_fails_cleanly)
{
  size_t len;
  char *file = read_fixture("leak_c.heapsnapshot", &len), err[256];
  for (size_t k = 0; k < len; k++) {
    /* a copy exactly k bytes long, so ASan sees a read past it */
    char *cut = malloc(k ? k : 1);
    lh_heap *h;
    memcpy(cut, file, k);
    err[0] = '\0';
    h = lh_load_mem("cut", cut, k, err, sizeof err);
    /* (the last bytes are white space: those prefixes are whole) */
    if (h != NULL) {
      cr_assert_geq(k, len - 1, "prefix %zu read", k);
      lh_free(h);
    } else {
      cr_assert(strncmp(err, "cut:", 4) == 0 && strlen(err) > 8,
                "prefix %zu: '%s'", k, err);
    }
    free(cut);
  }
  free(file);
}

Test(heapfile, every_byte_changed_no_crash)
{
  static const char repl[] = "09-,\"[]{}\\ xe.\001";
  size_t len;
  char *file = read_fixture("game.heapsnapshot", &len), err[256];
  char *copy = malloc(len);
  unsigned loaded = 0, refused = 0;
  for (size_t k = 0; k < len; k++) {
    for (size_t r = 0; r < sizeof repl; r++) {   /* (NUL included) */
      lh_heap *h;
      memcpy(copy, file, len);
      copy[k] = repl[r];
      h = lh_load_mem("x", copy, len, err, sizeof err);
      if (h == NULL) {
        refused++;
        cr_assert(strncmp(err, "x:", 2) == 0, "%s", err);
        continue;
      }
      loaded++;
      for (uint32_t v = 0; v < h->nnodes; v++) free(lh_path(h, v, v & 1));
      lh_free(h);
    }
  }
  cr_assert_gt(loaded, 0);
  cr_assert_gt(refused, 0);
  free(copy);
  free(file);
}

/* ---- the html view's entry points ----------------------------------------- */

Test(heapfile, view_entry_points)
{
  char a[512], b[512], c[512], bad[512], err[256];
  char *out = NULL;
  size_t outlen = 0;
  FILE *f;
  snprintf(a, sizeof a, "%s/heap/luaheap/leak_a.heapsnapshot", LI_TEST_DIR);
  snprintf(b, sizeof b, "%s/heap/luaheap/leak_b.heapsnapshot", LI_TEST_DIR);
  snprintf(c, sizeof c, "%s/heap/luaheap/leak_c.heapsnapshot", LI_TEST_DIR);
  snprintf(bad, sizeof bad, "%s/heap/luaheap/bad/truncated.heapsnapshot",
           LI_TEST_DIR);
  f = open_memstream(&out, &outlen);
  cr_assert_eq(lh_write_summary_json(f, c, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lh_write_diff_json(f, a, b, NULL, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lh_write_diff_json(f, a, b, c, err, sizeof err), 0, "%s", err);
  fflush(f);
  cr_assert(strncmp(out, "{\"luaheap\":1,\"command\":\"summary\",", 33) == 0, "%.40s", out);
  /* ('<' and '>' as \u003c and \u003e: the literal is safe in HTML) */
  cr_assert(strstr(out, "\"path\":\"_G.Game.remember \\u003cupvalue cache"
                   "\\u003e[*]\",\"count\":6,\"bytes\":249") != NULL, "%s", out);
  /* a bad file: -1, its message, nothing written */
  outlen = 0;
  fseek(f, 0, SEEK_SET);
  cr_assert_eq(lh_write_summary_json(f, bad, err, sizeof err), -1);
  cr_assert(strstr(err, "truncated.heapsnapshot:") != NULL, "%s", err);
  cr_assert_eq(lh_write_diff_json(f, a, bad, NULL, err, sizeof err), -1);
  fflush(f);
  cr_assert_eq(ftell(f), 0);
  fclose(f);
  free(out);
}
