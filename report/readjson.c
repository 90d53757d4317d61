/*
** readjson.c -- the `json` report read back into the profile model
** (li_read_json, reader.h; the document is docs/json-schema.md's, version
** 1, as json.c writes it).
**
** One pass with the shared scanner (jscan.h).  Each object is read by a
** table of its fields (name, kind, where it goes): members in any order,
** each at most once, unknown ones passed over (fields may be added within
** a version), the ones a profile cannot do without required.  What refers
** to something else (a node's function, a frame's spike tree) is checked
** once the whole document is read, since members may come in any order.
** Arrays grow as their elements are read, so memory stays proportional to
** the document, whatever counts it claims.
**
** Everything the writers rely on is checked (report.h's invariants: node
** 0 the root, parents before children, function indexes in range, spikes
** in frame order and flagged on their frames), so any profile read here
** can be written in every format.  A document json.c wrote reads back into
** a profile json.c writes byte for byte the same: strings decode to the
** bytes they were written from (\u0080..\u00ff to the one byte: json.c's
** escape of a byte that is not UTF-8).
*/
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"
#include "reader.h"

/* Coroutines a trace may name: the chrome writer keeps a track per thread
** number up to the largest, so a number is bounded by memory, not by 2^32. */
#define MAX_THREADS ((uint32_t)1 << 24)

/* What a field is, and how it is read.  ORDER: read_value's switch. */
enum {
  K_U64,        /* an integer, 0 .. 2^64 - 1 */
  K_U32,        /* an integer, 0 .. 2^32 - 1 */
  K_BOOL,       /* true or false, into an int */
  K_FLAG32,     /* true or false, into a uint32_t (1 or 0) */
  K_DOUBLE,     /* a number, or null (NaN: json.c writes null for what is
                   not finite) */
  K_STRING,     /* a string (owned by the profile), or null (NULL) */
  K_NAME,       /* a string, never null */
  K_REF,        /* an index, or null (UINT32_MAX) */
  K_MEM,        /* an object of memory figures (li_pmem) */
  K_KIND,       /* a trace event's kind: one of "BEXYRF" */
  K_TREE,       /* a spike frame's call tree (li_pspike) */
  K_IGNORE,     /* any value: what follows from other fields (busy_ns) */
  K_REQUIRED = 0x80   /* flag: the object must have it */
};

typedef struct field {
  const char *key;
  unsigned char kind;   /* K_..., maybe | K_REQUIRED */
  size_t off;           /* where it goes, from the object's base */
} field;

/* The document as read: the profile, and summary fields that only check
** it (the base of the summary's fields). */
typedef struct doc {
  li_profile p;
  uint64_t events;      /* summary.events: the trace's length */
  uint32_t open_frames; /* summary.open_frames, open_calls's old name */
} doc;

/* The reader's state. */
typedef struct jr {
  li_jscan s;
  li_profile *owner;    /* what owns every block read (li_profile_new) */
  doc d;                /* what goes into it at the end */
  uint32_t seen;        /* top-level members read (bit TOP_...) */
  char ctx[64];         /* "in functions[12]" */
  char node_ctx[96];    /* "in spikes[2].tree[5]" */
} jr;

/* ---- field tables -------------------------------------------------------- */

#define MEM(base, x) (base) + offsetof(li_pmem, x)
#define MEM_FIELDS(base) \
  {"alloc_bytes", K_U64, MEM(base, alloc_bytes)}, \
  {"alloc_count", K_U64, MEM(base, alloc_count)}, \
  {"alloc_bytes_total", K_U64, MEM(base, alloc_bytes_total)}, \
  {"alloc_count_total", K_U64, MEM(base, alloc_count_total)}, \
  {"free_bytes", K_U64, MEM(base, free_bytes)}, \
  {"live_bytes", K_U64, MEM(base, live_bytes)}, \
  {"peak_live_bytes", K_U64, MEM(base, peak_live_bytes)}, \
  {"max_alloc_bytes", K_U64, MEM(base, max_alloc_bytes)}

static const field mem_fields[] = { MEM_FIELDS(0) };

#define SUM(x) offsetof(doc, p.x)
static const field summary_fields[] = {
  {"wall_ns", K_U64, SUM(wall_ns)},
  {"time_ns", K_U64, SUM(time_ns)},
  {"probes", K_U64, SUM(probes)},
  {"overhead_ns", K_U64, SUM(overhead_ns)},
  {"preempted_ns", K_U64, SUM(preempted_ns)},
  {"probe_pair_ns", K_DOUBLE, SUM(probe_pair_ns)},
  {"probe_inside_ns", K_DOUBLE, SUM(probe_inside_ns)},
  {"clock", K_STRING, SUM(clock)},
  {"clock_resolution_ns", K_DOUBLE, SUM(clock_resolution_ns)},
  {"probe", K_STRING, SUM(probe)},
  {"count_small", K_U32, SUM(count_small)},
  {"count_probe_ns", K_DOUBLE, SUM(count_probe_ns)},
  {"open_calls", K_U32, SUM(open_calls)},
  {"open_frames", K_U32, offsetof(doc, open_frames)},
  {"tracing", K_BOOL, SUM(tracing)},
  {"events", K_U64, offsetof(doc, events)},
  {"events_dropped", K_U64, SUM(events_dropped)},
  {"trace_capacity", K_U64, SUM(trace_capacity)},
  {"trace_recent", K_BOOL, SUM(trace_recent)},
  {"framing", K_BOOL, SUM(framing)},
  {"frames_marked", K_U64, SUM(frames_marked)},
  {"frame_capacity", K_U64, SUM(frame_capacity)},
  {"spike_factor", K_DOUBLE, SUM(spike_factor)},
  {"spike_min_ns", K_U64, SUM(spike_min_ns)},
  {"spike_keep", K_U32, SUM(spike_keep)},
  {"spikes_seen", K_U64, SUM(spikes_seen)},
  {"memory", K_BOOL, SUM(memory)},
  {"mem_blocks", K_U64, SUM(mem_blocks)},
  {"mem_map_bytes", K_U64, SUM(mem_map_bytes)},
  {"mem_untracked_frees", K_U64, SUM(mem_untracked_frees)},
  {"mem_outside", K_MEM, SUM(mem_outside)},
};
#undef SUM

/* A function as read: the model's, and its id (its index). */
typedef struct fnrec {
  li_pfunc f;
  uint64_t id;
} fnrec;

#define FN(x) offsetof(fnrec, f.x)
static const field function_fields[] = {
  {"id", K_U64 | K_REQUIRED, offsetof(fnrec, id)},
  {"name", K_NAME | K_REQUIRED, FN(name)},
  {"source", K_NAME | K_REQUIRED, FN(source)},
  {"zone", K_BOOL, FN(zone)},
  {"counted", K_BOOL, FN(counted)},
  {"line", K_U32, FN(line)},
  {"lastline", K_U32, FN(lastline)},
  {"calls", K_U64, FN(calls)},
  {"errors", K_U64, FN(errors)},
  {"total_ns", K_U64, FN(total_ns)},
  {"self_ns", K_U64, FN(self_ns)},
  {"min_ns", K_U64, FN(min_ns)},
  {"max_ns", K_U64, FN(max_ns)},
  {"total_err_ns", K_U64, FN(total_err_ns)},
  {"self_err_ns", K_U64, FN(self_err_ns)},
  {"min_err_ns", K_U64, FN(min_err_ns)},
  {"max_err_ns", K_U64, FN(max_err_ns)},
  MEM_FIELDS(FN(mem)),
};
#undef FN

/* A node as read, and its id. */
typedef struct noderec {
  li_pnode n;
  uint64_t id;
} noderec;

#define ND(x) offsetof(noderec, n.x)
static const field node_fields[] = {
  {"id", K_U64 | K_REQUIRED, offsetof(noderec, id)},
  {"parent", K_REF | K_REQUIRED, ND(parent)},
  {"function", K_REF | K_REQUIRED, ND(func)},
  {"calls", K_U64, ND(calls)},
  {"errors", K_U64, ND(errors)},
  {"total_ns", K_U64, ND(total_ns)},
  {"self_ns", K_U64, ND(self_ns)},
  {"total_err_ns", K_U64, ND(total_err_ns)},
  {"self_err_ns", K_U64, ND(self_err_ns)},
  MEM_FIELDS(ND(mem)),
};
#undef ND

static const field frame_fields[] = {
  {"index", K_U64 | K_REQUIRED, offsetof(li_pframe, index)},
  {"start_ns", K_U64, offsetof(li_pframe, start_ns)},
  {"duration_ns", K_U64, offsetof(li_pframe, duration_ns)},
  {"busy_ns", K_IGNORE, 0},          /* duration_ns - idle_ns */
  {"idle_ns", K_U64, offsetof(li_pframe, idle_ns)},
  {"calls", K_U64, offsetof(li_pframe, calls)},
  {"alloc_bytes", K_U64, offsetof(li_pframe, alloc_bytes)},
  {"spike", K_FLAG32, offsetof(li_pframe, spike)},
};

static const field spike_fields[] = {
  {"frame", K_U64 | K_REQUIRED, offsetof(li_pspike, frame)},
  {"duration_ns", K_U64, offsetof(li_pspike, duration_ns)},
  {"tree", K_TREE | K_REQUIRED, 0},
};

static const field event_fields[] = {
  {"ts_ns", K_U64 | K_REQUIRED, offsetof(li_pevent, ts_ns)},
  {"kind", K_KIND | K_REQUIRED, offsetof(li_pevent, kind)},
  {"thread", K_U32, offsetof(li_pevent, thread)},
  {"function", K_REF | K_REQUIRED, offsetof(li_pevent, func)},
};

#define NFIELDS(t) (sizeof t / sizeof *t)

/* ---- values and objects -------------------------------------------------- */

static int read_object(jr *r, const field *t, size_t nt, void *base);
static int read_nodes(jr *r, li_pnode **out, uint32_t *n, const char *what);

/* A string owned by the profile (NULL: an error). */
static char *owned_string(jr *r, const char *key) {
  const unsigned char *at;
  size_t len;
  char *s;
  li_js_ws(&r->s);
  at = r->s.p;
  s = li_js_dup_string(&r->s, &len);
  if (s == NULL) return NULL;
  if (strlen(s) != len) {
    free(s);
    li_js_fail_at(&r->s, at, "%s holds a NUL byte %s", key, r->s.ctx);
    return NULL;
  }
  if (li_profile_own(r->owner, s) < 0) {
    li_js_oom(&r->s);
    return NULL;
  }
  return s;
}

/* An integer that fits in 32 bits (below 2^32 - 1 when it is an index:
** UINT32_MAX is "none"). */
static int u32(jr *r, uint32_t *dst, const char *key, uint32_t max) {
  const unsigned char *at;
  uint64_t v;
  li_js_ws(&r->s);
  at = r->s.p;
  if (li_js_uinteger(&r->s, &v, key) < 0) return -1;
  if (v > max)
    return li_js_fail_at(&r->s, at, "%s %" PRIu64 " is too large (%" PRIu32
                         " at most) %s", key, v, max, r->s.ctx);
  *dst = (uint32_t)v;
  return 0;
}

static int read_value(jr *r, const field *fd, void *base) {
  void *dst = (char *)base + fd->off;
  const char *key = fd->key;
  switch (fd->kind & ~K_REQUIRED) {
  case K_U64:
    return li_js_uinteger(&r->s, dst, key);
  case K_U32:
    return u32(r, dst, key, UINT32_MAX);
  case K_BOOL:
    return li_js_boolean(&r->s, dst, key);
  case K_FLAG32: {
    int b;
    if (li_js_boolean(&r->s, &b, key) < 0) return -1;
    *(uint32_t *)dst = (uint32_t)b;
    return 0;
  }
  case K_DOUBLE:
    if (li_js_null(&r->s)) {
      *(double *)dst = NAN;
      return 0;
    }
    return li_js_double(&r->s, dst, key);
  case K_STRING:
    if (li_js_null(&r->s)) {
      *(const char **)dst = NULL;
      return 0;
    }
    /* fall through */
  case K_NAME:
    return (*(const char **)dst = owned_string(r, key)) == NULL ? -1 : 0;
  case K_REF:
    if (li_js_null(&r->s)) {
      *(uint32_t *)dst = UINT32_MAX;
      return 0;
    }
    return u32(r, dst, key, UINT32_MAX - 1);
  case K_MEM:
    return read_object(r, mem_fields, NFIELDS(mem_fields), dst);
  case K_KIND: {
    char k[4];
    const unsigned char *at;
    li_js_ws(&r->s);
    at = r->s.p;
    if (li_js_short_string(&r->s, k, sizeof k) < 0) return -1;
    if (k[0] == '\0' || k[1] != '\0' || strchr("BEXYRF", k[0]) == NULL)
      return li_js_fail_at(&r->s, at, "kind is not one of \"B\", \"E\", "
                           "\"X\", \"Y\", \"R\", \"F\" %s", r->s.ctx);
    *(char *)dst = k[0];
    return 0;
  }
  case K_TREE: {
    li_pspike *sp = base;
    char what[sizeof r->ctx + 8];
    snprintf(what, sizeof what, "%s.tree", r->ctx + 3);   /* (less "in ") */
    return read_nodes(r, &sp->nodes, &sp->nnodes, what);
  }
  default:
    return li_js_skip(&r->s);
  }
}

/* The object at the cursor, its fields read by the table t into base. */
static int read_object(jr *r, const field *t, size_t nt, void *base) {
  uint64_t seen = 0;
  const char *ctx = r->s.ctx;
  char key[40];
  if (li_js_expect(&r->s, '{') < 0) return -1;
  if (!li_js_accept(&r->s, '}')) {
    do {
      const unsigned char *at;
      size_t k;
      li_js_ws(&r->s);
      at = r->s.p;
      if (li_js_short_string(&r->s, key, sizeof key) < 0 ||
          li_js_expect(&r->s, ':') < 0)
        return -1;
      for (k = 0; k < nt && strcmp(t[k].key, key) != 0; k++) {}
      if (k == nt) {
        if (li_js_skip(&r->s) < 0) return -1;
        continue;
      }
      if (seen >> k & 1)
        return li_js_fail_at(&r->s, at, "\"%s\" given twice %s", key, ctx);
      seen |= (uint64_t)1 << k;
      if (read_value(r, &t[k], base) < 0) return -1;
      r->s.ctx = ctx;   /* (a nested object's reader changed it) */
    } while (li_js_more(&r->s, '}') > 0);
    if (r->s.failed) return -1;
  }
  for (size_t k = 0; k < nt; k++)
    if ((t[k].kind & K_REQUIRED) && !(seen >> k & 1))
      return li_js_fail_at(&r->s, r->s.p - 1, "no \"%s\" %s", t[k].key, ctx);
  return 0;
}

/* Room for element n of an array of *cap elements of size each (most:
** limit): 0, or -1 with the error (*v is then freed). */
static int room(jr *r, void **v, uint64_t *cap, uint64_t n, size_t size,
                uint64_t limit, const char *what) {
  void *nv;
  uint64_t ncap;
  if (n < *cap) return 0;
  if (n >= limit) {
    free(*v);
    *v = NULL;
    return li_js_fail_at(&r->s, r->s.p, "more than %" PRIu64 " %s", limit,
                         what);
  }
  ncap = *cap ? *cap * 2 : 16;
  if (ncap > limit) ncap = limit;
  nv = ncap > SIZE_MAX / size ? NULL : realloc(*v, (size_t)ncap * size);
  if (nv == NULL) {
    free(*v);
    *v = NULL;
    return li_js_oom(&r->s);
  }
  *v = nv;
  *cap = ncap;
  return 0;
}

/* Hand an array over to the profile: 0, or -1 (it is freed). */
static int own(jr *r, void *v) {
  return li_profile_own(r->owner, v) < 0 ? li_js_oom(&r->s) : 0;
}

/* ---- arrays -------------------------------------------------------------- */

/* A call tree (the run's, or a spike frame's, named what): node 0 the root
** (parent and function null), every other node's parent before it. */
static int read_nodes(jr *r, li_pnode **out, uint32_t *n, const char *what) {
  li_pnode *v = NULL;
  uint64_t cap = 0, k = 0;
  char *ctx = r->node_ctx;
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (!li_js_accept(&r->s, ']')) {
    do {
      noderec rec;
      if (room(r, (void **)&v, &cap, k, sizeof *v, UINT32_MAX, "nodes") < 0)
        return -1;
      memset(&rec, 0, sizeof rec);
      snprintf(ctx, sizeof r->node_ctx, "in %s[%" PRIu64 "]", what, k);
      r->s.ctx = ctx;
      if (read_object(r, node_fields, NFIELDS(node_fields), &rec) < 0)
        goto fail;
      if (rec.id != k) {
        li_js_fail_at(&r->s, r->s.p - 1, "id %" PRIu64 " is not its index %"
                      PRIu64 " %s", rec.id, k, ctx);
        goto fail;
      }
      if (k == 0 && (rec.n.parent != UINT32_MAX || rec.n.func != UINT32_MAX)) {
        li_js_fail_at(&r->s, r->s.p - 1, "the root (node 0) has a %s %s",
                      rec.n.parent != UINT32_MAX ? "parent" : "function", ctx);
        goto fail;
      }
      if (k > 0 && (rec.n.parent >= k || rec.n.func == UINT32_MAX)) {
        li_js_fail_at(&r->s, r->s.p - 1, "%s %s",
                      rec.n.func == UINT32_MAX ? "no function"
                      : "its parent does not come before it", ctx);
        goto fail;
      }
      if (k == 0) rec.n.parent = 0;   /* as the runtime's snapshot has it */
      v[k++] = rec.n;
    } while (li_js_more(&r->s, ']') > 0);
    if (r->s.failed) goto fail;
  }
  if (k == 0)
    return li_js_fail_at(&r->s, r->s.p - 1, "%s has no root (node 0)", what);
  if (own(r, v) < 0) return -1;
  *out = v;
  *n = (uint32_t)k;
  return 0;
fail:
  free(v);
  return -1;
}

static int read_functions(jr *r) {
  li_pfunc *v = NULL;
  uint64_t cap = 0, k = 0;
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (!li_js_accept(&r->s, ']')) {
    do {
      fnrec rec;
      if (room(r, (void **)&v, &cap, k, sizeof *v, UINT32_MAX - 1,
               "functions") < 0)
        return -1;
      memset(&rec, 0, sizeof rec);
      snprintf(r->ctx, sizeof r->ctx, "in functions[%" PRIu64 "]", k);
      r->s.ctx = r->ctx;
      if (read_object(r, function_fields, NFIELDS(function_fields), &rec) < 0)
        goto fail;
      if (rec.id != k) {
        li_js_fail_at(&r->s, r->s.p - 1, "id %" PRIu64 " is not its index %"
                      PRIu64 " %s", rec.id, k, r->ctx);
        goto fail;
      }
      v[k++] = rec.f;
    } while (li_js_more(&r->s, ']') > 0);
    if (r->s.failed) goto fail;
  }
  if (own(r, v) < 0) return -1;
  r->d.p.funcs = v;
  r->d.p.nfuncs = (uint32_t)k;
  return 0;
fail:
  free(v);
  return -1;
}

static int read_frames(jr *r) {
  li_pframe *v = NULL;
  uint64_t cap = 0, k = 0;
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (!li_js_accept(&r->s, ']')) {
    do {
      if (room(r, (void **)&v, &cap, k, sizeof *v, UINT64_MAX, "frames") < 0)
        return -1;
      memset(&v[k], 0, sizeof v[k]);
      snprintf(r->ctx, sizeof r->ctx, "in frames[%" PRIu64 "]", k);
      r->s.ctx = r->ctx;
      if (read_object(r, frame_fields, NFIELDS(frame_fields), &v[k]) < 0)
        goto fail;
      if (k > 0 && v[k].index <= v[k - 1].index) {
        li_js_fail_at(&r->s, r->s.p - 1, "index %" PRIu64 " does not follow "
                      "the frame before (%" PRIu64 ") %s", v[k].index,
                      v[k - 1].index, r->ctx);
        goto fail;
      }
      k++;
    } while (li_js_more(&r->s, ']') > 0);
    if (r->s.failed) goto fail;
  }
  if (own(r, v) < 0) return -1;
  r->d.p.frames = k ? v : NULL;
  r->d.p.nframes = k;
  return 0;
fail:
  free(v);
  return -1;
}

static int read_spikes(jr *r) {
  li_pspike *v = NULL;
  uint64_t cap = 0, k = 0;
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (!li_js_accept(&r->s, ']')) {
    do {
      if (room(r, (void **)&v, &cap, k, sizeof *v, UINT32_MAX, "spikes") < 0)
        return -1;
      memset(&v[k], 0, sizeof v[k]);
      snprintf(r->ctx, sizeof r->ctx, "in spikes[%" PRIu64 "]", k);
      r->s.ctx = r->ctx;
      if (read_object(r, spike_fields, NFIELDS(spike_fields), &v[k]) < 0)
        goto fail;
      if (k > 0 && v[k].frame <= v[k - 1].frame) {
        li_js_fail_at(&r->s, r->s.p - 1, "frame %" PRIu64 " does not follow "
                      "the spike before (frame %" PRIu64 ") %s", v[k].frame,
                      v[k - 1].frame, r->ctx);
        goto fail;
      }
      k++;
    } while (li_js_more(&r->s, ']') > 0);
    if (r->s.failed) goto fail;
  }
  if (own(r, v) < 0) return -1;
  r->d.p.spikes = k ? v : NULL;
  r->d.p.nspikes = (uint32_t)k;
  return 0;
fail:
  free(v);   /* (the trees read are the profile's) */
  return -1;
}

static int read_trace(jr *r) {
  li_pevent *v = NULL;
  uint64_t cap = 0, k = 0;
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (!li_js_accept(&r->s, ']')) {
    do {
      li_pevent *e;
      int has_func;
      if (room(r, (void **)&v, &cap, k, sizeof *v, UINT64_MAX, "events") < 0)
        return -1;
      e = &v[k];
      memset(e, 0, sizeof *e);
      snprintf(r->ctx, sizeof r->ctx, "in trace[%" PRIu64 "]", k);
      r->s.ctx = r->ctx;
      if (read_object(r, event_fields, NFIELDS(event_fields), e) < 0)
        goto fail;
      has_func = e->kind == 'B' || e->kind == 'E' || e->kind == 'X';
      if (has_func != (e->func != UINT32_MAX)) {
        li_js_fail_at(&r->s, r->s.p - 1, "kind %c %s a function %s", e->kind,
                      has_func ? "needs" : "has no", r->ctx);
        goto fail;
      }
      if (e->thread >= MAX_THREADS) {
        li_js_fail_at(&r->s, r->s.p - 1, "thread %" PRIu32 " is too large "
                      "(below 2^24) %s", e->thread, r->ctx);
        goto fail;
      }
      if (e->kind == 'Y' || e->kind == 'R') e->func = 0;   /* as the runtime */
      k++;
    } while (li_js_more(&r->s, ']') > 0);
    if (r->s.failed) goto fail;
  }
  if (own(r, v) < 0) return -1;
  r->d.p.events = k ? v : NULL;
  r->d.p.nevents = k;
  return 0;
fail:
  free(v);
  return -1;
}

/* One string per line: p->warnings ("line\n" each), or NULL when none. */
static int read_warnings(jr *r) {
  char *buf = NULL;
  size_t used = 0, cap = 0;
  r->s.ctx = "in warnings";
  if (li_js_expect(&r->s, '[') < 0) return -1;
  if (!li_js_accept(&r->s, ']')) {
    do {
      size_t len;
      char *line;
      li_js_ws(&r->s);
      line = owned_string(r, "a warning");
      if (line == NULL) goto fail;
      len = strlen(line);
      if (used + len + 2 > cap) {
        size_t ncap = cap ? cap : 256;
        char *nb;
        while (ncap < used + len + 2) ncap *= 2;
        nb = realloc(buf, ncap);
        if (nb == NULL) {
          li_js_oom(&r->s);
          goto fail;
        }
        buf = nb;
        cap = ncap;
      }
      memcpy(buf + used, line, len);
      buf[used + len] = '\n';
      used += len + 1;
      buf[used] = '\0';
    } while (li_js_more(&r->s, ']') > 0);
    if (r->s.failed) goto fail;
  }
  if (own(r, buf) < 0) return -1;
  r->d.p.warnings = buf;
  return 0;
fail:
  free(buf);
  return -1;
}

/* ---- the document -------------------------------------------------------- */

/* Top-level members.  ORDER: tops. */
enum { TOP_FORMAT, TOP_VERSION, TOP_LUAINSTR, TOP_SUMMARY, TOP_FUNCTIONS,
       TOP_TREE, TOP_FRAMES, TOP_SPIKES, TOP_WARNINGS, TOP_TRACE, TOP_N };
static const char *const tops[TOP_N] = {"format", "version", "luainstr",
  "summary", "functions", "tree", "frames", "spikes", "warnings", "trace"};

static int read_member(jr *r, int which, const unsigned char *at) {
  switch (which) {
  case TOP_FORMAT: {
    char f[24];
    if (li_js_short_string(&r->s, f, sizeof f) < 0) return -1;
    if (strcmp(f, "luainstr-profile") != 0)
      return li_js_fail_at(&r->s, at, "not a luainstr-profile document "
                           "(\"format\" is not \"luainstr-profile\")");
    return 0;
  }
  case TOP_VERSION: {
    uint64_t v;
    if (li_js_uinteger(&r->s, &v, "version") < 0) return -1;
    if (v != 1)
      return li_js_fail_at(&r->s, at, "version %" PRIu64 " of the json "
                           "report: this luainstr reads version 1", v);
    return 0;
  }
  case TOP_LUAINSTR: {
    const char *v;
    if (li_js_null(&r->s)) return 0;
    v = owned_string(r, "luainstr");
    r->d.p.version = v;
    return v != NULL ? 0 : -1;
  }
  case TOP_SUMMARY:
    r->s.ctx = "in summary";
    return read_object(r, summary_fields, NFIELDS(summary_fields), &r->d);
  case TOP_FUNCTIONS: return read_functions(r);
  case TOP_TREE:
    return read_nodes(r, &r->d.p.nodes, &r->d.p.nnodes, "tree");
  case TOP_FRAMES: return read_frames(r);
  case TOP_SPIKES: return read_spikes(r);
  case TOP_WARNINGS: return read_warnings(r);
  default: return read_trace(r);
  }
}

/* The tree's functions are functions (checked once both are read). */
static int check_tree(jr *r, const li_pnode *v, uint32_t n, const char *what) {
  for (uint32_t i = 1; i < n; i++)
    if (v[i].func >= r->d.p.nfuncs)
      return li_js_fail_at(&r->s, NULL, "%s[%" PRIu32 "]: function %" PRIu32
                           " is not one of the %" PRIu32 " functions", what,
                           i, v[i].func, r->d.p.nfuncs);
  return 0;
}

/* What refers to something else. */
static int check_refs(jr *r) {
  li_profile *p = &r->d.p;
  uint32_t s = 0;
  char what[48];
  if (check_tree(r, p->nodes, p->nnodes, "tree") < 0) return -1;
  for (uint32_t i = 0; i < p->nspikes; i++) {
    snprintf(what, sizeof what, "spikes[%" PRIu32 "].tree", i);
    if (check_tree(r, p->spikes[i].nodes, p->spikes[i].nnodes, what) < 0)
      return -1;
  }
  /* a spike frame's tree is its spike (both in frame order) */
  for (uint64_t i = 0; i < p->nframes; i++) {
    li_pframe *fr = (li_pframe *)&p->frames[i];
    if (!fr->spike) continue;
    while (s < p->nspikes && p->spikes[s].frame < fr->index) s++;
    if (s == p->nspikes || p->spikes[s].frame != fr->index)
      return li_js_fail_at(&r->s, NULL, "frames[%" PRIu64 "]: frame %" PRIu64
                           " is a spike, but spikes has no tree for it", i,
                           fr->index);
    fr->spike = s + 1;
  }
  for (uint64_t i = 0; i < p->nevents; i++)
    if ((p->events[i].kind == 'B' || p->events[i].kind == 'E' ||
         p->events[i].kind == 'X') && p->events[i].func >= p->nfuncs)
      return li_js_fail_at(&r->s, NULL, "trace[%" PRIu64 "]: function %"
                           PRIu32 " is not one of the %" PRIu32 " functions",
                           i, p->events[i].func, p->nfuncs);
  if (r->d.events != p->nevents)
    return li_js_fail_at(&r->s, NULL, "summary.events is %" PRIu64 ", but "
                         "trace holds %" PRIu64 " events", r->d.events,
                         p->nevents);
  return 0;
}

static int read_document(jr *r) {
  char key[16], b[16];
  r->s.ctx = "at the start";
  li_js_ws(&r->s);
  if (r->s.p >= r->s.end)
    return li_js_fail_at(&r->s, NULL, "empty, not a json report");
  if (*r->s.p != '{')
    return li_js_fail_at(&r->s, r->s.p, "not a json report (expected '{', "
                         "found %s)", li_js_seen(&r->s, b, sizeof b));
  r->s.p++;
  if (!li_js_accept(&r->s, '}')) {
    do {
      const unsigned char *at;
      int k;
      r->s.ctx = "in the top-level object";
      li_js_ws(&r->s);
      at = r->s.p;
      if (li_js_short_string(&r->s, key, sizeof key) < 0 ||
          li_js_expect(&r->s, ':') < 0)
        return -1;
      for (k = 0; k < TOP_N && strcmp(tops[k], key) != 0; k++) {}
      if (k == TOP_N) {
        if (li_js_skip(&r->s) < 0) return -1;
        continue;
      }
      if (r->seen >> k & 1)
        return li_js_fail_at(&r->s, at, "\"%s\" given twice", key);
      r->seen |= 1u << k;
      li_js_ws(&r->s);
      if (read_member(r, k, r->s.p) < 0) return -1;
      r->s.ctx = "in the top-level object";
    } while (li_js_more(&r->s, '}') > 0);
    if (r->s.failed) return -1;
  }
  li_js_ws(&r->s);
  if (r->s.p < r->s.end)
    return li_js_fail_at(&r->s, r->s.p, "%s after the document's end",
                         li_js_seen(&r->s, b, sizeof b));
  if (!(r->seen >> TOP_FORMAT & 1))
    return li_js_fail_at(&r->s, NULL, "no \"format\": not a luainstr-profile "
                         "document");
  for (int k = TOP_VERSION; k <= TOP_TREE; k++)
    if (k != TOP_LUAINSTR && !(r->seen >> k & 1))
      return li_js_fail_at(&r->s, NULL, "no \"%s\"", tops[k]);
  return check_refs(r);
}

li_profile *li_read_json(const void *data, size_t size, const char *name,
                         char *err, size_t errlen) {
  jr *r = calloc(1, sizeof *r);
  li_profile *p = li_profile_new();
  if (r == NULL || p == NULL) {
    snprintf(err, errlen, "%s: out of memory", name);
    free(r);
    li_profile_free(p);
    return NULL;
  }
  li_js_init(&r->s, name, data, size, err, errlen);
  r->s.latin1 = 1;
  r->owner = p;
  if (read_document(r) < 0) {
    free(r);
    li_profile_free(p);
    return NULL;
  }
  /* open_frames alone: a document from before open_calls */
  if (r->d.p.open_calls == 0) r->d.p.open_calls = r->d.open_frames;
  *p = r->d.p;   /* (what it owns stays listed beside it) */
  free(r);
  return p;
}
