/*
** readpprof.c -- the `pprof` report read back into the profile model
** (reader.h): a profile.proto message (report/profile.proto), gzipped or
** bare, as pprof.c writes it and as any pprof tool writes one with the same
** sample types.
**
** What comes back is what the format holds: the functions (name, source,
** first line; last line and zone flag from luainstr's own fields, 0 when a
** file lacks them) and the call tree, built again from the samples' stacks
** (one node per distinct path; samples on the same path add up), with each
** node's calls, self time and, when the file has them, its own allocated
** bytes and allocations.  From these come the inclusive figures of nodes
** and functions, as the runtime computes them: a function's total counts
** its outermost activations only.  What the format has no room for (errors,
** the shortest and longest call, live and freed bytes, frames, spikes, the
** trace, the clock) is 0 or NULL.
**
** Sample types are found by name: calls/count and wall/nanoseconds (at
** least one), alloc_space/bytes and alloc_objects/count (memory mode).  A
** profile of something else (a Go CPU profile's samples/count,
** cpu/nanoseconds) is refused with its types named.  Everything is checked
** before it is used: string and id references, value counts, signs; the
** gzip stream may inflate to 1 GiB at most.
*/
#define ZLIB_CONST                  /* next_in points to const bytes */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "ptree.h"
#include "reader.h"
#include "report.h"

typedef Perftools__Profiles__Profile pb_profile;

#define INFLATED_MAX ((size_t)1 << 30)  /* a gzipped profile's bound */
/* What protobuf-c may allocate decoding one profile: a message can take
** far more memory than its bytes (a 255 KB gzip of empty samples took
** 7.25 GB and 17 s), so its allocations are counted and refused past this. */
#define DECODED_MAX ((size_t)1 << 30)

/* protobuf-c's allocator with a budget: each block carries its size in
** front, in a union of the widest types (C99 has no max_align_t), so
** that the block stays aligned. */
typedef struct budget {
  size_t used;
  int over;                   /* an allocation was refused */
} budget;

typedef union { long double d; void *p; long long l; size_t n; } block_head;

static void *budget_alloc(void *ud, size_t n) {
  budget *b = ud;
  block_head *h;
  if (n > DECODED_MAX - b->used || n > SIZE_MAX - sizeof *h) {
    b->over = 1;
    return NULL;
  }
  if ((h = malloc(sizeof *h + n)) == NULL) return NULL;
  h->n = n;
  b->used += n;
  return h + 1;
}

static void budget_free(void *ud, void *p) {
  budget *b = ud;
  block_head *h;
  if (p == NULL) return;
  h = (block_head *)p - 1;
  b->used -= h->n;
  free(h);
}

enum { V_CALLS, V_WALL, V_BYTES, V_OBJECTS, NVALUES };

/* The state of one read. */
typedef struct reader {
  const char *name;           /* the file, for messages */
  char *err;
  size_t errlen;
  const pb_profile *pr;       /* the message */
  li_profile *p;              /* what is built */
  int col[NVALUES];           /* the sample_type index of each value, -1 */
  uint64_t *fn_ids;           /* (id << 32 | index) of every Function, by id */
  uint64_t *loc_ids;          /* the same for Locations */
  li_ptree tree;              /* the tree being built (its indexes fit
                                 in 31 bits: sum_up's walk tags them) */
} reader;

static int bad(reader *rd, const char *fmt, ...) {
  va_list ap;
  int n;
  if (rd->err == NULL || rd->errlen == 0) return -1;
  n = snprintf(rd->err, rd->errlen, "%s: ", rd->name != NULL ? rd->name : "pprof");
  if (n < 0 || (size_t)n >= rd->errlen) return -1;
  va_start(ap, fmt);
  vsnprintf(rd->err + n, rd->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

static int nomem(reader *rd) {
  return bad(rd, "not enough memory");
}

/* ---- gzip ----------------------------------------------------------------- */

static int is_gzip(const unsigned char *d, size_t n) {
  return n >= 2 && d[0] == 0x1f && d[1] == 0x8b;
}

/* The bytes of a gzip file, every member of it (as gzip reads one): a
** malloc'd buffer in *out.  0, or -1 with a message. */
static int gunzip(reader *rd, const unsigned char *in, size_t left,
                  unsigned char **out, size_t *outlen) {
  z_stream z;
  size_t cap = 1 << 16, len = 0;
  unsigned char *buf = malloc(cap);
  int r;
  memset(&z, 0, sizeof z);
  if (buf == NULL || inflateInit2(&z, 15 + 16) != Z_OK) {
    free(buf);
    return nomem(rd);
  }
  for (;;) {
    size_t room;
    if (z.avail_in == 0 && left > 0) {     /* input in pieces zlib counts */
      uInt n = left > (1u << 30) ? 1u << 30 : (uInt)left;
      z.next_in = in;
      z.avail_in = n;
      in += n;
      left -= n;
    }
    if (len == cap) {
      unsigned char *b;
      if (cap >= INFLATED_MAX) {
        r = bad(rd, "gzip data inflates to more than %zu MiB", INFLATED_MAX >> 20);
        goto done;
      }
      if ((b = realloc(buf, cap * 2)) == NULL) { r = nomem(rd); goto done; }
      buf = b;
      cap *= 2;
    }
    room = cap - len > (1u << 30) ? 1u << 30 : cap - len;
    z.next_out = buf + len;
    z.avail_out = (uInt)room;
    r = inflate(&z, Z_NO_FLUSH);
    len += room - z.avail_out;
    if (r == Z_STREAM_END) {
      if (z.avail_in == 0 && left == 0) { r = 0; break; }
      if (z.avail_in == 0) {                  /* (at a piece's end) */
        uInt n = left > (1u << 30) ? 1u << 30 : (uInt)left;
        z.next_in = in;
        z.avail_in = n;
        in += n;
        left -= n;
      }
      /* another member, or bytes that are not gzip */
      if (!is_gzip(z.next_in, z.avail_in)) {
        r = bad(rd, "data after the gzip stream");
        goto done;
      }
      inflateReset(&z);
      continue;
    }
    if (r == Z_OK) continue;
    if (r == Z_BUF_ERROR && z.avail_in == 0 && left == 0 && z.avail_out > 0)
      r = bad(rd, "truncated gzip data");
    else if (r == Z_BUF_ERROR)
      continue;                               /* output full: grow */
    else if (r == Z_MEM_ERROR)
      r = nomem(rd);
    else
      r = bad(rd, "corrupt gzip data (%s)", z.msg != NULL ? z.msg : "zlib error");
    goto done;
  }
done:
  inflateEnd(&z);
  if (r != 0) {
    free(buf);
    return -1;
  }
  *out = buf;
  *outlen = len;
  return 0;
}

/* ---- strings and ids --------------------------------------------------------- */

/* String i of the table, its length in *len; NULL (with a message) when i
** is out of range. */
static const char *str(reader *rd, int64_t i, size_t *len, const char *what) {
  if (i < 0 || (uint64_t)i >= rd->pr->n_string_table) {
    bad(rd, "%s: string %" PRId64 " is not in the string table (of %zu)",
        what, i, rd->pr->n_string_table);
    return NULL;
  }
  *len = rd->pr->string_table[i].len;
  /* (protobuf-c leaves an empty string's data NULL: a function named "",
     or of source "", is no error) */
  return *len > 0 ? (const char *)rd->pr->string_table[i].data : "";
}

static int str_is(reader *rd, int64_t i, const char *s) {
  size_t len;
  const char *t = str(rd, i, &len, "sample type");
  return t != NULL && len == strlen(s) && memcmp(t, s, len) == 0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* ids[i] = id << 32 | i for n ids, sorted; the ids must be nonzero, fit
** in 32 bits (pprof's own tools number them 1, 2, ...) and be unique. */
static uint64_t *index_ids(reader *rd, size_t n, uint64_t (*id)(const pb_profile *, size_t),
                           const char *what) {
  uint64_t *v = malloc((n + 1) * sizeof *v);
  if (v == NULL) {
    nomem(rd);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t x = id(rd->pr, i);
    if (x == 0 || x > UINT32_MAX) {
      bad(rd, "%s %zu: id %" PRIu64 " (ids are 1 to 4294967295)", what, i, x);
      free(v);
      return NULL;
    }
    v[i] = x << 32 | i;
  }
  qsort(v, n, sizeof *v, cmp_u64);
  for (size_t i = 1; i < n; i++)
    if (v[i] >> 32 == v[i - 1] >> 32) {
      bad(rd, "two %ss with id %" PRIu64, what, v[i] >> 32);
      free(v);
      return NULL;
    }
  return v;
}

/* The index of id in ids (n of them), or -1. */
static int64_t find_id(const uint64_t *ids, size_t n, uint64_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint64_t x = ids[mid] >> 32;
    if (x == id) return (int64_t)(ids[mid] & 0xffffffffu);
    if (x < id) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

static uint64_t function_id(const pb_profile *pr, size_t i) {
  return pr->function[i]->id;
}

static uint64_t location_id(const pb_profile *pr, size_t i) {
  return pr->location[i]->id;
}

/* ---- the header: strings, sample types, functions ----------------------- */

static int read_types(reader *rd) {
  static const char *const want[NVALUES][2] = {
    { "calls", "count" }, { "wall", "nanoseconds" },
    { "alloc_space", "bytes" }, { "alloc_objects", "count" } };
  const pb_profile *pr = rd->pr;
  for (int v = 0; v < NVALUES; v++) rd->col[v] = -1;
  for (size_t i = 0; i < pr->n_sample_type; i++) {
    const Perftools__Profiles__ValueType *t = pr->sample_type[i];
    for (int v = 0; v < NVALUES; v++)
      if (rd->col[v] < 0 && str_is(rd, t->type, want[v][0]) &&
          str_is(rd, t->unit, want[v][1]))
        rd->col[v] = (int)i;
    if (str(rd, t->type, &(size_t){0}, "sample type") == NULL ||
        str(rd, t->unit, &(size_t){0}, "sample type") == NULL)
      return -1;
  }
  if (rd->col[V_CALLS] < 0 && rd->col[V_WALL] < 0) {
    char types[200] = "";
    size_t k = 0;
    for (size_t i = 0; i < pr->n_sample_type && k + 1 < sizeof types; i++) {
      size_t tl = 0, ul = 0;
      const char *t = str(rd, pr->sample_type[i]->type, &tl, "sample type");
      const char *u = str(rd, pr->sample_type[i]->unit, &ul, "sample type");
      int n = snprintf(types + k, sizeof types - k, "%s%.*s/%.*s",
                       i > 0 ? ", " : "", (int)(tl > 40 ? 40 : tl), t,
                       (int)(ul > 40 ? 40 : ul), u);
      if (n < 0) break;
      k += (size_t)n < sizeof types - k ? (size_t)n : sizeof types - k - 1;
    }
    return bad(rd, "not a luainstr profile: no sample type calls/count or "
               "wall/nanoseconds (it has: %s)", k > 0 ? types : "none");
  }
  rd->p->memory = rd->col[V_BYTES] >= 0 || rd->col[V_OBJECTS] >= 0;
  return 0;
}

/* A line number of the file as the model's (0 to 2^32 - 1). */
static int line_of(reader *rd, int64_t v, uint32_t *out, const char *what,
                   uint64_t id) {
  if (v < 0 || v > (int64_t)UINT32_MAX)
    return bad(rd, "function %" PRIu64 ": %s %" PRId64 " out of range", id,
               what, v);
  *out = (uint32_t)v;
  return 0;
}

static int read_functions(reader *rd) {
  const pb_profile *pr = rd->pr;
  li_profile *p = rd->p;
  if (pr->n_function >= UINT32_MAX)
    return bad(rd, "too many functions (%zu)", pr->n_function);
  p->funcs = calloc(pr->n_function + 1, sizeof *p->funcs);
  if (li_profile_own(p, p->funcs) != 0) {
    p->funcs = NULL;
    return nomem(rd);
  }
  p->nfuncs = (uint32_t)pr->n_function;
  for (size_t i = 0; i < pr->n_function; i++) {
    const Perftools__Profiles__Function *f = pr->function[i];
    li_pfunc *o = &p->funcs[i];
    size_t nl = 0, sl = 0;
    /* the name luainstr gave it is system_name (name is `name (source:
    ** line)`, as pprof shows it); another writer's may have only a name */
    const char *name = str(rd, f->system_name != 0 ? f->system_name : f->name,
                           &nl, "function name");
    const char *source = str(rd, f->filename, &sl, "function file");
    if (name == NULL || source == NULL) return -1;
    if ((o->name = li_profile_strdup(p, name, nl)) == NULL ||
        (o->source = li_profile_strdup(p, source, sl)) == NULL)
      return nomem(rd);
    if (line_of(rd, f->start_line, &o->line, "start line", f->id) != 0 ||
        line_of(rd, f->luainstr_last_line, &o->lastline, "last line", f->id) != 0)
      return -1;
    o->zone = f->luainstr_zone != 0;
  }
  return 0;
}

/* Every Location's lines name a Function. */
static int check_locations(reader *rd) {
  const pb_profile *pr = rd->pr;
  for (size_t i = 0; i < pr->n_location; i++) {
    const Perftools__Profiles__Location *l = pr->location[i];
    if (l->n_line == 0)
      return bad(rd, "location %" PRIu64 " names no function (no line)", l->id);
    for (size_t k = 0; k < l->n_line; k++)
      if (find_id(rd->fn_ids, pr->n_function, l->line[k]->function_id) < 0)
        return bad(rd, "location %" PRIu64 ": no function with id %" PRIu64,
                   l->id, l->line[k]->function_id);
  }
  return 0;
}

/* ---- the call tree ---------------------------------------------------------- */

/* The child of parent for func, made when new; UINT32_MAX on an error. */
static uint32_t child(reader *rd, uint32_t parent, uint32_t func) {
  uint32_t node;
  int r = li_ptree_child(&rd->tree, parent, func, &node);
  if (r == 0) return node;
  if (r == -2) bad(rd, "too many call paths");
  else nomem(rd);
  return UINT32_MAX;
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
  return a + b < a ? UINT64_MAX : a + b;
}

static int read_samples(reader *rd) {
  const pb_profile *pr = rd->pr;
  if (li_ptree_init(&rd->tree) != 0) return nomem(rd);
  for (size_t i = 0; i < pr->n_sample; i++) {
    const Perftools__Profiles__Sample *s = pr->sample[i];
    uint64_t v[NVALUES] = { 0, 0, 0, 0 };
    uint32_t node = 0;
    li_pnode *n;
    if (s->n_value != pr->n_sample_type)
      return bad(rd, "sample %zu has %zu values for %zu sample types", i,
                 s->n_value, pr->n_sample_type);
    for (int k = 0; k < NVALUES; k++) {
      if (rd->col[k] < 0) continue;
      if (s->value[rd->col[k]] < 0)
        return bad(rd, "sample %zu has a negative value (%" PRId64 ")", i,
                   s->value[rd->col[k]]);
      v[k] = (uint64_t)s->value[rd->col[k]];
    }
    /* from the root down: the last location first, and in a location
    ** (inlined calls) the last line, the caller, first */
    for (size_t j = s->n_location_id; j-- > 0;) {
      int64_t l = find_id(rd->loc_ids, pr->n_location, s->location_id[j]);
      const Perftools__Profiles__Location *loc;
      if (l < 0)
        return bad(rd, "sample %zu: no location with id %" PRIu64, i,
                   s->location_id[j]);
      loc = pr->location[l];
      for (size_t k = loc->n_line; k-- > 0;) {
        int64_t f = find_id(rd->fn_ids, pr->n_function, loc->line[k]->function_id);
        if ((node = child(rd, node, (uint32_t)f)) == UINT32_MAX) return -1;
      }
    }
    n = &rd->tree.nodes[node];
    n->calls = add_sat(n->calls, v[V_CALLS]);
    n->self_ns = add_sat(n->self_ns, v[V_WALL]);
    n->mem.alloc_bytes = add_sat(n->mem.alloc_bytes, v[V_BYTES]);
    n->mem.alloc_count = add_sat(n->mem.alloc_count, v[V_OBJECTS]);
  }
  return 0;
}

/* Inclusive figures: a node's are its own and its subtree's; a function's
** total those of its outermost activations only (a node with no ancestor
** of its function), as the runtime counts them.  A depth-first walk with
** an explicit stack (entries node << 1, | 1 on the way out) and, per
** function, how many of its nodes are open on the path. */
static int sum_up(reader *rd) {
  li_profile *p = rd->p;
  li_pnode *nd = rd->tree.nodes;
  uint32_t n = rd->tree.n, top = 0;
  uint32_t *first = malloc((size_t)n * sizeof *first);
  uint32_t *next = malloc((size_t)n * sizeof *next);
  uint32_t *open = calloc((size_t)p->nfuncs + 1, sizeof *open);
  uint32_t *stack = malloc(2 * (size_t)n * sizeof *stack);
  int r = 0;
  if (first == NULL || next == NULL || open == NULL || stack == NULL) {
    r = nomem(rd);
    goto done;
  }
  for (uint32_t i = 0; i < n; i++) {
    nd[i].total_ns = nd[i].self_ns;
    nd[i].mem.alloc_bytes_total = nd[i].mem.alloc_bytes;
    nd[i].mem.alloc_count_total = nd[i].mem.alloc_count;
    first[i] = UINT32_MAX;
  }
  for (uint32_t i = n; i-- > 1;) {   /* children come after their parents */
    li_pnode *up = &nd[nd[i].parent];
    up->total_ns = add_sat(up->total_ns, nd[i].total_ns);
    up->mem.alloc_bytes_total = add_sat(up->mem.alloc_bytes_total,
                                        nd[i].mem.alloc_bytes_total);
    up->mem.alloc_count_total = add_sat(up->mem.alloc_count_total,
                                        nd[i].mem.alloc_count_total);
    next[i] = first[nd[i].parent];
    first[nd[i].parent] = i;
  }
  stack[top++] = 0;
  while (top > 0) {
    uint32_t e = stack[--top], i = e >> 1;
    li_pfunc *f = i > 0 ? &p->funcs[nd[i].func] : NULL;
    if (e & 1) {                    /* leaving i */
      open[nd[i].func]--;
      continue;
    }
    if (f != NULL) {
      f->calls = add_sat(f->calls, nd[i].calls);
      f->self_ns = add_sat(f->self_ns, nd[i].self_ns);
      f->mem.alloc_bytes = add_sat(f->mem.alloc_bytes, nd[i].mem.alloc_bytes);
      f->mem.alloc_count = add_sat(f->mem.alloc_count, nd[i].mem.alloc_count);
      if (open[nd[i].func]++ == 0) {
        f->total_ns = add_sat(f->total_ns, nd[i].total_ns);
        f->mem.alloc_bytes_total = add_sat(f->mem.alloc_bytes_total,
                                           nd[i].mem.alloc_bytes_total);
        f->mem.alloc_count_total = add_sat(f->mem.alloc_count_total,
                                           nd[i].mem.alloc_count_total);
      }
      stack[top++] = i << 1 | 1;
    }
    for (uint32_t c = first[i]; c != UINT32_MAX; c = next[c])
      stack[top++] = c << 1;
  }
done:
  free(first);
  free(next);
  free(open);
  free(stack);
  return r;
}

/* ---- the profile -------------------------------------------------------------- */

/* The start of pprof.c's comment on counted functions, then their N. */
#define COUNTED_NOTE "counted, not timed: functions of at most "

/* The rest: times, the version from a "luainstr VERSION" comment, and
** count_small from the counted functions' comment. */
static int read_rest(reader *rd) {
  const pb_profile *pr = rd->pr;
  li_profile *p = rd->p;
  if (pr->duration_nanos < 0 || pr->time_nanos < 0)
    return bad(rd, "negative time_nanos or duration_nanos");
  p->wall_ns = (uint64_t)pr->duration_nanos;
  if (pr->time_nanos > 0)
    p->time_ns = add_sat((uint64_t)pr->time_nanos, p->wall_ns);
  for (size_t i = 0; i < pr->n_comment; i++) {
    size_t len;
    const char *c = str(rd, pr->comment[i], &len, "comment");
    if (c == NULL) return -1;
    if (len > 9 && memcmp(c, "luainstr ", 9) == 0 && p->version == NULL &&
        (p->version = li_profile_strdup(p, c + 9, len - 9)) == NULL)
      return nomem(rd);
    if (len > 40 && len < 200 && memcmp(c, COUNTED_NOTE, strlen(COUNTED_NOTE)) == 0) {
      char num[16];
      size_t k = 0, at = strlen(COUNTED_NOTE);
      while (at + k < len && k + 1 < sizeof num && c[at + k] >= '0' && c[at + k] <= '9')
        num[k] = c[at + k], k++;
      num[k] = '\0';
      if (k > 0) p->count_small = (uint32_t)strtoul(num, NULL, 10);
    }
  }
  return 0;
}

/* The functions counted, not timed, of a profile whose comment says there
** were some (pprof.c): those with calls and no time at all. */
static void mark_counted(li_profile *p) {
  if (p->count_small == 0) return;
  for (uint32_t i = 0; i < p->nfuncs; i++)
    if (p->funcs[i].calls > 0 && p->funcs[i].total_ns == 0 && !p->funcs[i].zone)
      p->funcs[i].counted = 1;
}

static int read_all(reader *rd) {
  const pb_profile *pr = rd->pr;
  if (pr->n_string_table == 0 || pr->string_table[0].len != 0)
    return bad(rd, "not a pprof profile: its string table does not begin "
               "with \"\"");
  if (read_types(rd) != 0 || read_functions(rd) != 0) return -1;
  if ((rd->fn_ids = index_ids(rd, pr->n_function, function_id, "function")) == NULL ||
      (rd->loc_ids = index_ids(rd, pr->n_location, location_id, "location")) == NULL)
    return -1;
  if (check_locations(rd) != 0 || read_samples(rd) != 0 || read_rest(rd) != 0)
    return -1;
  if (sum_up(rd) != 0) return -1;
  mark_counted(rd->p);
  /* roots of one function the profile kept apart (a chunk loaded twice)
  ** are one node here: at most as many as samples were added up */
  li_ptree_wall_rounding(&rd->tree, &rd->p->wall_ns, (uint64_t)pr->n_sample);
  /* the tree, handed to the profile */
  rd->p->nodes = rd->tree.nodes;
  rd->p->nnodes = rd->tree.n;
  rd->tree.nodes = NULL;
  if (li_profile_own(rd->p, rd->p->nodes) != 0) {
    rd->p->nodes = NULL;
    rd->p->nnodes = 0;
    return nomem(rd);
  }
  return 0;
}

li_profile *li_read_pprof(const void *data, size_t size, const char *name,
                          char *err, size_t errlen) {
  reader rd;
  unsigned char *raw = NULL;
  const unsigned char *msg = data;
  size_t len = size;
  pb_profile *pr = NULL;
  budget spent = { 0, 0 };
  ProtobufCAllocator alloc = { budget_alloc, budget_free, &spent };
  int r = -1;
  memset(&rd, 0, sizeof rd);
  rd.name = name;
  rd.err = err;
  rd.errlen = errlen;
  if (err != NULL && errlen > 0) err[0] = '\0';
  if (data == NULL && size > 0) {
    bad(&rd, "no data");
    return NULL;
  }
  if (is_gzip(data, size)) {
    if (gunzip(&rd, data, size, &raw, &len) != 0) return NULL;
    msg = raw;
  }
  if (len == 0) {
    bad(&rd, "empty: not a pprof profile");
    goto done;
  }
  if ((pr = perftools__profiles__profile__unpack(&alloc, len, msg)) == NULL) {
    if (spent.over)
      bad(&rd, "decoding it would take more than %zu MiB of memory (a "
          "profile that large, or one made to be)", DECODED_MAX >> 20);
    else
      bad(&rd, raw != NULL ? "gzip data, but not a pprof profile (not a "
                             "protocol buffer message)"
                           : "not a pprof profile (neither gzip data nor a "
                             "protocol buffer message)");
    goto done;
  }
  rd.pr = pr;
  if ((rd.p = li_profile_new()) == NULL) {
    nomem(&rd);
    goto done;
  }
  r = read_all(&rd);
done:
  if (pr != NULL) perftools__profiles__profile__free_unpacked(pr, &alloc);
  free(raw);
  free(rd.fn_ids);
  free(rd.loc_ids);
  li_ptree_free(&rd.tree);
  if (r != 0) {
    li_profile_free(rd.p);
    return NULL;
  }
  return rd.p;
}
