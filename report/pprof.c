/*
** pprof.c -- the `pprof` report: the profile in pprof's protocol buffer
** format (report/profile.proto), gzipped, as `go tool pprof`, speedscope,
** Pyroscope and Parca read it (docs/pprof.md).
**
** Sample types, in this order: calls/count, wall/nanoseconds (the self
** time of the call path), and in memory mode alloc_space/bytes and
** alloc_objects/count (what the path allocated itself, the csv's
** alloc_bytes and alloc_count).  One sample per node of the call tree that
** has calls or any value, its stack the node's path, leaf first; one
** Function and one Location per function, the Location's line being the
** function's first line (the figures are per function, not per line), so
** that pprof's flat figure of a function is its self figure and its cum
** figure, counted once per stack, its total.
**
** The message is written in two parts: everything but the samples, packed
** by protobuf-c as one Profile, then each sample packed on its own and
** appended as field 2.  A protobuf message is the concatenation of its
** fields, so the two read as one Profile, and the memory used is that of
** one stack at a time however large the tree; the bytes stream through
** zlib to the file.
*/
#define ZLIB_CONST                  /* next_in points to const bytes */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "report.h"
#include "writers.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Mapping pb_mapping;

#define NTYPES_MAX 4          /* calls, wall, alloc_space, alloc_objects */

/* pprof's values are int64: a figure past that range (none is, in practice)
** is written as the largest one. */
static int64_t i64(uint64_t v) {
  return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* ---- gzip to a FILE ----------------------------------------------------- */

typedef struct gz_out {
  z_stream z;
  FILE *f;
  unsigned char buf[16384];   /* deflate's output, on its way to f */
} gz_out;

static int gz_open(gz_out *g, FILE *f) {
  memset(&g->z, 0, sizeof g->z);
  g->f = f;
  /* 15 + 16: a gzip header and trailer around the deflate stream */
  if (deflateInit2(&g->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    errno = ENOMEM;
    return -1;
  }
  return 0;
}

/* Compress len bytes (flush: Z_NO_FLUSH, or Z_FINISH for the last call)
** and write what deflate gives out.  0, or -1 with errno set. */
static int gz_write(gz_out *g, const void *data, size_t len, int flush) {
  const unsigned char *p = data;
  do {
    uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;
    int fl = (size_t)n == len ? flush : Z_NO_FLUSH;
    g->z.next_in = p;
    g->z.avail_in = n;
    if (n > 0) p += n;          /* (the last call may pass NULL, 0) */
    len -= n;
    do {                            /* zlib's own loop (zlib's zpipe.c) */
      size_t have;
      g->z.next_out = g->buf;
      g->z.avail_out = sizeof g->buf;
      if (deflate(&g->z, fl) == Z_STREAM_ERROR) {
        errno = EIO;
        return -1;
      }
      have = sizeof g->buf - g->z.avail_out;
      if (have > 0 && fwrite(g->buf, 1, have, g->f) != have) return -1;
    } while (g->z.avail_out == 0);
  } while (len > 0);
  return 0;
}

/* ---- the string table --------------------------------------------------- */

/* Every string once, in order of first use; entry 0 is "", as pprof
** requires.  An open-addressing hash (slot: index + 1, 0 empty) finds a
** string's index. */
typedef struct strtab {
  ProtobufCBinaryData *s;     /* the entries, pointing into the profile */
  uint32_t n, cap;
  uint32_t *slot;
  uint32_t nslot;             /* a power of 2, at least 2 * cap */
} strtab;

static uint32_t hash(const char *s, size_t len) {
  uint32_t h = 2166136261u;   /* FNV-1a */
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static int strtab_init(strtab *t, uint32_t cap) {
  t->n = 0;
  t->cap = cap;
  for (t->nslot = 16; t->nslot < 2 * (uint64_t)cap; t->nslot *= 2) {}
  t->s = malloc((size_t)cap * sizeof *t->s);
  t->slot = calloc(t->nslot, sizeof *t->slot);
  return t->s != NULL && t->slot != NULL ? 0 : -1;
}

/* The index of s (NULL: ""), added when new; cap is never exceeded since
** the caller counted every string it will ask for. */
static int64_t intern(strtab *t, const char *s) {
  size_t len;
  uint32_t i;
  if (s == NULL) s = "";
  len = strlen(s);
  for (i = hash(s, len) & (t->nslot - 1); t->slot[i] != 0;
       i = (i + 1) & (t->nslot - 1)) {
    const ProtobufCBinaryData *e = &t->s[t->slot[i] - 1];
    if (e->len == len && memcmp(e->data, s, len) == 0) return t->slot[i] - 1;
  }
  t->s[t->n].data = (uint8_t *)(uintptr_t)s;    /* only read by protobuf-c */
  t->s[t->n].len = len;
  t->slot[i] = ++t->n;
  return t->n - 1;
}

/* ---- everything but the samples ----------------------------------------- */

/* The parts of the head, freed together. */
typedef struct head {
  strtab st;
  pb_type types[NTYPES_MAX], period_type;
  pb_type *type_ptr[NTYPES_MAX];
  pb_mapping map, *map_ptr;
  pb_function *fn, **fn_ptr;
  pb_location *loc, **loc_ptr;
  pb_line *line, **line_ptr;
  char **label;               /* each function's name as pprof shows it */
  uint32_t nlabel;
  int64_t comment[2];         /* "luainstr VERSION" in the table, and the
                                 counted functions' note (count_small) */
  char comment_text[80];      /* (the table points to them) */
  char counted_text[120];
} head;

static void head_free(head *h) {
  free(h->st.s);
  free(h->st.slot);
  free(h->fn);
  free(h->fn_ptr);
  free(h->loc);
  free(h->loc_ptr);
  free(h->line);
  free(h->line_ptr);
  if (h->label != NULL)
    for (uint32_t i = 0; i < h->nlabel; i++) free(h->label[i]);
  free(h->label);
}

/* A function's name as pprof shows it (malloc'd; NULL: no memory). */
static char *label(const li_pfunc *f) {
  const char *name = f->name != NULL ? f->name : "?";
  const char *source = f->source != NULL ? f->source : "?";
  size_t len = strlen(name) + strlen(source) + 16;
  char *s = malloc(len);
  if (s == NULL) return NULL;
  if (f->line != 0)
    snprintf(s, len, "%s (%s:%" PRIu32 ")", name, source, f->line);
  else
    snprintf(s, len, "%s (%s)", name, source);
  return s;
}

static void set_type(pb_type *t, strtab *st, const char *type,
                     const char *unit) {
  perftools__profiles__value_type__init(t);
  t->type = intern(st, type);
  t->unit = intern(st, unit);
}

/* Fill pr (and h, which it points into) from p; its sample types are
** ntypes.  0, or -1 when memory ran out. */
static int make_head(pb_profile *pr, head *h, const li_profile *p,
                     size_t ntypes) {
  static const char *const type[NTYPES_MAX][2] = {
    { "calls", "count" }, { "wall", "nanoseconds" },
    { "alloc_space", "bytes" }, { "alloc_objects", "count" } };
  uint32_t n = p->nfuncs;
  size_t m = (size_t)n + 1;       /* malloc(0) may be NULL */
  memset(h, 0, sizeof *h);
  /* "", 7 type and unit names, "wall" again, the comment, a name, a
  ** label and a source each */
  if (n > (UINT32_MAX - 11) / 3 || strtab_init(&h->st, 11 + 3 * n) != 0)
    return -1;
  if ((h->label = calloc(m, sizeof *h->label)) == NULL) return -1;
  h->fn = malloc(m * sizeof *h->fn);
  h->fn_ptr = malloc(m * sizeof *h->fn_ptr);
  h->loc = malloc(m * sizeof *h->loc);
  h->loc_ptr = malloc(m * sizeof *h->loc_ptr);
  h->line = malloc(m * sizeof *h->line);
  h->line_ptr = malloc(m * sizeof *h->line_ptr);
  if (h->fn == NULL || h->fn_ptr == NULL || h->loc == NULL ||
      h->loc_ptr == NULL || h->line == NULL || h->line_ptr == NULL)
    return -1;
  perftools__profiles__profile__init(pr);
  intern(&h->st, "");
  for (size_t i = 0; i < ntypes; i++) {
    set_type(&h->types[i], &h->st, type[i][0], type[i][1]);
    h->type_ptr[i] = &h->types[i];
  }
  pr->n_sample_type = ntypes;
  pr->sample_type = h->type_ptr;
  set_type(&h->period_type, &h->st, "wall", "nanoseconds");
  pr->period_type = &h->period_type;
  pr->period = 1;
  pr->default_sample_type = intern(&h->st, "wall");
  /* One Mapping, that says its functions, files and lines are known:
  ** pprof then looks for no binary to symbolize them with (and says none
  ** is "available") */
  perftools__profiles__mapping__init(&h->map);
  h->map.id = 1;
  h->map.has_functions = h->map.has_filenames = h->map.has_line_numbers = 1;
  h->map_ptr = &h->map;
  pr->n_mapping = 1;
  pr->mapping = &h->map_ptr;
  /* function i is Function and Location i + 1 (ids are nonzero) */
  for (uint32_t i = 0; i < n; i++) {
    const li_pfunc *f = &p->funcs[i];
    pb_function *fn = &h->fn[i];
    perftools__profiles__function__init(fn);
    fn->id = (uint64_t)i + 1;
    /* pprof's tools add up functions by name: the name they show is
    ** `name (source:line)` (`name (source)` for a main chunk), as the
    ** folded reports write frames, so that two functions of one name (two
    ** main chunks, two "anonymous") stay apart; system_name is the name */
    if ((h->label[i] = label(f)) == NULL) return -1;
    h->nlabel = i + 1;
    fn->name = intern(&h->st, h->label[i]);
    fn->system_name = intern(&h->st, f->name);
    fn->filename = intern(&h->st, f->source);
    fn->start_line = f->line;
    fn->luainstr_last_line = f->lastline;
    fn->luainstr_zone = f->zone != 0;
    h->fn_ptr[i] = fn;
    perftools__profiles__line__init(&h->line[i]);
    h->line[i].function_id = fn->id;
    h->line[i].line = f->line;
    h->line_ptr[i] = &h->line[i];
    perftools__profiles__location__init(&h->loc[i]);
    h->loc[i].id = fn->id;
    h->loc[i].mapping_id = 1;
    h->loc[i].n_line = 1;
    h->loc[i].line = &h->line_ptr[i];
    h->loc_ptr[i] = &h->loc[i];
  }
  pr->n_function = pr->n_location = n;
  pr->function = h->fn_ptr;
  pr->location = h->loc_ptr;
  pr->time_nanos = p->time_ns > p->wall_ns ? i64(p->time_ns - p->wall_ns) : 0;
  pr->duration_nanos = i64(p->wall_ns);
  if (p->version != NULL) {
    snprintf(h->comment_text, sizeof h->comment_text, "luainstr %.60s",
             p->version);
    h->comment[pr->n_comment++] = intern(&h->st, h->comment_text);
  }
  if (p->count_small > 0) {
    snprintf(h->counted_text, sizeof h->counted_text,
             "counted, not timed: functions of at most %" PRIu32 " tokens with "
             "no call or loop (their time is their callers')", p->count_small);
    h->comment[pr->n_comment++] = intern(&h->st, h->counted_text);
  }
  if (pr->n_comment > 0) pr->comment = h->comment;
  pr->n_string_table = h->st.n;
  pr->string_table = h->st.s;
  return 0;
}

/* ---- the samples -------------------------------------------------------- */

/* Does node n carry anything?  (Writing only these keeps the file to the
** paths that ran; a node with no calls may still hold time, an open
** call's.) */
static int has_values(const li_pnode *n, int memory) {
  return n->calls > 0 || n->self_ns > 0 ||
         (memory && (n->mem.alloc_bytes > 0 || n->mem.alloc_count > 0));
}

/* Pack msg, prefixed by the key of Profile's field 2 and its length, into
** *buf (grown as needed) and compress it.  0, or -1 with errno set. */
static int put_sample(gz_out *g, const pb_sample *s, uint8_t **buf,
                      size_t *cap) {
  size_t len = perftools__profiles__sample__get_packed_size(s), k = 0;
  if (len + 11 > *cap) {
    size_t c = (len + 11) * 2;
    uint8_t *b = realloc(*buf, c);
    if (b == NULL) {
      errno = ENOMEM;
      return -1;
    }
    *buf = b;
    *cap = c;
  }
  (*buf)[k++] = 2 << 3 | 2;         /* field 2, length-delimited */
  for (size_t v = len; ; v >>= 7) { /* the length, a varint */
    if (v < 0x80) {
      (*buf)[k++] = (uint8_t)v;
      break;
    }
    (*buf)[k++] = (uint8_t)(v & 0x7f) | 0x80;
  }
  perftools__profiles__sample__pack(s, *buf + k);
  return gz_write(g, *buf, k + len, Z_NO_FLUSH);
}

static int put_samples(gz_out *g, const li_profile *p, size_t ntypes) {
  uint64_t *stack = malloc(((size_t)p->nnodes + 1) * sizeof *stack);
  uint8_t *buf = NULL;
  size_t cap = 0;
  int r = 0;
  if (stack == NULL) {
    errno = ENOMEM;
    return -1;
  }
  for (uint32_t i = 1; i < p->nnodes && r == 0; i++) {
    const li_pnode *n = &p->nodes[i];
    int64_t value[NTYPES_MAX];
    pb_sample s;
    size_t depth = 0;
    if (!has_values(n, ntypes > 2)) continue;
    /* parents come before children (report.h): the walk ends at the root;
    ** the checks only keep a malformed model from looping or reading out of
    ** bounds */
    for (uint32_t j = i; j != 0 && depth < p->nnodes; j = p->nodes[j].parent) {
      if (p->nodes[j].func >= p->nfuncs || p->nodes[j].parent >= j) {
        errno = EINVAL;
        r = -1;
        break;
      }
      stack[depth++] = (uint64_t)p->nodes[j].func + 1;
    }
    if (r != 0) break;
    value[0] = i64(n->calls);
    value[1] = i64(n->self_ns);
    value[2] = i64(n->mem.alloc_bytes);
    value[3] = i64(n->mem.alloc_count);
    perftools__profiles__sample__init(&s);
    s.n_location_id = depth;
    s.location_id = stack;
    s.n_value = ntypes;
    s.value = value;
    r = put_sample(g, &s, &buf, &cap);
  }
  free(buf);
  free(stack);
  return r;
}

/* ---- the report --------------------------------------------------------- */

int li_write_pprof(const li_profile *p, FILE *f) {
  size_t ntypes = p->memory ? 4 : 2;
  pb_profile pr;
  head h;
  uint8_t *buf = NULL;
  size_t len;
  gz_out *g = malloc(sizeof *g);
  int r = -1;
  if (g == NULL || make_head(&pr, &h, p, ntypes) != 0) {
    errno = ENOMEM;
    goto done;
  }
  len = perftools__profiles__profile__get_packed_size(&pr);
  if ((buf = malloc(len + 1)) == NULL) {
    errno = ENOMEM;
    goto done;
  }
  perftools__profiles__profile__pack(&pr, buf);
  if (gz_open(g, f) != 0) goto done;
  r = gz_write(g, buf, len, Z_NO_FLUSH);
  if (r == 0) r = put_samples(g, p, ntypes);
  if (r == 0) r = gz_write(g, NULL, 0, Z_FINISH);
  deflateEnd(&g->z);
done:
  if (g != NULL) head_free(&h);
  free(buf);
  free(g);
  return r != 0 || ferror(f) ? -1 : 0;
}
