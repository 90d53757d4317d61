/*
** test_heap.c -- Criterion tests of heap snapshots (runtime/heap.c): known
** heaps built in a fresh state, the .heapsnapshot read back (a small JSON
** reader below: the file must parse as JSON, and its flat arrays as
** docs/heap.md says) and checked for exact nodes, edges and names.
** Counts of objects are taken against a snapshot of the state before the
** heap is built, so that they are exact on every Lua whatever its
** libraries hold.
*/
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"
#include "heapsize.h"


/* ---- a JSON reader ------------------------------------------------------ */

typedef struct jv {
  char t;               /* 'o' object, 'a' array, 's' string, 'n' number,
                           'b' boolean, 'z' null */
  double num;
  char *s;              /* a string (NUL-terminated, may hold NULs) */
  size_t len;
  struct jv *kid;       /* members or elements */
  char **key;           /* members' names */
  size_t n;
} jv;

typedef struct jp {
  const char *p, *end;
} jp;

static void ws(jp *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' ||
                           *j->p == '\r'))
    j->p++;
}

static void put_utf8(char *out, size_t *o, unsigned c) {
  if (c < 0x80) out[(*o)++] = (char)c;
  else if (c < 0x800) {
    out[(*o)++] = (char)(0xc0 | c >> 6);
    out[(*o)++] = (char)(0x80 | (c & 63));
  } else if (c < 0x10000) {
    out[(*o)++] = (char)(0xe0 | c >> 12);
    out[(*o)++] = (char)(0x80 | (c >> 6 & 63));
    out[(*o)++] = (char)(0x80 | (c & 63));
  } else {
    out[(*o)++] = (char)(0xf0 | c >> 18);
    out[(*o)++] = (char)(0x80 | (c >> 12 & 63));
    out[(*o)++] = (char)(0x80 | (c >> 6 & 63));
    out[(*o)++] = (char)(0x80 | (c & 63));
  }
}

static unsigned hex4(jp *j) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = *j->p++;
    cr_assert(j->p <= j->end);
    v = v * 16 + (unsigned)(c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0');
  }
  return v;
}

static char *jstring(jp *j, size_t *len) {
  char *out;
  size_t o = 0;
  cr_assert_eq(*j->p, '"');
  j->p++;
  out = malloc((size_t)(j->end - j->p) + 1);
  while (*j->p != '"') {
    unsigned char c = (unsigned char)*j->p++;
    cr_assert(j->p < j->end, "unterminated string");
    cr_assert(c >= 0x20, "control byte in a JSON string");
    if (c != '\\') {
      out[o++] = (char)c;
      continue;
    }
    c = (unsigned char)*j->p++;
    switch (c) {
      case 'n': out[o++] = '\n'; break;
      case 't': out[o++] = '\t'; break;
      case 'r': out[o++] = '\r'; break;
      case 'b': out[o++] = '\b'; break;
      case 'f': out[o++] = '\f'; break;
      case 'u': {
        unsigned u = hex4(j);
        if (u >= 0xd800 && u < 0xdc00) {
          cr_assert(j->p[0] == '\\' && j->p[1] == 'u');
          j->p += 2;
          u = 0x10000 + ((u - 0xd800) << 10) + (hex4(j) - 0xdc00);
        }
        put_utf8(out, &o, u);
        break;
      }
      default:
        cr_assert(c == '"' || c == '\\' || c == '/', "bad escape \\%c", c);
        out[o++] = (char)c;
    }
  }
  j->p++;
  out[o] = '\0';
  *len = o;
  return out;
}

static void jvalue(jp *j, jv *v);

static void jlist(jp *j, jv *v, char close, int members) {
  size_t cap = 16;
  v->kid = malloc(cap * sizeof *v->kid);
  v->key = members ? malloc(cap * sizeof *v->key) : NULL;
  j->p++;
  ws(j);
  if (*j->p == close) {
    j->p++;
    return;
  }
  for (;;) {
    if (v->n == cap) {
      cap *= 2;
      v->kid = realloc(v->kid, cap * sizeof *v->kid);
      if (members) v->key = realloc(v->key, cap * sizeof *v->key);
    }
    if (members) {
      size_t kl;
      ws(j);
      v->key[v->n] = jstring(j, &kl);
      ws(j);
      cr_assert_eq(*j->p, ':');
      j->p++;
    }
    jvalue(j, &v->kid[v->n++]);
    ws(j);
    if (*j->p == ',') {
      j->p++;
      continue;
    }
    cr_assert_eq(*j->p, close, "expected '%c' at offset", close);
    j->p++;
    return;
  }
}

static void jvalue(jp *j, jv *v) {
  memset(v, 0, sizeof *v);
  ws(j);
  cr_assert(j->p < j->end, "JSON ends early");
  switch (*j->p) {
    case '{': v->t = 'o'; jlist(j, v, '}', 1); break;
    case '[': v->t = 'a'; jlist(j, v, ']', 0); break;
    case '"': v->t = 's'; v->s = jstring(j, &v->len); break;
    case 't': cr_assert(strncmp(j->p, "true", 4) == 0); j->p += 4; v->t = 'b'; v->num = 1; break;
    case 'f': cr_assert(strncmp(j->p, "false", 5) == 0); j->p += 5; v->t = 'b'; break;
    case 'n': cr_assert(strncmp(j->p, "null", 4) == 0); j->p += 4; v->t = 'z'; break;
    default: {
      char *e;
      v->t = 'n';
      v->num = strtod(j->p, &e);
      cr_assert(e != j->p, "not a JSON value");
      j->p = e;
    }
  }
}

static const jv *member(const jv *o, const char *k) {
  cr_assert_eq(o->t, 'o');
  for (size_t i = 0; i < o->n; i++)
    if (strcmp(o->key[i], k) == 0) return &o->kid[i];
  return NULL;
}

static void jfree(jv *v) {
  for (size_t i = 0; i < v->n; i++) {
    jfree(&v->kid[i]);
    if (v->key != NULL) free(v->key[i]);
  }
  free(v->kid);
  free(v->key);
  free(v->s);
}


/* ---- a snapshot, read ---------------------------------------------------- */

typedef struct heap {
  jv doc;
  const jv *lua;        /* snapshot.lua */
  size_t nnodes, nedges, nstrings;
  const jv *nodes, *edges, *strings;
  size_t *first;        /* first[i]: node i's first edge */
  const jv *ntypes, *etypes;
} heap;

static uint64_t num(const jv *a, size_t i) {
  cr_assert_eq(a->kid[i].t, 'n');
  return (uint64_t)a->kid[i].num;
}

static heap *hload(const char *path) {
  heap *h = calloc(1, sizeof *h);
  FILE *f = fopen(path, "rb");
  long size;
  char *text;
  jp j;
  const jv *snap, *meta, *tf;
  cr_assert_not_null(f, "no snapshot at %s", path);
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = malloc((size_t)size + 1);
  cr_assert_eq(fread(text, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  text[size] = '\0';
  j.p = text;
  j.end = text + size;
  jvalue(&j, &h->doc);
  ws(&j);
  cr_assert_eq(j.p, j.end, "text after the JSON value");
  free(text);
  /* the keys in the order DevTools' loader reads them */
  cr_assert_eq(h->doc.t, 'o');
  cr_assert_eq(h->doc.n, 8);
  cr_assert_str_eq(h->doc.key[0], "snapshot");
  cr_assert_str_eq(h->doc.key[1], "nodes");
  cr_assert_str_eq(h->doc.key[2], "edges");
  cr_assert_str_eq(h->doc.key[7], "strings");
  snap = member(&h->doc, "snapshot");
  meta = member(snap, "meta");
  tf = member(meta, "node_fields");
  cr_assert_eq(tf->n, 7);
  cr_assert_str_eq(tf->kid[5].s, "trace_node_id");
  cr_assert_str_eq(tf->kid[6].s, "detachedness");
  h->ntypes = &member(meta, "node_types")->kid[0];
  h->etypes = &member(meta, "edge_types")->kid[0];
  h->lua = member(snap, "lua");
  h->nodes = member(&h->doc, "nodes");
  h->edges = member(&h->doc, "edges");
  h->strings = member(&h->doc, "strings");
  cr_assert_eq(h->nodes->n % 7, 0);
  cr_assert_eq(h->edges->n % 3, 0);
  h->nnodes = h->nodes->n / 7;
  h->nedges = h->edges->n / 3;
  h->nstrings = h->strings->n;
  cr_assert_eq((size_t)member(snap, "node_count")->num, h->nnodes);
  cr_assert_eq((size_t)member(snap, "edge_count")->num, h->nedges);
  h->first = malloc((h->nnodes + 1) * sizeof *h->first);
  h->first[0] = 0;
  for (size_t i = 0; i < h->nnodes; i++) {
    cr_assert(num(h->nodes, i * 7 + 1) < h->nstrings);
    cr_assert(num(h->nodes, i * 7) < h->ntypes->n);
    cr_assert_eq(num(h->nodes, i * 7 + 5), 0);
    cr_assert_eq(num(h->nodes, i * 7 + 6), 0);
    h->first[i + 1] = h->first[i] + num(h->nodes, i * 7 + 4);
  }
  cr_assert_eq(h->first[h->nnodes], h->nedges, "edge counts add up");
  for (size_t e = 0; e < h->nedges; e++) {
    uint64_t t = num(h->edges, e * 3), to = num(h->edges, e * 3 + 2);
    cr_assert(t < h->etypes->n);
    cr_assert_eq(to % 7, 0);
    cr_assert(to / 7 < h->nnodes);
    if (strcmp(h->etypes->kid[t].s, "element") != 0 &&
        strcmp(h->etypes->kid[t].s, "hidden") != 0)
      cr_assert(num(h->edges, e * 3 + 1) < h->nstrings);
  }
  return h;
}

static void hfree(heap *h) {
  jfree(&h->doc);
  free(h->first);
  free(h);
}

static const char *nname(const heap *h, size_t i) {
  return h->strings->kid[num(h->nodes, i * 7 + 1)].s;
}

static const char *ntype(const heap *h, size_t i) {
  return h->ntypes->kid[num(h->nodes, i * 7)].s;
}

static uint64_t nid(const heap *h, size_t i) { return num(h->nodes, i * 7 + 2); }
static uint64_t nsize(const heap *h, size_t i) { return num(h->nodes, i * 7 + 3); }
static size_t nedges(const heap *h, size_t i) { return num(h->nodes, i * 7 + 4); }

static const char *etype(const heap *h, size_t e) {
  return h->etypes->kid[num(h->edges, e * 3)].s;
}

/* An edge's name as text (a number for element and hidden edges). */
static const char *ename(const heap *h, size_t e, char *buf, size_t len) {
  const char *t = etype(h, e);
  if (strcmp(t, "element") == 0 || strcmp(t, "hidden") == 0) {
    snprintf(buf, len, "%llu", (unsigned long long)num(h->edges, e * 3 + 1));
    return buf;
  }
  return h->strings->kid[num(h->edges, e * 3 + 1)].s;
}

static size_t eto(const heap *h, size_t e) { return num(h->edges, e * 3 + 2) / 7; }

/* The target of node i's edge of type `type` named `name` (SIZE_MAX: none). */
static size_t follow(const heap *h, size_t i, const char *type, const char *name) {
  char buf[32];
  if (i == SIZE_MAX) return SIZE_MAX;
  for (size_t e = h->first[i]; e < h->first[i + 1]; e++)
    if (strcmp(etype(h, e), type) == 0 && strcmp(ename(h, e, buf, sizeof buf), name) == 0)
      return eto(h, e);
  return SIZE_MAX;
}

/* Follow a path of "type:name" segments from node i. */
static size_t path(const heap *h, size_t i, const char *const *seg) {
  for (; *seg != NULL && i != SIZE_MAX; seg++) {
    char type[32];
    const char *colon = strchr(*seg, ':');
    memcpy(type, *seg, (size_t)(colon - *seg));
    type[colon - *seg] = '\0';
    i = follow(h, i, type, colon + 1);
  }
  return i;
}

/* How many edges of node i have this type (and name, unless NULL). */
static size_t count_edges(const heap *h, size_t i, const char *type, const char *name) {
  char buf[32];
  size_t n = 0;
  for (size_t e = h->first[i]; e < h->first[i + 1]; e++)
    n += strcmp(etype(h, e), type) == 0 &&
         (name == NULL || strcmp(ename(h, e, buf, sizeof buf), name) == 0);
  return n;
}

/* Nodes by Lua type (docs/heap.md: told by node type and name). */
enum { C_TABLE, C_LFUNC, C_CFUNC, C_STRING, C_UDATA, C_LIGHT, C_THREAD,
       C_PROTO, C_ROOT, C_OTHER, C_N };

static int category(const heap *h, size_t i) {
  const char *t = ntype(h, i), *n = nname(h, i);
  if (strcmp(t, "synthetic") == 0) return C_ROOT;
  if (strcmp(t, "string") == 0) return C_STRING;
  if (strcmp(t, "code") == 0) return C_PROTO;
  if (strcmp(t, "closure") == 0)
    return strncmp(n, "C function", 10) == 0 ? C_CFUNC : C_LFUNC;
  if (strcmp(t, "object") == 0)
    return strcmp(n, "thread") == 0 || strcmp(n, "thread (main)") == 0 ? C_THREAD : C_TABLE;
  if (strcmp(t, "native") == 0)
    return strncmp(n, "light userdata", 14) == 0 ? C_LIGHT : C_UDATA;
  return C_OTHER;
}

static void counts(const heap *h, size_t c[C_N]) {
  memset(c, 0, C_N * sizeof *c);
  for (size_t i = 0; i < h->nnodes; i++) c[category(h, i)]++;
}

/* Every node is reachable from node 0 (a breadth-first walk). */
static void all_reachable(const heap *h) {
  char *seen = calloc(h->nnodes, 1);
  size_t *q = malloc(h->nnodes * sizeof *q), qn = 0;
  seen[0] = 1;
  q[qn++] = 0;
  for (size_t k = 0; k < qn; k++)
    for (size_t e = h->first[q[k]]; e < h->first[q[k] + 1]; e++)
      if (!seen[eto(h, e)]) {
        seen[eto(h, e)] = 1;
        q[qn++] = eto(h, e);
      }
  cr_assert_eq(qn, h->nnodes, "%zu of %zu nodes reachable", qn, h->nnodes);
  free(seen);
  free(q);
}


/* ---- states and files ---------------------------------------------------- */

static char dir[64];

static void mkdir_tmp(void) {
  strcpy(dir, "/tmp/li_heap_XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

/* The files left in dir (but for the ones named). */
static int files_in_dir(void) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  cr_assert_not_null(d);
  while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static void rm_dir(void) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char p[512];
  if (d == NULL) return;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  closedir(d);
  rmdir(dir);
}

static const char *file(const char *name) {
  static char p[2][256];
  static int k;
  k ^= 1;
  snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
  return p[k];
}

static lua_State *state(void) {
  lua_State *L = luaL_newstate();
  cr_assert_not_null(L);
  luaL_openlibs(L);
  return L;
}

/* Run src (chunk "=test"), keeping nothing on the stack. */
static void run(lua_State *L, const char *src) {
  cr_assert_eq(luaL_loadbuffer(L, src, strlen(src), "=test"), 0, "%s", lua_tostring(L, -1));
  cr_assert_eq(lua_pcall(L, 0, 0, 0), 0, "%s", lua_tostring(L, -1));
}

static heap *snapshot(lua_State *L, const char *name) {
  int top = lua_gettop(L);
  cr_assert_eq(luainstr_snapshot(L, file(name), 0), LUAINSTR_OK, "%s",
               luainstr_errmsg(L));
  cr_assert_eq(lua_gettop(L), top, "the stack is as it was");
  return hload(file(name));
}

static size_t registry_node(const heap *h) {
  cr_assert_str_eq(nname(h, 1), "(registry)");
  cr_assert_eq(follow(h, 0, "element", "0"), 1);
  return 1;
}

static size_t global(const heap *h, const char *name) {
  return follow(h, follow(h, registry_node(h), "property", "_G"), "property", name);
}

static void setup(void) { mkdir_tmp(); }
static void teardown(void) { rm_dir(); }

TestSuite(heap, .init = setup, .fini = teardown);


/* ---- the roots ----------------------------------------------------------- */

Test(heap, roots_and_format) {
  lua_State *L = state();
  uint64_t count;
  /* (luainstr_snapshot looks for a profiler first, with a light userdata
  ** key: LuaJIT interns its address range, once, the first time one is
  ** pushed, an allocation; done before the count is taken) */
  cr_assert_null(li_prof_get(L));
  count = (uint64_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 +
          (uint64_t)lua_gc(L, LUA_GCCOUNTB, 0);
  heap *h = snapshot(L, "a.heapsnapshot");
  static const char *const roots[] = {
    "(registry)", "(main thread)", "(type metatables)", "(threads)"
  };
  cr_assert_str_eq(nname(h, 0), "(GC roots)");
  cr_assert_str_eq(ntype(h, 0), "synthetic");
  cr_assert_eq(nedges(h, 0), 4);
  for (size_t i = 0; i < 4; i++) {
    char k[4];
    snprintf(k, sizeof k, "%zu", i);
    cr_assert_eq(follow(h, 0, "element", k), i + 1);
    cr_assert_str_eq(nname(h, i + 1), roots[i]);
    cr_assert_str_eq(ntype(h, i + 1), "synthetic");
    cr_assert_eq(nid(h, i + 1) % 2, 1, "synthetic ids are odd");
  }
  cr_assert_eq(nid(h, 0), 1);
  /* the main thread, and no other running one */
  cr_assert_str_eq(nname(h, follow(h, 2, "element", "0")), "thread (main)");
  cr_assert_eq(nedges(h, 4), 0);
  cr_assert(global(h, "string") != SIZE_MAX);
  cr_assert_eq(global(h, "_G"), follow(h, registry_node(h), "property", "_G"));
  cr_assert_str_eq(member(h->lua, "version")->s, LI_LUA_NAME);
  cr_assert_eq(member(h->lua, "collected")->num, 0);
  cr_assert_eq(member(h->lua, "taken_ns")->num, 0, "no profiler: 0");
  /* collectgarbage("count") as the program had it */
  cr_assert_eq((uint64_t)member(h->lua, "gc_count_bytes")->num, count);
  cr_assert_null(member(h->lua, "sites"));
  all_reachable(h);
  /* package.loaded, each module under its name */
  cr_assert_eq(follow(h, follow(h, 1, "property", "package.loaded"), "property",
                      "string"), global(h, "string"));
  hfree(h);
  lua_close(L);
}


/* ---- a known heap -------------------------------------------------------- */

Test(heap, known_heap_exact) {
  lua_State *L = state();
  heap *h0, *h;
  size_t c0[C_N], c1[C_N], pos, ent;
  static const char *const to_pos[] = {
    "property:_G", "property:Game", "property:world", "property:entities",
    "element:3", "property:pos", NULL
  };
  /* (a first snapshot: on 5.1 the walk's C function is made once, and
  ** kept in the registry) */
  hfree(snapshot(L, "warm.heapsnapshot"));
  h0 = snapshot(L, "before.heapsnapshot");
  run(L, "Game = {world = {entities = {}}}\n"
         "for i = 1, 5 do\n"
         "  Game.world.entities[i] = {pos = {px = i, py = 2 * i}}\n"
         "end\n");
  h = snapshot(L, "after.heapsnapshot");
  counts(h0, c0);
  counts(h, c1);
  /* tables: Game, world, entities, 5 entities, 5 positions; strings: the
  ** keys Game, world, entities, pos, px, py */
  cr_assert_eq(c1[C_TABLE] - c0[C_TABLE], 13, "%zu tables more", c1[C_TABLE] - c0[C_TABLE]);
  cr_assert_eq(c1[C_STRING] - c0[C_STRING], 6, "%zu strings more", c1[C_STRING] - c0[C_STRING]);
  cr_assert_eq(c1[C_LFUNC], c0[C_LFUNC]);
  cr_assert_eq(c1[C_CFUNC], c0[C_CFUNC]);
  cr_assert_eq(c1[C_THREAD], c0[C_THREAD]);
  cr_assert_eq(c1[C_UDATA], c0[C_UDATA]);
  cr_assert_eq(h->nnodes - h0->nnodes, 19);
  pos = path(h, registry_node(h), to_pos);
  cr_assert_neq(pos, SIZE_MAX, "_G.Game.world.entities[3].pos");
  cr_assert_str_eq(nname(h, pos), "table");
  cr_assert_str_eq(ntype(h, pos), "object");
  /* its edges: the keys px and py (the values are numbers: no nodes) */
  cr_assert_eq(nedges(h, pos), 2);
  cr_assert_eq(count_edges(h, pos, "internal", "(key)"), 2);
  {
    const char *a = nname(h, eto(h, h->first[pos]));
    const char *b = nname(h, eto(h, h->first[pos] + 1));
    cr_assert((strcmp(a, "px") == 0 && strcmp(b, "py") == 0) ||
              (strcmp(a, "py") == 0 && strcmp(b, "px") == 0), "%s %s", a, b);
    cr_assert_str_eq(ntype(h, eto(h, h->first[pos])), "string");
  }
  /* entities: 5 elements, 1 to 5, no keys that are objects */
  ent = path(h, registry_node(h), (const char *const[]){
    "property:_G", "property:Game", "property:world", "property:entities", NULL});
  cr_assert_eq(nedges(h, ent), 5);
  cr_assert_eq(count_edges(h, ent, "element", NULL), 5);
  for (int i = 1; i <= 5; i++) {
    char k[4];
    snprintf(k, sizeof k, "%d", i);
    cr_assert_neq(follow(h, ent, "element", k), SIZE_MAX);
  }
  /* the entity: (key) pos and .pos */
  cr_assert_eq(nedges(h, follow(h, ent, "element", "3")), 2);
  cr_assert_eq(nid(h, pos) % 2, 0, "an object's id is its address");
  all_reachable(h);
  hfree(h0);
  hfree(h);
  lua_close(L);
}

/* Strings: the first 80 bytes, escaped; a key's property name alike. */
Test(heap, string_names) {
  lua_State *L = state();
  heap *h;
  size_t t, s;
  char want[200];
  run(L, "S = {}\n"
         "S['a\\0b\\1'] = {}\n"
         "S.long = string.rep('x', 100)\n"
         "S.utf = 'caf\\195\\169 \\255'\n"
         "S.back = 'a\\\\b'\n");
  h = snapshot(L, "s.heapsnapshot");
  t = global(h, "S");
  cr_assert_neq(follow(h, t, "property", "a\\000b\\001"), SIZE_MAX,
                "a key with NUL and control bytes");
  s = follow(h, t, "property", "long");
  memset(want, 'x', 80);
  strcpy(want + 80, "...");
  cr_assert_str_eq(nname(h, s), want);
  cr_assert_str_eq(nname(h, follow(h, t, "property", "utf")), "caf\xc3\xa9 \\255");
  cr_assert_str_eq(nname(h, follow(h, t, "property", "back")), "a\\\\b");
  hfree(h);
  lua_close(L);
}


/* ---- weak tables, metatables -------------------------------------------- */

Test(heap, weak_tables) {
  lua_State *L = state();
  heap *h;
  size_t wk, wv, k, e;
  char buf[32];
  run(L, "K = {}\n"
         "WK = setmetatable({}, {__mode = 'k'})\n"
         "WK[K] = 'held'\n"
         "WV = setmetatable({}, {__mode = 'v'})\n"
         "WV[1] = K\n"
         "WV.name = K\n"
         "STRONG = {[K] = 'held'}\n");
  h = snapshot(L, "w.heapsnapshot");
  k = global(h, "K");
  wk = global(h, "WK");
  wv = global(h, "WV");
  /* every edge of a weak table is weak, but its metatable's */
  cr_assert_eq(nedges(h, wk), 3);
  cr_assert_neq(follow(h, wk, "internal", "(metatable)"), SIZE_MAX);
  cr_assert_eq(follow(h, wk, "weak", "(key)"), k);
  snprintf(buf, sizeof buf, "[table 0x%llx]", (unsigned long long)nid(h, k));
  e = follow(h, wk, "weak", buf);
  cr_assert_neq(e, SIZE_MAX, "weak %s", buf);
  cr_assert_str_eq(nname(h, e), "held");
  cr_assert_eq(follow(h, wv, "weak", "[1]"), k);
  cr_assert_eq(follow(h, wv, "weak", "name"), k);
  cr_assert_str_eq(nname(h, follow(h, wv, "weak", "(key)")), "name");
  cr_assert_eq(count_edges(h, wv, "weak", NULL), 3);
  /* the same entry in a strong table */
  cr_assert_eq(follow(h, global(h, "STRONG"), "internal", "(key)"), k);
  cr_assert_str_eq(nname(h, follow(h, global(h, "STRONG"), "internal", buf)), "held");
  hfree(h);
  lua_close(L);
}

/* The metatables of the basic types, and of a table. */
Test(heap, type_metatables) {
  lua_State *L = state();
  heap *h;
  size_t tm;
  run(L, "NUMMT = {}\n"
         "debug.setmetatable(0, NUMMT)\n"
         "T = setmetatable({}, NUMMT)\n");
  h = snapshot(L, "t.heapsnapshot");
  tm = follow(h, 0, "element", "2");
  cr_assert_str_eq(nname(h, tm), "(type metatables)");
  cr_assert_eq(nedges(h, tm), 2, "string's (string library) and number's");
  cr_assert_eq(follow(h, tm, "property", "number"), global(h, "NUMMT"));
  cr_assert_eq(follow(h, follow(h, tm, "property", "string"), "property", "__index"),
               global(h, "string"));
  cr_assert_eq(follow(h, global(h, "T"), "internal", "(metatable)"), global(h, "NUMMT"));
  hfree(h);
  lua_close(L);
}


/* ---- functions ----------------------------------------------------------- */

static int cfunc(lua_State *L) { (void)L; return 0; }

Test(heap, functions_upvalues_c_light) {
  lua_State *L = state();
  heap *h;
  size_t f1, f2, sh;
  uint64_t closure, cell;     /* (f1's and f2's closures) */
  int shared_cells;
  const char *why;
  int exact = li_heap_exact(L, &why);
  run(L, "local shared = {}\n"
         "local count = 0\n"
         "function f1() count = count + 1; return shared end\n"
         "function f2() return shared end\n"
         "function f3() return print end\n");
  lua_pushcfunction(L, cfunc);
  lua_setglobal(L, "cf");
  lua_pushlightuserdata(L, (void *)(uintptr_t)0x1230);
  lua_setglobal(L, "lud");
  h = snapshot(L, "f.heapsnapshot");
  f1 = global(h, "f1");
  f2 = global(h, "f2");
  cr_assert_str_eq(nname(h, f1), "function (test:3)");
  cr_assert_str_eq(nname(h, f2), "function (test:4)");
  cr_assert_str_eq(ntype(h, f1), "closure");
  sh = follow(h, f1, "context", "shared");
  cr_assert_neq(sh, SIZE_MAX);
  cr_assert_eq(follow(h, f2, "context", "shared"), sh, "one table, two upvalues");
  cr_assert_eq(follow(h, f1, "context", "count"), SIZE_MAX, "a number: no edge");
  /* the shared cell is counted once, with the first closure met */
  lua_getglobal(L, "f1");
  lua_getglobal(L, "f2");
  closure = li_heap_size(L, -1, exact) + li_heap_size(L, -2, exact);
  cell = li_heap_upvalue_size(exact);
  shared_cells = li_heap_upvalue_id(L, -1, 1, exact) != NULL;
  lua_pop(L, 2);
  cr_assert_eq(nsize(h, f1) + nsize(h, f2) - closure, (shared_cells ? 2u : 3u) * cell,
               "cells: count and shared once (%llu, %llu, closure %llu, cell %llu)",
               (unsigned long long)nsize(h, f1), (unsigned long long)nsize(h, f2),
               (unsigned long long)closure, (unsigned long long)cell);
  /* a C function, named by the key it was first found under */
  cr_assert_str_eq(nname(h, global(h, "cf")), "C function cf");
  cr_assert_str_eq(ntype(h, global(h, "cf")), "closure");
  cr_assert_str_eq(nname(h, global(h, "lud")), "light userdata 0x1230");
  cr_assert_str_eq(ntype(h, global(h, "lud")), "native");
  cr_assert_eq(nsize(h, global(h, "lud")), 0);
  cr_assert_eq(nid(h, global(h, "lud")) % 2, 1);
#if LUA_VERSION_NUM >= 502
  cr_assert_eq(follow(h, global(h, "f3"), "context", "_ENV"), global(h, "_G"));
#else
  cr_assert_eq(follow(h, f1, "internal", "(environment)"), global(h, "_G"));
#endif
  hfree(h);
  lua_close(L);
}

/* A userdata: its metatable's __name, its user value. */
Test(heap, userdata) {
  lua_State *L = state();
  heap *h;
  size_t u;
  lua_newuserdatauv(L, 10, 1);
  luaL_newmetatable(L, "Thing");
  lua_setmetatable(L, -2);
  lua_newtable(L);
  lua_setiuservalue(L, -2, 1);
  lua_setglobal(L, "U");
  h = snapshot(L, "u.heapsnapshot");
  u = global(h, "U");
  cr_assert_str_eq(ntype(h, u), "native");
#if LUA_VERSION_NUM >= 503
  cr_assert_str_eq(nname(h, u), "userdata Thing");
#else
  cr_assert_str_eq(nname(h, u), "userdata");      /* (no __name before 5.3) */
#endif
  cr_assert_eq(follow(h, u, "internal", "(metatable)"),
               follow(h, registry_node(h), "property", "Thing"));
#if LUA_VERSION_NUM >= 504
  cr_assert_str_eq(nname(h, follow(h, u, "internal", "(uservalue 1)")), "table");
#elif LUA_VERSION_NUM >= 502
  cr_assert_str_eq(nname(h, follow(h, u, "internal", "(uservalue)")), "table");
#else
  cr_assert_str_eq(nname(h, follow(h, u, "internal", "(environment)")), "table");
#endif
  hfree(h);
  lua_close(L);
}


/* ---- threads ------------------------------------------------------------- */

Test(heap, suspended_coroutine_locals) {
  lua_State *L = state();
  heap *h;
  size_t co, secret;
  run(L, "CO = coroutine.create(function(a)\n"
         "  local secret = {tag = 'hidden'}\n"
         "  local n = 1\n"
         "  coroutine.yield(n)\n"
         "end)\n"
         "assert(coroutine.resume(CO, 'argument'))\n"
         "NEW = coroutine.create(function() end)\n");
  h = snapshot(L, "c.heapsnapshot");
  co = global(h, "CO");
  cr_assert_str_eq(nname(h, co), "thread");
  cr_assert_str_eq(ntype(h, co), "object");
  secret = follow(h, co, "context", "secret in function (test:1)");
  cr_assert_neq(secret, SIZE_MAX);
  cr_assert_str_eq(nname(h, follow(h, secret, "property", "tag")), "hidden");
  cr_assert_str_eq(nname(h, follow(h, co, "context", "a in function (test:1)")), "argument");
  cr_assert_eq(follow(h, co, "context", "n in function (test:1)"), SIZE_MAX);
  /* its frames' functions: coroutine.yield's and the body */
  cr_assert_eq(count_edges(h, co, "hidden", NULL) >= 2, 1);
  /* a coroutine not started yet: its function, on its stack */
  cr_assert_str_eq(nname(h, follow(h, global(h, "NEW"), "hidden", "1")),
                   "function (test:7)");
  hfree(h);
  lua_close(L);
}

/* From inside a running coroutine (the Lua module): its own stack and
** the main thread's, which resumed it. */
Test(heap, from_a_running_coroutine) {
  lua_State *L = state();
  heap *h;
  size_t th, co, mainth;
  char src[600];
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_option(L, "frames", "on"), LUAINSTR_OK);
  snprintf(src, sizeof src,
           "local p = require 'luainstr'\n"
           "local outer = {name = 'outer'}\n"
           "CO = coroutine.create(function()\n"
           "  local here = {name = 'here'}\n"
           "  OK, ERR = p.snapshot('%s')\n"
           "end)\n"
           "assert(coroutine.resume(CO))\n"
           "assert(OK, ERR)\n", file("r.heapsnapshot"));
  run(L, src);
  h = hload(file("r.heapsnapshot"));
  th = follow(h, 0, "element", "3");
  cr_assert_str_eq(nname(h, th), "(threads)");
  co = follow(h, th, "element", "0");
  cr_assert_neq(co, SIZE_MAX, "the running coroutine is a root");
  cr_assert_str_eq(nname(h, co), "thread");
  cr_assert_str_eq(nname(h, follow(h, follow(h, co, "context", "here in function (test:3)"),
                                   "property", "name")), "here");
  mainth = follow(h, follow(h, 0, "element", "1"), "element", "0");
  cr_assert_str_eq(nname(h, follow(h, follow(h, mainth, "context", "outer in main chunk (test:main)"),
                                   "property", "name")), "outer");
  cr_assert(member(h->lua, "taken_ns")->num > 0, "with a profiler: ns since its start");
  all_reachable(h);
  hfree(h);
  lua_close(L);
}


/* Given a suspended coroutine: the main thread walks, the coroutine is
** found where it is held, its stack as it was. */
Test(heap, given_a_suspended_thread) {
  lua_State *L = state(), *co;
  heap *h;
  int nres, top;
  co = lua_newthread(L);
  lua_setglobal(L, "CO");
  cr_assert_eq(luaL_loadbuffer(co, "local mine = {'mine'} coroutine.yield(7)", 40, "=co"), 0);
  cr_assert_eq(lua_resume(co, L, 0, &nres), LUA_YIELD);
  top = lua_gettop(co);
  if (li_push_mainthread(co) == NULL) {
    /* (5.1 built without Lua's headers, no profiler: the main thread
    ** cannot be found from a coroutine) */
    cr_assert_eq(luainstr_snapshot(co, file("y.heapsnapshot"), 0), LUAINSTR_EORDER);
    cr_assert_eq(lua_gettop(co), top);
    cr_assert_eq(files_in_dir(), 0);
    lua_close(L);
    return;
  }
  lua_pop(co, 1);
  cr_assert_eq(luainstr_snapshot(co, file("y.heapsnapshot"), 0), LUAINSTR_OK, "%s",
               luainstr_errmsg(co));
  cr_assert_eq(lua_gettop(co), top);
  cr_assert_eq(lua_status(co), LUA_YIELD);
  h = hload(file("y.heapsnapshot"));
  cr_assert_eq(nedges(h, 4), 0, "(threads): the main thread walked");
  cr_assert_str_eq(nname(h, follow(h, follow(h, global(h, "CO"), "context",
                                            "mine in main chunk (co:main)"),
                                   "element", "1")), "mine");
  hfree(h);
  lua_close(L);
}

/* From a finalizer, while a collection runs finalizers. */
Test(heap, from_a_finalizer) {
  lua_State *L = state();
  heap *h;
  char src[700];
  double count;
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  snprintf(src, sizeof src,
           "local p = require 'luainstr'\n"
           "local function fin() OK, ERR = p.snapshot('%s') end\n"
           "if newproxy then getmetatable(newproxy(true)).__gc = fin\n"
           "else setmetatable({}, {__gc = fin}) end\n"
           "collectgarbage() collectgarbage()\n"
           "assert(OK, ERR)\n", file("g.heapsnapshot"));
  run(L, src);
  h = hload(file("g.heapsnapshot"));
  count = member(h->lua, "gc_count_bytes")->num;
  cr_assert(count >= 0 && count < (double)lua_gc(L, LUA_GCCOUNT, 0) * 1024 * 4,
            "collectgarbage count %.0f", count);
  all_reachable(h);
  hfree(h);
  lua_close(L);
}

/* From an error handler (LuaJIT runs it with the thread's status
** LUA_ERRERR). */
Test(heap, from_an_error_handler) {
  lua_State *L = state();
  char src[700];
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  snprintf(src, sizeof src,
           "local p = require 'luainstr'\n"
           "xpcall(function() error({code = 7}) end,\n"
           "       function(e) OK, ERR = p.snapshot('%s'); return e end)\n"
           "assert(OK, ERR)\n", file("e.heapsnapshot"));
  run(L, src);
  hfree(hload(file("e.heapsnapshot")));
  lua_close(L);
}

/* ---- what a snapshot must not change ------------------------------------ */

/* Every metamethod raises, and counts that it ran. */
static const char hostile[] =
  "RAN = 0\n"
  "local function boom() RAN = RAN + 1; error('a metamethod ran') end\n"
  "MT = {}\n"
  "for _, k in ipairs{'__index', '__newindex', '__pairs', '__len', '__call',\n"
  "  '__tostring', '__name', '__gc', '__eq', '__lt', '__le', '__concat',\n"
  "  '__close', '__ipairs', '__mode', '__metatable', '__unm', '__add'} do\n"
  "  MT[k] = boom\n"
  "end\n"
  "H = setmetatable({}, MT)\n"
  "rawset(H, setmetatable({}, MT), setmetatable({}, MT))\n"
  "rawset(H, 1, setmetatable({}, MT))\n"
  "debug.setmetatable(0, MT)\n"
  "debug.setmetatable(nil, MT)\n";

static int make_hostile_udata(lua_State *L) {
  lua_newuserdatauv(L, 4, 1);
  lua_getglobal(L, "MT");
  lua_setmetatable(L, -2);
  lua_setglobal(L, "HU");
  return 0;
}

Test(heap, no_metamethod_runs) {
  lua_State *L = state();
  heap *h;
  run(L, hostile);
  make_hostile_udata(L);
  h = snapshot(L, "h.heapsnapshot");
  lua_getglobal(L, "RAN");
  cr_assert_eq(lua_tointeger(L, -1), 0, "no metamethod ran");
  lua_pop(L, 1);
  cr_assert_str_eq(nname(h, global(h, "HU")), "userdata", "__name not a string");
  cr_assert_eq(follow(h, global(h, "H"), "internal", "(metatable)"), global(h, "MT"));
  cr_assert_eq(count_edges(h, global(h, "H"), "weak", NULL), 0, "__mode not a string");
  hfree(h);
  lua_close(L);
}

/* The stack, the collector and the heap's size are as they were. */
Test(heap, nothing_changes) {
  lua_State *L = state();
  heap *h;
  int before;
  lua_pushinteger(L, 7);
  lua_pushliteral(L, "base slot");
  lua_newtable(L);
  /* (the first snapshot too, where the walk runs in the host's frame with
  ** its queue in C (5.2-5.4, Lua's headers): a call of its own would have
  ** cost a call record the first time, 80 bytes on 5.2.  5.1 and LuaJIT
  ** make the walk's C function once, at the first snapshot without a
  ** profiler (li_heap_prepare); a queue on the Lua stack may grow it.) */
  before = lua_gc(L, LUA_GCCOUNT, 0) * 1024 + lua_gc(L, LUA_GCCOUNTB, 0);
  h = snapshot(L, "n1.heapsnapshot");     /* (snapshot() checks the top) */
#if LUA_VERSION_NUM >= 502
  {
    const char *refs = getenv("LUAINSTR_HEAP_REFS");
    if (refs == NULL || strcmp(refs, "off") != 0)
      cr_assert_eq(lua_gc(L, LUA_GCCOUNT, 0) * 1024 + lua_gc(L, LUA_GCCOUNTB, 0), before,
                   "nothing allocated in the Lua heap by the first snapshot");
  }
#endif
  cr_assert_eq(lua_tointeger(L, 1), 7);
  cr_assert_str_eq(lua_tostring(L, 2), "base slot");
  cr_assert(lua_istable(L, 3));
  /* the host's slots are the main thread's values */
  cr_assert_str_eq(nname(h, follow(h, follow(h, follow(h, 0, "element", "1"), "element", "0"),
                                   "hidden", "2")), "base slot");
  hfree(h);
  before = lua_gc(L, LUA_GCCOUNT, 0) * 1024 + lua_gc(L, LUA_GCCOUNTB, 0);
  h = snapshot(L, "n2.heapsnapshot");
  cr_assert_eq(lua_gc(L, LUA_GCCOUNT, 0) * 1024 + lua_gc(L, LUA_GCCOUNTB, 0), before,
               "nothing allocated in the Lua heap");
  hfree(h);
#if LUA_VERSION_NUM >= 502
  cr_assert(lua_gc(L, LUA_GCISRUNNING, 0));
  lua_gc(L, LUA_GCSTOP, 0);
  h = snapshot(L, "n3.heapsnapshot");
  cr_assert(!lua_gc(L, LUA_GCISRUNNING, 0), "a stopped collector stays stopped");
  lua_gc(L, LUA_GCRESTART, 0);
  h = (hfree(h), snapshot(L, "n4.heapsnapshot"));
  cr_assert(lua_gc(L, LUA_GCISRUNNING, 0), "a running one runs");
  hfree(h);
#endif
  lua_close(L);
}

/* Asked, a full collection first: unreachable objects are gone. */
Test(heap, collect_flag) {
  lua_State *L = state();
  heap *h;
  run(L, "GONE = {} ; WEAK = setmetatable({}, {__mode = 'v'}) ; WEAK[1] = {}\n");
  cr_assert_eq(luainstr_snapshot(L, file("k.heapsnapshot"), LUAINSTR_HEAP_COLLECT),
               LUAINSTR_OK);
  h = hload(file("k.heapsnapshot"));
  cr_assert_eq(member(h->lua, "collected")->num, 1);
  cr_assert_eq(count_edges(h, global(h, "WEAK"), "weak", NULL), 0,
               "the weak value was collected");
  hfree(h);
  cr_assert_eq(luainstr_snapshot(L, file("k.heapsnapshot"), 4), LUAINSTR_EARG);
  lua_close(L);
}


/* ---- failures ------------------------------------------------------------ */

Test(heap, unwritable_path) {
  lua_State *L = state();
  int top = lua_gettop(L);
  cr_assert_eq(luainstr_snapshot(L, "/nonexistent-dir/x.heapsnapshot", 0), LUAINSTR_EIO);
  cr_assert(strstr(luainstr_errmsg(L), "/nonexistent-dir/x.heapsnapshot") != NULL,
            "%s", luainstr_errmsg(L));
  cr_assert(strstr(luainstr_errmsg(L), "No such file") != NULL, "%s", luainstr_errmsg(L));
  cr_assert_eq(access("/nonexistent-dir/x.heapsnapshot", F_OK), -1);
  /* a directory: nothing written, nothing left beside it */
  cr_assert_eq(mkdir(file("sub"), 0755), 0);
  cr_assert_eq(luainstr_snapshot(L, file("sub"), 0), LUAINSTR_EIO);
  cr_assert_eq(files_in_dir(), 1, "only sub/ is there");
  rmdir(file("sub"));
  /* not a file: written to directly, as the reports are */
  cr_assert_eq(luainstr_snapshot(L, "/dev/full", 0), LUAINSTR_EIO);
  cr_assert(strstr(luainstr_errmsg(L), "No space left") != NULL, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_snapshot(L, "/dev/null", 0), LUAINSTR_OK);
  /* a symbolic link: the file it names replaced, the link kept */
  {
    FILE *f = fopen(file("real.heapsnapshot"), "w");
    fputs("old", f);
    fclose(f);
  }
  cr_assert_eq(symlink("real.heapsnapshot", file("link.heapsnapshot")), 0);
  cr_assert_eq(luainstr_snapshot(L, file("link.heapsnapshot"), 0), LUAINSTR_OK);
  {
    struct stat st;
    cr_assert_eq(lstat(file("link.heapsnapshot"), &st), 0);
    cr_assert(S_ISLNK(st.st_mode));
    hfree(hload(file("real.heapsnapshot")));
    unlink(file("link.heapsnapshot"));
    unlink(file("real.heapsnapshot"));
  }
  cr_assert_eq(files_in_dir(), 0);
  cr_assert_eq(luainstr_snapshot(L, NULL, 0), LUAINSTR_EARG);
  cr_assert_eq(luainstr_snapshot(L, "", 0), LUAINSTR_EARG);
  cr_assert_eq(lua_gettop(L), top);
  /* from Lua: nil and the message */
  luainstr_open(L);
  run(L, "local p = require 'luainstr'\n"
         "local ok, err = p.snapshot('/nonexistent-dir/y.heapsnapshot')\n"
         "assert(ok == nil and err:find('nonexistent%-dir/y', 1, false), err)\n");
  lua_close(L);
}

/* An existing file is replaced whole; a run's files are listed. */
Test(heap, replaced_and_listed) {
  lua_State *L = state();
  li_profile prof;
  heap *h;
  FILE *f = fopen(file("old.heapsnapshot"), "w");
  fputs("old", f);
  fclose(f);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  h = snapshot(L, "old.heapsnapshot");
  hfree(h);
  h = snapshot(L, "second.heapsnapshot");
  hfree(h);
  cr_assert_eq(files_in_dir(), 2);
  cr_assert_eq(li_snapshot(li_prof_get(L), &prof), 0);
  cr_assert_eq(prof.nheap_files, 2);
  cr_assert_str_eq(prof.heap_files[0], file("old.heapsnapshot"));
  cr_assert_str_eq(prof.heap_files[1], file("second.heapsnapshot"));
  li_snapshot_free(&prof);
  lua_close(L);
}


/* ---- memory mode: who allocated each object ----------------------------- */

Test(heap, allocation_sites) {
  lua_State *L = state();
  heap *h;
  const char *src = "local function make() return {made = true} end\n"
                    "KEEP = make()\n";
  const jv *sites;
  size_t keep;
  int found = 0;
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_option(L, "memory", "on"), LUAINSTR_OK);
  cr_assert_eq(luainstr_loadbufferx(L, src, strlen(src), "=test", "t"), LUA_OK);
  cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK, "%s", lua_tostring(L, -1));
  h = snapshot(L, "m.heapsnapshot");
  keep = global(h, "KEEP");
  sites = member(h->lua, "sites");
  cr_assert_not_null(sites);
  for (size_t i = 0; i < sites->n; i++) {
    cr_assert_eq(sites->kid[i].n, 2);
    if ((size_t)sites->kid[i].kid[0].num == keep * 7) {
      cr_assert_str_eq(sites->kid[i].kid[1].s, "local make (test:1)");
      found = 1;
    }
  }
  cr_assert(found, "KEEP's site");
  hfree(h);
  lua_close(L);
}
