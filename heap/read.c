/*
** read.c -- the .heapsnapshot reader (docs/heap.md, "The file").
**
** One pass over the bytes, with a cursor that never passes the end: the
** top-level object's "snapshot" (meta, counts, snapshot.lua), "nodes",
** "edges" and "strings"; every other member is skipped (checked as JSON
** all the same).  The node and edge fields are found by name in the meta,
** so a file Chrome wrote, whatever its field order, reads as ours.  The
** number arrays go straight into one array per field, sized from the
** counts the snapshot declares once the counts are known to fit in the
** file: no intermediate copy of the numbers, which are most of a file.
**
** Nothing read is trusted: every index is checked against what it
** indexes, counts must add up, numbers must be integers that fit, and the
** first problem stops the read with "FILE:OFFSET: what".  What can only
** be checked once the strings are read (names are string indices, and
** strings come last) is checked then, and the offset found again by
** counting numbers from the array's start: the error path only.
**
** The JSON itself is scanned by report/jscan.c, the tree's one JSON
** scanner (the json report's reader uses it too); the long number arrays
** by its inline fast path.
*/
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define LH_MMAP 1
#endif

#include "heap.h"
#include "jscan.h"

#define MAX_FIELDS 64        /* node or edge fields a meta may declare */
#define MAX_TYPES 200        /* node types (LH_KIND_OTHER + index < 256) */
#define SIZE_LIMIT ((uint64_t)1 << 53)   /* a self size: JavaScript's exact
                                           integers, as DevTools reads it */
#define TOTAL_LIMIT ((uint64_t)1 << 62)  /* all of them: sums never wrap */

/* What a field of a node or an edge is to us. */
enum {
  F_IGNORED,     /* trace_node_id, detachedness, anything else */
  F_TYPE,        /* node or edge type */
  F_NAME,        /* node name: a string index */
  F_ID,          /* node id */
  F_SELF,        /* self size */
  F_EDGES,       /* node's edge count */
  F_ENAME,       /* edge name_or_index */
  F_TO           /* edge target: index in nodes */
};

/* A list of names read from the meta ("node_fields", or one type list). */
typedef struct names {
  char **v;
  uint32_t n;
} names;

/* The reader's state: a cursor over the bytes and what has been read. */
typedef struct rd {
  li_jscan s;                /* the cursor, the error (report/jscan.h) */
  lh_heap *h;
  /* meta */
  int have_meta;
  names node_fields, edge_fields;
  names node_types[MAX_FIELDS], edge_types[MAX_FIELDS];  /* per field */
  uint32_t nnode_types, nedge_types;   /* entries of node_types, edge_types */
  uint8_t nrole[MAX_FIELDS], erole[MAX_FIELDS];
  uint64_t node_count, edge_count;
  int have_node_count, have_edge_count;
  /* where the arrays were, to find an offset again */
  const unsigned char *nodes_at, *edges_at;
  int have_nodes, have_edges, have_strings, have_snapshot;
  /* snapshot.lua.sites, checked once the nodes are known */
  uint64_t *site_index;      /* index in nodes */
  uint32_t *site_str;        /* index in h->sites */
  uint32_t nsite_pairs, site_cap;
  const unsigned char *sites_at;
  /* string arena */
  size_t scap, sused;
  uint32_t strcap;
} rd;




/* ======================================================================
** The meta
** ====================================================================== */

static void free_names(names *n)
{
  for (uint32_t i = 0; i < n->n; i++) free(n->v[i]);
  free(n->v);
  n->v = NULL;
  n->n = 0;
}

/* ["a", "b", ...] into n. */
static int name_list(rd *r, names *n, const char *what)
{
  uint32_t cap = 0;
  if (n->v != NULL)
    return li_js_fail_at(&r->s, r->s.p, "%s given twice %s", what, r->s.ctx);
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (li_js_accept(&r->s, ']')) return 0;
  do {
    char *s;
    if (n->n == MAX_TYPES)
      return li_js_fail_at(&r->s, r->s.p, "more than %d entries in %s %s",
                           MAX_TYPES, what, r->s.ctx);
    if (n->n == cap) {
      char **v = realloc(n->v, (cap = cap ? 2 * cap : 8) * sizeof *v);
      if (v == NULL) return li_js_oom(&r->s);
      n->v = v;
    }
    s = li_js_dup_string(&r->s, NULL);
    if (s == NULL) return -1;
    n->v[n->n++] = s;
  } while (li_js_more(&r->s, ']') > 0);
  return r->s.failed ? -1 : 0;
}

/* node_types / edge_types: one entry a field; a list of names is the
** field's enumeration, anything else ("string", "number") is passed. */
static int type_lists(rd *r, names *lists, uint32_t *count, const char *what)
{
  if (*count != 0)
    return li_js_fail_at(&r->s, r->s.p, "%s given twice %s", what, r->s.ctx);
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (li_js_accept(&r->s, ']')) return 0;
  do {
    if (*count == MAX_FIELDS)
      return li_js_fail_at(&r->s, r->s.p, "more than %d entries in %s %s",
                           MAX_FIELDS, what, r->s.ctx);
    li_js_ws(&r->s);
    if (r->s.p < r->s.end && *r->s.p == '[') {
      if (name_list(r, &lists[*count], what) < 0) return -1;
      if (lists[*count].v == NULL) {   /* [] : an empty enumeration */
        lists[*count].v = malloc(sizeof(char *));
        if (lists[*count].v == NULL) return li_js_oom(&r->s);
      }
    } else if (li_js_skip(&r->s) < 0) {
      return -1;
    }
    (*count)++;
  } while (li_js_more(&r->s, ']') > 0);
  return r->s.failed ? -1 : 0;
}

static int field_index(const names *fields, const char *name)
{
  for (uint32_t i = 0; i < fields->n; i++)
    if (strcmp(fields->v[i], name) == 0) return (int)i;
  return -1;
}

/* Which of our fields each declared field is; the type enumerations. */
static int settle_meta(rd *r, const unsigned char *at)
{
  static const char *const nnames[] = {"type", "name", "id", "self_size",
                                       "edge_count"};
  static const uint8_t nroles[] = {F_TYPE, F_NAME, F_ID, F_SELF, F_EDGES};
  static const char *const enames[] = {"type", "name_or_index", "to_node"};
  static const uint8_t eroles[] = {F_TYPE, F_ENAME, F_TO};
  lh_heap *h = r->h;
  int t;
  if (r->node_fields.v == NULL || r->edge_fields.v == NULL)
    return li_js_fail_at(&r->s, at, "meta has no %s",
                         r->node_fields.v == NULL ? "node_fields"
                                                  : "edge_fields");
  if (r->node_fields.n > MAX_FIELDS || r->edge_fields.n > MAX_FIELDS)
    return li_js_fail_at(&r->s, at, "meta declares more than %d fields",
                         MAX_FIELDS);
  memset(r->nrole, F_IGNORED, sizeof r->nrole);
  memset(r->erole, F_IGNORED, sizeof r->erole);
  for (size_t i = 0; i < sizeof nnames / sizeof *nnames; i++) {
    int k = field_index(&r->node_fields, nnames[i]);
    if (k < 0)
      return li_js_fail_at(&r->s, at, "meta.node_fields has no \"%s\"",
                           nnames[i]);
    if (r->nrole[k] != F_IGNORED)
      return li_js_fail_at(&r->s, at, "meta.node_fields names \"%s\" twice",
                           nnames[i]);
    r->nrole[k] = nroles[i];
  }
  for (size_t i = 0; i < sizeof enames / sizeof *enames; i++) {
    int k = field_index(&r->edge_fields, enames[i]);
    if (k < 0)
      return li_js_fail_at(&r->s, at, "meta.edge_fields has no \"%s\"",
                           enames[i]);
    if (r->erole[k] != F_IGNORED)
      return li_js_fail_at(&r->s, at, "meta.edge_fields names \"%s\" twice",
                           enames[i]);
    r->erole[k] = eroles[i];
  }
  t = field_index(&r->node_fields, "type");
  if ((uint32_t)t >= r->nnode_types || r->node_types[t].v == NULL)
    return li_js_fail_at(&r->s, at,
                         "meta.node_types has no list of node types");
  h->ntype_names = r->node_types[t].v;
  h->nntypes = r->node_types[t].n;
  r->node_types[t].v = NULL;
  r->node_types[t].n = 0;
  t = field_index(&r->edge_fields, "type");
  if ((uint32_t)t >= r->nedge_types || r->edge_types[t].v == NULL)
    return li_js_fail_at(&r->s, at,
                         "meta.edge_types has no list of edge types");
  h->etype_names = r->edge_types[t].v;
  h->netypes = r->edge_types[t].n;
  r->edge_types[t].v = NULL;
  r->edge_types[t].n = 0;
  h->etype_map = malloc(h->netypes + 1);
  if (h->etype_map == NULL) return li_js_oom(&r->s);
  {
    /* ORDER lh_etype */
    static const char *const known[] = {"context", "element", "property",
                                        "internal", "hidden", "shortcut",
                                        "weak"};
    for (uint32_t i = 0; i < h->netypes; i++) {
      h->etype_map[i] = LH_E_OTHER;
      for (uint8_t k = 0; k < sizeof known / sizeof *known; k++)
        if (strcmp(h->etype_names[i], known[k]) == 0) h->etype_map[i] = k;
    }
  }
  r->have_meta = 1;
  return 0;
}

static int parse_meta(rd *r)
{
  const unsigned char *at;
  char key[32];
  const char *ctx = r->s.ctx;
  li_js_ws(&r->s);
  at = r->s.p;
  if (r->have_meta)
    return li_js_fail_at(&r->s, at, "snapshot.meta given twice");
  r->s.ctx = "in snapshot.meta";
  if (li_js_expect(&r->s, '{') < 0) return -1;
  if (!li_js_accept(&r->s, '}')) {
    do {
      if (li_js_short_string(&r->s, key, sizeof key) < 0 ||
          li_js_expect(&r->s, ':') < 0)
        return -1;
      if (strcmp(key, "node_fields") == 0) {
        if (name_list(r, &r->node_fields, "node_fields") < 0) return -1;
      } else if (strcmp(key, "edge_fields") == 0) {
        if (name_list(r, &r->edge_fields, "edge_fields") < 0) return -1;
      } else if (strcmp(key, "node_types") == 0) {
        if (type_lists(r, r->node_types, &r->nnode_types, "node_types") < 0)
          return -1;
      } else if (strcmp(key, "edge_types") == 0) {
        if (type_lists(r, r->edge_types, &r->nedge_types, "edge_types") < 0)
          return -1;
      } else if (li_js_skip(&r->s) < 0) {
        return -1;
      }
    } while (li_js_more(&r->s, '}') > 0);
    if (r->s.failed) return -1;
  }
  r->s.ctx = ctx;
  return settle_meta(r, at);
}


/* ======================================================================
** snapshot.lua
** ====================================================================== */

/* The index of site s in h->sites, added if new.  (Few distinct sites,
** many objects: a linear probe table over their hashes.) */
typedef struct site_table {
  uint32_t *slot;      /* index + 1, 0 empty */
  uint32_t cap;
} site_table;

static uint32_t hash_str(const char *s)
{
  uint32_t x = 2166136261u;
  while (*s) x = (x ^ (unsigned char)*s++) * 16777619u;
  return x;
}

static int intern_site(rd *r, site_table *t, char *s, uint32_t *index)
{
  lh_heap *h = r->h;
  uint32_t i;
  if ((h->nsites + 1) * 2 > t->cap) {
    uint32_t ncap = t->cap ? t->cap * 2 : 64;
    uint32_t *slot = calloc(ncap, sizeof *slot);
    char **sites = realloc(h->sites, ncap / 2 * sizeof *sites);
    if (slot == NULL || sites == NULL) {
      free(slot);
      if (sites != NULL) h->sites = sites;
      free(s);
      return li_js_oom(&r->s);
    }
    h->sites = sites;
    for (uint32_t k = 0; k < h->nsites; k++) {
      i = hash_str(sites[k]) & (ncap - 1);
      while (slot[i] != 0) i = (i + 1) & (ncap - 1);
      slot[i] = k + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->cap = ncap;
  }
  i = hash_str(s) & (t->cap - 1);
  while (t->slot[i] != 0) {
    if (strcmp(h->sites[t->slot[i] - 1], s) == 0) {
      free(s);
      *index = t->slot[i] - 1;
      return 0;
    }
    i = (i + 1) & (t->cap - 1);
  }
  h->sites[h->nsites] = s;
  t->slot[i] = ++h->nsites;
  *index = h->nsites - 1;
  return 0;
}

/* "sites": [[node_index, "FUNCTION (SOURCE:LINE)"], ...] */
static int parse_sites(rd *r)
{
  site_table t = {NULL, 0};
  int rc = 0;
  li_js_ws(&r->s);
  if (r->sites_at != NULL)
    return li_js_fail_at(&r->s, r->s.p, "snapshot.lua.sites given twice");
  r->sites_at = r->s.p;
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (li_js_accept(&r->s, ']')) return 0;
  do {
    uint64_t index;
    uint32_t s = 0;
    char *str;
    if (li_js_expect(&r->s, '[') < 0 ||
        li_js_uinteger(&r->s, &index, "a node index") < 0 ||
        li_js_expect(&r->s, ',') < 0 ||
        (str = li_js_dup_string(&r->s, NULL)) == NULL ||
        intern_site(r, &t, str, &s) < 0 || li_js_expect(&r->s, ']') < 0) {
      rc = -1;
      break;
    }
    if (r->nsite_pairs == r->site_cap) {
      uint32_t ncap = r->site_cap ? r->site_cap * 2 : 256;
      uint64_t *a = realloc(r->site_index, ncap * sizeof *a);
      uint32_t *b;
      if (a == NULL) { rc = li_js_oom(&r->s); break; }
      r->site_index = a;
      b = realloc(r->site_str, ncap * sizeof *b);
      if (b == NULL) { rc = li_js_oom(&r->s); break; }
      r->site_str = b;
      r->site_cap = ncap;
    }
    if (r->nsite_pairs == UINT32_MAX - 1) {
      rc = li_js_fail_at(&r->s, r->s.p, "too many sites");
      break;
    }
    r->site_index[r->nsite_pairs] = index;
    r->site_str[r->nsite_pairs++] = s;
  } while (li_js_more(&r->s, ']') > 0);
  free(t.slot);
  return rc < 0 || r->s.failed ? -1 : 0;
}

static int parse_lua(rd *r)
{
  lh_heap *h = r->h;
  char key[32];
  const char *ctx = r->s.ctx;
  li_js_ws(&r->s);
  if (h->has_lua)
    return li_js_fail_at(&r->s, r->s.p, "snapshot.lua given twice");
  r->s.ctx = "in snapshot.lua";
  if (li_js_expect(&r->s, '{') < 0) return -1;
  h->has_lua = 1;
  if (!li_js_accept(&r->s, '}')) {
    do {
      int rc = 0;
      if (li_js_short_string(&r->s, key, sizeof key) < 0 ||
          li_js_expect(&r->s, ':') < 0)
        return -1;
      if (strcmp(key, "version") == 0) {
        char v[64];
        size_t n;
        rc = li_js_short_string(&r->s, v, sizeof v);
        if (v[0] == '\1') strcpy(v, "?");
        n = strlen(v) < sizeof h->lua_version ? strlen(v)
                                              : sizeof h->lua_version - 1;
        memcpy(h->lua_version, v, n);
        h->lua_version[n] = '\0';
      } else if (strcmp(key, "exact") == 0) {
        rc = li_js_boolean(&r->s, &h->exact, "exact");
      } else if (strcmp(key, "collected") == 0) {
        rc = li_js_boolean(&r->s, &h->collected, "collected");
      } else if (strcmp(key, "gc_count_bytes") == 0) {
        rc = li_js_any_number(&r->s, &h->gc_count_bytes, "gc_count_bytes");
        h->has_gc_count = 1;
      } else if (strcmp(key, "taken_ns") == 0) {
        rc = li_js_any_number(&r->s, &h->taken_ns, "taken_ns");
      } else if (strcmp(key, "sites") == 0) {
        rc = parse_sites(r);
      } else {
        rc = li_js_skip(&r->s);
      }
      if (rc < 0) return -1;
    } while (li_js_more(&r->s, '}') > 0);
    if (r->s.failed) return -1;
  }
  r->s.ctx = ctx;
  return 0;
}

static int parse_snapshot(rd *r)
{
  char key[32];
  const unsigned char *at;
  li_js_ws(&r->s);
  at = r->s.p;
  r->s.ctx = "in snapshot";
  if (li_js_expect(&r->s, '{') < 0) return -1;
  if (!li_js_accept(&r->s, '}')) {
    do {
      int rc = 0;
      if (li_js_short_string(&r->s, key, sizeof key) < 0 ||
          li_js_expect(&r->s, ':') < 0)
        return -1;
      if (strcmp(key, "meta") == 0) {
        rc = parse_meta(r);
      } else if (strcmp(key, "node_count") == 0) {
        rc = r->have_node_count
                 ? li_js_fail_at(&r->s, r->s.p,
                                 "snapshot.node_count given twice")
                 : li_js_uinteger(&r->s, &r->node_count, "node_count");
        r->have_node_count = 1;
      } else if (strcmp(key, "edge_count") == 0) {
        rc = r->have_edge_count
                 ? li_js_fail_at(&r->s, r->s.p,
                                 "snapshot.edge_count given twice")
                 : li_js_uinteger(&r->s, &r->edge_count, "edge_count");
        r->have_edge_count = 1;
      } else if (strcmp(key, "lua") == 0) {
        rc = parse_lua(r);
      } else {
        rc = li_js_skip(&r->s);
      }
      if (rc < 0) return -1;
    } while (li_js_more(&r->s, '}') > 0);
    if (r->s.failed) return -1;
  }
  if (!r->have_meta) return li_js_fail_at(&r->s, at, "snapshot has no meta");
  if (!r->have_node_count)
    return li_js_fail_at(&r->s, at, "snapshot has no node_count");
  if (!r->have_edge_count)
    return li_js_fail_at(&r->s, at, "snapshot has no edge_count");
  if (r->node_count >= UINT32_MAX || r->edge_count >= UINT32_MAX)
    return li_js_fail_at(
        &r->s, at, "snapshot: %s %" PRIu64 " is too large",
        r->node_count >= UINT32_MAX ? "node_count" : "edge_count",
        r->node_count >= UINT32_MAX ? r->node_count : r->edge_count);
  return 0;
}


/* ======================================================================
** Nodes, edges, strings
** ====================================================================== */
static int fits(rd *r, uint64_t count, uint32_t nfields, const char *what)
{
  uint64_t left = (uint64_t)(r->s.end - r->s.p);
  if (count >= UINT32_MAX || (count > 0 && (left + 1) / 2 / nfields < count))
    return li_js_fail_at(
        &r->s, r->s.p, "%s %" PRIu64 " does not fit in the file", what, count);
  if (count >= SIZE_MAX / sizeof(uint64_t))   /* (32-bit: the arrays) */
    return li_js_fail_at(&r->s, r->s.p, "%s %" PRIu64 " is too large", what,
                         count);
  return 0;
}

#define BAD_ARRAY(what) \
  li_js_fail_at(&r->s, r->s.p, "%s holds more numbers than %s says", what, \
                what[0] == 'n' ? "node_count" : "edge_count")

static int parse_nodes(rd *r)
{
  lh_heap *h = r->h;
  uint32_t nf = r->node_fields.n, f = 0, node = 0;
  uint64_t n = r->node_count, edges = 0, total = 0;
  size_t cells;
  r->s.ctx = "in nodes";
  li_js_ws(&r->s);
  if (!r->have_snapshot || !r->have_meta)
    return li_js_fail_at(&r->s, r->s.p,
                         "\"nodes\" before \"snapshot\" (whose meta says "
                         "what the numbers are)");
  if (r->have_nodes)
    return li_js_fail_at(&r->s, r->s.p, "\"nodes\" given twice");
  r->have_nodes = 1;
  r->nodes_at = r->s.p;
  if (fits(r, n, nf, "node_count") < 0) return -1;
  h->nnodes = (uint32_t)n;
  cells = (size_t)n + 1;
  h->ntype = malloc(cells);
  h->kind = malloc(cells);
  h->name = malloc(cells * sizeof *h->name);
  h->id = malloc(cells * sizeof *h->id);
  h->self = malloc(cells * sizeof *h->self);
  h->first_edge = malloc(cells * sizeof *h->first_edge);
  if (!h->ntype || !h->kind || !h->name || !h->id || !h->self ||
      !h->first_edge)
    return li_js_oom(&r->s);
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (li_js_accept(&r->s, ']')) goto done;
  do {
    uint64_t v;
    int neg;
    const unsigned char *at;
    if (r->s.p < r->s.end && (*r->s.p == '\n' || *r->s.p == ' '))
      li_js_ws(&r->s);
    at = r->s.p;
    if (node == n) return BAD_ARRAY("nodes");
    neg = 0;
    if (r->s.p < r->s.end && *r->s.p == '0' && r->s.end - r->s.p > 1 &&
        (r->s.p[1] == ',' || r->s.p[1] == ']')) {
      v = 0;   /* the commonest number of all */
      r->s.p++;
    } else if (!li_js_fast_uint(&r->s, &v)) {
      r->s.item_kind = "node";
      r->s.item = node;
      r->s.field = r->node_fields.v[f];
      if (li_js_integer(&r->s, &v, &neg, r->nrole[f] == F_IGNORED,
                        "a node field") < 0)
        return -1;
    }
    switch (r->nrole[f]) {
    case F_TYPE:
      if (v >= h->nntypes)
        return li_js_fail_at(&r->s, at,
                             "node %" PRIu32 ": type %" PRIu64 " is not one "
                             "of the %" PRIu32 " node types",
                             node, v, h->nntypes);
      h->ntype[node] = (uint8_t)v;
      break;
    case F_NAME:
      if (v >= UINT32_MAX)
        return li_js_fail_at(&r->s, at,
                             "node %" PRIu32 ": name %" PRIu64 " is not a "
                             "string index",
                             node, v);
      h->name[node] = (uint32_t)v;
      break;
    case F_ID: h->id[node] = v; break;
    case F_SELF:
      if (v >= SIZE_LIMIT)
        return li_js_fail_at(&r->s, at,
                             "node %" PRIu32 "'s self_size %" PRIu64
                             " is too large (2^53 at most)",
                             node, v);
      total += v;
      if (total >= TOTAL_LIMIT)
        return li_js_fail_at(&r->s, at,
                             "self sizes add up to more than 2^62 bytes");
      h->self[node] = v;
      break;
    case F_EDGES:
      h->first_edge[node] = (uint32_t)edges;
      if (v > r->edge_count - edges)
        return li_js_fail_at(&r->s, at,
                             "node %" PRIu32 ": edge counts add up to more "
                             "than edge_count %" PRIu64,
                             node, r->edge_count);
      edges += v;
      break;
    default: break;
    }
    if (++f == nf) {
      f = 0;
      node++;
    }
  } while (li_js_next_element(&r->s) > 0);
  if (r->s.failed) return -1;
done:
  r->s.item_kind = NULL;
  if (node != n || f != 0)
    return li_js_fail_at(&r->s, r->s.p - 1,
                         "nodes holds %" PRIu64 " numbers, but "
                         "node_count %" PRIu64 " nodes of %" PRIu32
                         " fields are %" PRIu64,
                         (uint64_t)node * nf + f, n, nf, n * nf);
  if (edges != r->edge_count)
    return li_js_fail_at(&r->s, r->s.p - 1,
                         "the nodes' edge counts add up to %" PRIu64
                         ", but edge_count is %" PRIu64,
                         edges, r->edge_count);
  h->first_edge[n] = (uint32_t)edges;
  h->total_self = total;
  return 0;
}

static int parse_edges(rd *r)
{
  lh_heap *h = r->h;
  uint32_t nf = r->edge_fields.n, f = 0, edge = 0;
  uint32_t nnf = r->node_fields.n;
  uint64_t n = r->edge_count, limit;
  size_t cells;
  r->s.ctx = "in edges";
  li_js_ws(&r->s);
  if (!r->have_snapshot || !r->have_meta)
    return li_js_fail_at(&r->s, r->s.p,
                         "\"edges\" before \"snapshot\" (whose meta says "
                         "what the numbers are)");
  if (r->have_edges)
    return li_js_fail_at(&r->s, r->s.p, "\"edges\" given twice");
  r->have_edges = 1;
  r->edges_at = r->s.p;
  if (fits(r, n, nf, "edge_count") < 0) return -1;
  limit = r->node_count * nnf;
  h->nedges = (uint32_t)n;
  cells = (size_t)n + 1;
  h->etype = malloc(cells);
  h->ename = malloc(cells * sizeof *h->ename);
  h->to = malloc(cells * sizeof *h->to);
  if (!h->etype || !h->ename || !h->to) return li_js_oom(&r->s);
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (li_js_accept(&r->s, ']')) goto done;
  do {
    uint64_t v;
    int neg = 0;
    const unsigned char *at;
    if (r->s.p < r->s.end && (*r->s.p == '\n' || *r->s.p == ' '))
      li_js_ws(&r->s);
    at = r->s.p;
    if (edge == n) return BAD_ARRAY("edges");
    if (r->s.p < r->s.end && *r->s.p == '0' && r->s.end - r->s.p > 1 &&
        (r->s.p[1] == ',' || r->s.p[1] == ']')) {
      v = 0;
      r->s.p++;
    } else if (!li_js_fast_uint(&r->s, &v)) {
      r->s.item_kind = "edge";
      r->s.item = edge;
      r->s.field = r->edge_fields.v[f];
      if (li_js_integer(&r->s, &v, &neg,
                        r->erole[f] != F_TYPE && r->erole[f] != F_TO,
                        "an edge field") < 0)
        return -1;
    }
    switch (r->erole[f]) {
    case F_TYPE:
      if (v >= h->netypes)
        return li_js_fail_at(&r->s, at,
                             "edge %" PRIu32 ": type %" PRIu64 " is not one "
                             "of the %" PRIu32 " edge types",
                             edge, v, h->netypes);
      h->etype[edge] = h->etype_map[v];
      break;
    case F_ENAME:
      h->ename[edge] = neg ? (int64_t)(0 - v) : (int64_t)v;
      if (!neg && v > INT64_MAX)
        return li_js_fail_at(&r->s, at,
                             "edge %" PRIu32 ": name_or_index %" PRIu64
                             " is too large",
                             edge, v);
      break;
    case F_TO:
      if (v >= limit || v % nnf != 0)
        return li_js_fail_at(&r->s, at,
                             "edge %" PRIu32 ": to_node %" PRIu64 " is not "
                             "a node (a multiple of %" PRIu32 " below %" PRIu64
                             ")",
                             edge, v, nnf, limit);
      h->to[edge] = (uint32_t)(v / nnf);
      break;
    default: break;
    }
    if (++f == nf) {
      f = 0;
      edge++;
    }
  } while (li_js_next_element(&r->s) > 0);
  if (r->s.failed) return -1;
done:
  r->s.item_kind = NULL;
  if (edge != n || f != 0)
    return li_js_fail_at(&r->s, r->s.p - 1,
                         "edges holds %" PRIu64 " numbers, but "
                         "edge_count %" PRIu64 " edges of %" PRIu32
                         " fields are %" PRIu64,
                         (uint64_t)edge * nf + f, n, nf, n * nf);
  return 0;
}

static int parse_strings(rd *r)
{
  lh_heap *h = r->h;
  r->s.ctx = "in strings";
  li_js_ws(&r->s);
  if (r->have_strings)
    return li_js_fail_at(&r->s, r->s.p, "\"strings\" given twice");
  r->have_strings = 1;
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (li_js_accept(&r->s, ']')) return 0;
  do {
    size_t need, len;
    li_js_ws(&r->s);
    need = (size_t)(li_js_string_end(&r->s) - r->s.p) + 1;
    if (r->sused + need > r->scap) {
      size_t ncap = r->scap ? r->scap : 4096;
      char *b;
      while (ncap < r->sused + need) ncap *= 2;
      b = realloc(h->sbuf, ncap);
      if (b == NULL) return li_js_oom(&r->s);
      h->sbuf = b;
      r->scap = ncap;
    }
    if (h->nstrings == r->strcap) {
      uint32_t ncap = r->strcap ? r->strcap * 2 : 1024;
      size_t *o;
      uint32_t *l;
      if (r->strcap >= UINT32_MAX / 2)
        return li_js_fail_at(&r->s, r->s.p, "too many strings");
      o = realloc(h->soff, ncap * sizeof *o);
      if (o == NULL) return li_js_oom(&r->s);
      h->soff = o;
      l = realloc(h->slen, ncap * sizeof *l);
      if (l == NULL) return li_js_oom(&r->s);
      h->slen = l;
      r->strcap = ncap;
    }
    if (li_js_string(&r->s, (unsigned char *)h->sbuf + r->sused, &len) < 0)
      return -1;
    if (len >= UINT32_MAX)
      return li_js_fail_at(&r->s, r->s.p, "string too long");
    h->sbuf[r->sused + len] = '\0';
    h->soff[h->nstrings] = r->sused;
    h->slen[h->nstrings++] = (uint32_t)len;
    r->sused += len + 1;
  } while (li_js_more(&r->s, ']') > 0);
  return r->s.failed ? -1 : 0;
}

/* The offset of the k-th number of the array at at (error path only). */
static const unsigned char *number_at(rd *r, const unsigned char *at,
                                      uint64_t k)
{
  const unsigned char *p = at;
  while (p < r->s.end && *p != '[') p++;
  p++;
  for (;;) {
    while (p < r->s.end &&
           (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
      p++;
    if (k == 0 || p >= r->s.end) return p;
    while (p < r->s.end && *p != ',') p++;
    p++;
    k--;
  }
}

/* What needs the strings: names are string indices. */
static int check_names(rd *r)
{
  lh_heap *h = r->h;
  uint32_t nf = r->node_fields.n, ef = r->edge_fields.n;
  int nname = field_index(&r->node_fields, "name");
  int ename = field_index(&r->edge_fields, "name_or_index");
  for (uint32_t i = 0; i < h->nnodes; i++)
    if (h->name[i] >= h->nstrings)
      return li_js_fail_at(
          &r->s, number_at(r, r->nodes_at, (uint64_t)i * nf + (uint64_t)nname),
          "node %" PRIu32 ": name %" PRIu32 " is not one of the %" PRIu32
          " strings",
          i, h->name[i], h->nstrings);
  for (uint32_t e = 0; e < h->nedges; e++) {
    if (h->etype[e] == LH_E_ELEMENT || h->etype[e] == LH_E_HIDDEN) continue;
    if (h->ename[e] < 0 || (uint64_t)h->ename[e] >= h->nstrings)
      return li_js_fail_at(
          &r->s, number_at(r, r->edges_at, (uint64_t)e * ef + (uint64_t)ename),
          "edge %" PRIu32 ": name %" PRId64 " is not one of the %" PRIu32
          " strings",
          e, h->ename[e], h->nstrings);
  }
  return 0;
}

static int check_sites(rd *r)
{
  lh_heap *h = r->h;
  uint32_t nf = r->node_fields.n;
  if (r->sites_at == NULL) return 0;
  h->site_of = malloc(((size_t)h->nnodes + 1) * sizeof *h->site_of);
  if (h->site_of == NULL) return li_js_oom(&r->s);
  for (uint32_t i = 0; i < h->nnodes; i++) h->site_of[i] = LH_NONE;
  for (uint32_t k = 0; k < r->nsite_pairs; k++) {
    uint64_t x = r->site_index[k];
    if (x % nf != 0 || x / nf >= h->nnodes)
      return li_js_fail_at(&r->s, r->sites_at,
                           "snapshot.lua.sites[%" PRIu32 "]: node "
                           "index %" PRIu64
                           " is not a node (a multiple of %" PRIu32
                           " below %" PRIu64 ")",
                           k, x, nf, (uint64_t)h->nnodes * nf);
    h->site_of[x / nf] = r->site_str[k];
  }
  return 0;
}


/* ======================================================================
** The file
** ====================================================================== */

static int parse_top(rd *r)
{
  char key[32], b[16];
  r->s.ctx = "at the start";
  li_js_ws(&r->s);
  if (r->s.p >= r->s.end)
    return li_js_fail_at(&r->s, NULL, "empty file, not a heap snapshot");
  if (*r->s.p != '{')
    return li_js_fail_at(&r->s, r->s.p,
                         "not a heap snapshot (expected '{', found %s)",
                         li_js_seen(&r->s, b, sizeof b));
  r->s.p++;
  r->s.ctx = "in the top-level object";
  if (!li_js_accept(&r->s, '}')) {
    do {
      int rc;
      r->s.ctx = "in the top-level object";
      if (li_js_short_string(&r->s, key, sizeof key) < 0 ||
          li_js_expect(&r->s, ':') < 0)
        return -1;
      if (strcmp(key, "snapshot") == 0) {
        if (r->have_snapshot)
          return li_js_fail_at(&r->s, r->s.p, "\"snapshot\" given twice");
        rc = parse_snapshot(r);
        r->have_snapshot = 1;
      } else if (strcmp(key, "nodes") == 0) {
        rc = parse_nodes(r);
      } else if (strcmp(key, "edges") == 0) {
        rc = parse_edges(r);
      } else if (strcmp(key, "strings") == 0) {
        rc = parse_strings(r);
      } else {
        rc = li_js_skip(&r->s);
      }
      if (rc < 0) return -1;
      r->s.ctx = "in the top-level object";
    } while (li_js_more(&r->s, '}') > 0);
    if (r->s.failed) return -1;
  }
  li_js_ws(&r->s);
  if (r->s.p < r->s.end)
    return li_js_fail_at(&r->s, r->s.p, "%s after the snapshot's end",
                         li_js_seen(&r->s, b, sizeof b));
  if (!r->have_snapshot)
    return li_js_fail_at(&r->s, NULL, "no \"snapshot\" (not a heap snapshot)");
  if (!r->have_nodes) return li_js_fail_at(&r->s, NULL, "no \"nodes\"");
  if (!r->have_edges) return li_js_fail_at(&r->s, NULL, "no \"edges\"");
  if (!r->have_strings) return li_js_fail_at(&r->s, NULL, "no \"strings\"");
  if (r->h->nnodes == 0)
    return li_js_fail_at(&r->s, NULL,
                         "no nodes (node 0, the root, is missing)");
  if (check_names(r) < 0 || check_sites(r) < 0) return -1;
  return 0;
}

void lh_free(lh_heap *h)
{
  if (h == NULL) return;
  free(h->file);
  free(h->ntype);
  free(h->kind);
  free(h->name);
  free(h->id);
  free(h->self);
  free(h->first_edge);
  free(h->etype);
  free(h->ename);
  free(h->to);
  free(h->sbuf);
  free(h->soff);
  free(h->slen);
  for (uint32_t i = 0; i < h->nntypes; i++) free(h->ntype_names[i]);
  free(h->ntype_names);
  for (uint32_t i = 0; i < h->netypes; i++) free(h->etype_names[i]);
  free(h->etype_names);
  free(h->etype_map);
  for (uint32_t i = 0; i < h->nsites; i++) free(h->sites[i]);
  free(h->sites);
  free(h->site_of);
  free(h->idom);
  free(h->retained);
  free(h->bfs_edge);
  free(h->bfs_parent);
  free(h->bfs_order);
  free(h->bfs_depth);
  free(h->bfs_anchor);
  free(h);
}

/* The file's bytes read into a heap, not yet analysed; NULL with err. */
static lh_heap *parse(const char *name, const void *data, size_t size,
                      char *err, size_t errsz)
{
  rd r;
  int rc;
  memset(&r, 0, sizeof r);
  li_js_init(&r.s, name, data, size, err, errsz);
  r.h = calloc(1, sizeof *r.h);
  if (r.h == NULL || (r.h->file = strdup(name)) == NULL) {
    free(r.h);
    snprintf(err, errsz, "%s: out of memory", name);
    return NULL;
  }
  rc = size == 0 ? li_js_fail_at(&r.s, NULL, "empty file, not a heap snapshot")
                 : parse_top(&r);
  free_names(&r.node_fields);
  free_names(&r.edge_fields);
  for (uint32_t i = 0; i < MAX_FIELDS; i++) {
    free_names(&r.node_types[i]);
    free_names(&r.edge_types[i]);
  }
  free(r.site_index);
  free(r.site_str);
  if (rc < 0) {
    lh_free(r.h);
    return NULL;
  }
  return r.h;
}

/* Analysed, or freed. */
static lh_heap *analysed(lh_heap *h, char *err, size_t errsz)
{
  if (h != NULL && lh_analyse(h, err, errsz) < 0) {
    lh_free(h);
    return NULL;
  }
  return h;
}

lh_heap *lh_load_mem(const char *name, const void *data, size_t size,
                     char *err, size_t errsz)
{
  return analysed(parse(name, data, size, err, errsz), err, errsz);
}

lh_heap *lh_load(const char *path, char *err, size_t errsz)
{
  struct stat st;
  unsigned char *data = NULL;
  size_t size = 0;
  int mapped = 0, e;
  lh_heap *h;
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    snprintf(err, errsz, "%s: %s", path, strerror(errno));
    return NULL;
  }
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(err, errsz, "%s: %s", path, strerror(EISDIR));
    close(fd);
    return NULL;
  }
#ifdef LH_MMAP
  if (S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uint64_t)st.st_size <= SIZE_MAX) {
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      data = m;
      size = (size_t)st.st_size;
      mapped = 1;
#ifdef MADV_SEQUENTIAL
      madvise(m, size, MADV_SEQUENTIAL);
#endif
    }
  }
#endif
  if (!mapped && (e = li_js_read_fd(fd, &data, &size)) != 0) {
    snprintf(err, errsz, "%s: %s", path, strerror(e));
    close(fd);
    return NULL;
  }
  close(fd);
  h = parse(path, data, size, err, errsz);
  /* the file's bytes are no longer needed: gone before the analysis */
#ifdef LH_MMAP
  if (mapped) munmap(data, size);
#endif
  if (!mapped) free(data);
  return analysed(h, err, errsz);
}
