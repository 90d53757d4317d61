/*
** liveview.c -- the live view's model of one state (docs/live-protocol.md,
** live.h): the records of the Lua thread in, the JSON messages of the
** protocol out; and the parser of a client's commands.
**
** The records come from a ring another thread filled, and the fuzzer
** feeds arbitrary bytes: every record's size is checked against its kind
** before a byte of it is read, fixed parts are copied out (records need
** not be aligned), and one that does not hold together (wrong size, a
** name without its NUL, a function id never described, a tree whose
** parent comes after its child) is counted and ignored as a whole.
**
** What a new subscriber needs is kept: hello, status, every function, the
** cumulative table (rows merged by function id), the last LI_VIEW_FRAMES
** frames and the kept spikes, each spike as the very message it was sent
** as.  Frames are batched until li_live_view_flush; any other message
** flushes them first, so messages leave in the order of their records
** (a spike never arrives before its frame).
**
** Every message is built whole in the output buffer and committed at its
** end: memory running out drops that one message, never leaves half of
** one.  Strings are escaped as li_json_lstring does (report/report.c):
** valid UTF-8 as it is, any other byte as its Latin-1 \u00XX, control
** characters, '<', '>', '&' and U+2028/2029 escaped, so a name holding
** quotes or "</script>" is safe in a page too.  Numbers: integers exact,
** doubles finite (null otherwise) and with a '.' whatever the locale.
**
** No I/O and no global state: the server thread runs it, so does the
** WebAssembly page's own loop (li_live_drain).
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "writers.h"

#define LI_VIEW_FRAMES 600        /* recent frames kept for catch-up */
#define LI_VIEW_SPIKES 1024       /* kept spikes: the newest */
#define LI_VIEW_SPIKE_BYTES (4u << 20)  /* ...and at most this much JSON of
                                     them, so a catch-up stays well under
                                     what a client may fall behind (8 MB) */
#define LI_VIEW_FUNCS_MSG 1024    /* functions per catch-up message */
#define LI_VIEW_FUNCS_MAX (1u << 24)  /* function ids: a FUNCS beyond is
                                     malformed (memory sizes stay small) */
#define NONE 0xFFFFFFFFu          /* the root's func and parent */

typedef struct vfunc {
  char *name;           /* name, NUL, source, NUL (one malloc'd block);
                           NULL: not described */
  uint32_t namelen, srclen;  /* without their NULs */
  uint32_t line, lastline, zone;
} vfunc;

typedef struct vrow {
  uint64_t calls, alloc;
  int64_t self, total, live;
  int present;          /* a TABLE record named it */
} vrow;

typedef struct vspike {
  char *json;           /* its message, as sent (malloc'd) */
  size_t len;
} vspike;

struct li_live_view {
  uint32_t state;       /* the state's id in the page */
  uint64_t bad;         /* records ignored as malformed */
  int has_hello, has_status, has_table;
  li_lrec_hello hello;
  char *name;           /* the state's name (malloc'd; NULL: none) */
  size_t namelen;
  li_lrec_status status;
  vfunc *funcs;         /* by id (malloc'd, capfuncs) */
  vrow *rows;           /* by id, the same size */
  uint32_t nfuncs, capfuncs;
  uint64_t table_t;     /* t_ns of the last TABLE */
  li_lrec_frame frames[LI_VIEW_FRAMES];  /* frame k at frames[k % size] */
  uint64_t nframes;     /* frames fed */
  uint32_t pending;     /* the last of them, not flushed yet */
  vspike spikes[LI_VIEW_SPIKES];  /* spike k at spikes[k % size] */
  uint64_t nspikes;     /* spikes fed */
  uint32_t kept;        /* the last of them still kept */
  size_t spike_bytes;   /* their JSON */
  char **downloads;     /* paths, download n at [n - 1] (malloc'd) */
  uint32_t ndown, capdown;
};


/* ---- the output buffer ------------------------------------------------- */

void li_live_out_clear(li_live_out *o) {
  o->len = 0;
  o->n = 0;
  if (o->buf != NULL) o->buf[0] = '\0';
}

void li_live_out_free(li_live_out *o) {
  free(o->buf);
  free(o->off);
  free(o->droppable);
  memset(o, 0, sizeof *o);
}

/* A message being written: committed by jw_end, or taken back whole when
** memory ran out on the way. */
typedef struct jw {
  li_live_out *o;
  size_t start;         /* o->len when it began */
  int oom;
} jw;

static int out_reserve(li_live_out *o, size_t more) {
  size_t cap;
  char *b;
  if (o->cap - o->len > more) return 1;       /* room for a NUL after */
  if (more > SIZE_MAX / 4 - o->len) return 0;
  cap = o->cap ? o->cap : 1024;
  while (cap - o->len <= more) cap *= 2;
  b = realloc(o->buf, cap);
  if (b == NULL) return 0;
  o->buf = b;
  o->cap = cap;
  return 1;
}

static void jw_put(jw *w, const char *s, size_t n) {
  if (w->oom) return;
  if (!out_reserve(w->o, n)) {
    w->oom = 1;
    return;
  }
  memcpy(w->o->buf + w->o->len, s, n);
  w->o->len += n;
}

static void jw_lit(jw *w, const char *s) {
  jw_put(w, s, strlen(s));
}

static void jw_u64(jw *w, uint64_t v) {
  char b[24];
  size_t i = sizeof b;
  do {
    b[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  jw_put(w, b + i, sizeof b - i);
}

static void jw_i64(jw *w, int64_t v) {
  if (v < 0) {
    jw_put(w, "-", 1);
    jw_u64(w, (uint64_t)0 - (uint64_t)v);   /* INT64_MIN too */
  } else {
    jw_u64(w, (uint64_t)v);
  }
}

/* The shortest of %.15g..%.17g that reads back as v (report/json.c's
** rule); null when JSON cannot hold it.  A locale whose decimal point is
** not '.' (a host may set one) has it replaced. */
static void jw_double(jw *w, double v) {
  char b[40];
  if (!isfinite(v)) {
    jw_lit(w, "null");
    return;
  }
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(b, sizeof b, "%.*g", prec, v);
    if (strtod(b, NULL) == v) break;
  }
  for (char *c = b; *c; c++)
    if (*c != '-' && *c != '+' && *c != 'e' && (*c < '0' || *c > '9'))
      *c = '.';
  jw_lit(w, b);
}

static void jw_bool(jw *w, int b) {
  jw_lit(w, b ? "true" : "false");
}

/* len bytes of s as a JSON string literal (li_json_lstring's escapes). */
static void jw_str(jw *w, const char *s, size_t len) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)s, *end = p + len;
  jw_put(w, "\"", 1);
  while (p < end && !w->oom) {
    const unsigned char *run = p;
    char e[8];
    unsigned c;
    size_t n = 0;
    /* the plain bytes in one piece */
    while (p < end && *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\' &&
           *p != '<' && *p != '>' && *p != '&')
      p++;
    jw_put(w, (const char *)run, (size_t)(p - run));
    if (p == end) break;
    c = *p;
    if (c >= 0x80) n = li_utf8_len(p, (size_t)(end - p));
    if (n > 1) {
      if (n == 3 && c == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
        jw_lit(w, p[2] == 0xa8 ? "\\u2028" : "\\u2029");
      else
        jw_put(w, (const char *)p, n);
      p += n;
      continue;
    }
    p++;
    if (c == '"') jw_lit(w, "\\\"");
    else if (c == '\\') jw_lit(w, "\\\\");
    else if (c == '\n') jw_lit(w, "\\n");
    else if (c == '\r') jw_lit(w, "\\r");
    else if (c == '\t') jw_lit(w, "\\t");
    else if (c == '\b') jw_lit(w, "\\b");
    else if (c == '\f') jw_lit(w, "\\f");
    else {            /* control, DEL, <>&, or not UTF-8 (Latin-1) */
      memcpy(e, "\\u00", 4);
      e[4] = hex[c >> 4];
      e[5] = hex[c & 15];
      jw_put(w, e, 6);
    }
  }
  jw_put(w, "\"", 1);
}

/* `{"type":"T","state":S` */
static void jw_begin(jw *w, li_live_out *o, const li_live_view *v,
                     const char *type) {
  w->o = o;
  w->start = o->len;
  w->oom = 0;
  jw_lit(w, "{\"type\":\"");
  jw_lit(w, type);
  jw_lit(w, "\",\"state\":");
  jw_u64(w, v->state);
}

/* Closes the object and commits the message: 1, or 0 when memory ran out
** (nothing of it is left). */
static int jw_end(jw *w, int droppable) {
  li_live_out *o = w->o;
  jw_put(w, "}", 1);
  if (!w->oom && o->n == o->capn) {
    uint32_t capn = o->capn ? o->capn * 2 : 16;
    size_t *off = capn > o->capn ? realloc(o->off, capn * sizeof *off) : NULL;
    uint8_t *dr;
    if (off != NULL) o->off = off;
    dr = off != NULL ? realloc(o->droppable, capn) : NULL;
    if (dr != NULL) {
      o->droppable = dr;
      o->capn = capn;
    } else {
      w->oom = 1;
    }
  }
  if (w->oom) {
    o->len = w->start;
    if (o->buf != NULL) o->buf[o->len] = '\0';
    return 0;
  }
  o->buf[o->len] = '\0';
  o->off[o->n] = w->start;
  o->droppable[o->n] = (uint8_t)(droppable != 0);
  o->n++;
  return 1;
}


/* ---- the view ------------------------------------------------------------ */

li_live_view *li_live_view_new(uint32_t state_id) {
  li_live_view *v = calloc(1, sizeof *v);
  if (v != NULL) v->state = state_id;
  return v;
}

void li_live_view_free(li_live_view *v) {
  if (v == NULL) return;
  free(v->name);
  for (uint32_t i = 0; i < v->capfuncs; i++) free(v->funcs[i].name);
  free(v->funcs);
  free(v->rows);
  for (uint32_t i = 0; i < LI_VIEW_SPIKES; i++) free(v->spikes[i].json);
  for (uint32_t i = 0; i < v->ndown; i++) free(v->downloads[i]);
  free(v->downloads);
  free(v);
}

uint64_t li_live_view_bad(const li_live_view *v) {
  return v->bad;
}

const char *li_live_view_download(const li_live_view *v, uint32_t n) {
  if (n == 0 || n > v->ndown) return NULL;
  return v->downloads[n - 1];
}

/* Room for function ids below n, in funcs and rows alike. */
static int funcs_reserve(li_live_view *v, uint32_t n) {
  uint32_t cap = v->capfuncs ? v->capfuncs : 64;
  vfunc *f;
  vrow *r;
  if (n <= v->capfuncs) return 1;
  while (cap < n) cap *= 2;
  f = realloc(v->funcs, (size_t)cap * sizeof *f);
  if (f == NULL) return 0;
  v->funcs = f;
  memset(f + v->capfuncs, 0, (size_t)(cap - v->capfuncs) * sizeof *f);
  r = realloc(v->rows, (size_t)cap * sizeof *r);
  if (r == NULL) return 0;    /* funcs bigger than capfuncs says: harmless */
  v->rows = r;
  memset(r + v->capfuncs, 0, (size_t)(cap - v->capfuncs) * sizeof *r);
  v->capfuncs = cap;
  return 1;
}


/* ---- messages ------------------------------------------------------------- */

static void msg_hello(const li_live_view *v, li_live_out *o) {
  const li_lrec_hello *h = &v->hello;
  jw w;
  char lua[32];
  if (h->luajit)
    snprintf(lua, sizeof lua, "LuaJIT");
  else
    snprintf(lua, sizeof lua, "Lua %u.%u", h->lua_version / 100,
             h->lua_version % 100);
  jw_begin(&w, o, v, "hello");
  jw_lit(&w, ",\"lua\":");
  jw_str(&w, lua, strlen(lua));
  jw_lit(&w, ",\"frames\":");
  jw_bool(&w, h->frames_on != 0);
  jw_lit(&w, ",\"memory\":");
  jw_bool(&w, h->memory_on != 0);
  jw_lit(&w, ",\"ns_per_tick\":");
  jw_double(&w, h->ns_per_tick);
  jw_lit(&w, ",\"pid\":");
  jw_u64(&w, h->pid);
  jw_lit(&w, ",\"name\":");
  jw_str(&w, v->name ? v->name : "", v->namelen);
  jw_end(&w, 0);
}

static void msg_status(const li_live_view *v, li_live_out *o) {
  static const char *const coll[] = {"running", "paused", "stopped"};
  const li_lrec_status *s = &v->status;
  jw w;
  jw_begin(&w, o, v, "status");
  jw_lit(&w, ",\"collection\":\"");
  jw_lit(&w, coll[s->collection]);
  jw_lit(&w, "\",\"frames\":");
  jw_bool(&w, s->frames_on != 0);
  jw_lit(&w, ",\"memory\":");
  jw_bool(&w, s->memory_on != 0);
  jw_lit(&w, ",\"spike_factor\":");
  jw_double(&w, s->spike_factor);
  jw_lit(&w, ",\"spike_ms\":");
  jw_double(&w, s->spike_ms);
  jw_lit(&w, ",\"spikes_keep\":");
  jw_u64(&w, s->spikes_keep);
  jw_lit(&w, ",\"lost\":");
  jw_u64(&w, s->lost);
  jw_end(&w, 0);
}

/* Functions [from, to) that are described, as one message (none: none). */
static void msg_functions(const li_live_view *v, li_live_out *o,
                          uint32_t from, uint32_t to) {
  jw w;
  int any = 0;
  jw_begin(&w, o, v, "functions");
  jw_lit(&w, ",\"functions\":[");
  for (uint32_t i = from; i < to; i++) {
    const vfunc *f = &v->funcs[i];
    if (f->name == NULL) continue;
    jw_lit(&w, any ? ",{\"id\":" : "{\"id\":");
    any = 1;
    jw_u64(&w, i);
    jw_lit(&w, ",\"name\":");
    jw_str(&w, f->name, f->namelen);
    jw_lit(&w, ",\"source\":");
    jw_str(&w, f->name + f->namelen + 1, f->srclen);
    jw_lit(&w, ",\"line\":");
    jw_u64(&w, f->line);
    jw_lit(&w, ",\"lastline\":");
    jw_u64(&w, f->lastline);
    jw_lit(&w, ",\"zone\":");
    jw_u64(&w, f->zone == 3 ? 0 : f->zone);
    if (f->zone == 3) jw_lit(&w, ",\"counted\":true");
    jw_put(&w, "}", 1);
  }
  jw_put(&w, "]", 1);
  if (any) {
    jw_end(&w, 0);
  } else {
    o->len = w.start;
    if (o->buf != NULL) o->buf[o->len] = '\0';
  }
}

static void put_frame(jw *w, const li_lrec_frame *f) {
  jw_lit(w, "{\"index\":");
  jw_u64(w, f->index);
  jw_lit(w, ",\"t_ns\":");
  jw_u64(w, f->t_ns);
  jw_lit(w, ",\"duration_ns\":");
  jw_u64(w, f->duration_ns);
  jw_lit(w, ",\"busy_ns\":");
  jw_u64(w, f->busy_ns);
  jw_lit(w, ",\"idle_ns\":");
  jw_u64(w, f->idle_ns);
  jw_lit(w, ",\"calls\":");
  jw_u64(w, f->calls);
  jw_lit(w, ",\"alloc_bytes\":");
  jw_u64(w, f->alloc_bytes);
  jw_lit(w, ",\"spike\":");
  jw_bool(w, f->spike != 0);
  jw_lit(w, ",\"lost\":");
  jw_u64(w, f->lost);
  jw_put(w, "}", 1);
}

/* The frames from the count-th last to the skip-th last (exclusive). */
static void msg_frames(const li_live_view *v, li_live_out *o, uint32_t count,
                       uint32_t skip, int droppable) {
  jw w;
  if (count <= skip) return;
  jw_begin(&w, o, v, "frames");
  jw_lit(&w, ",\"frames\":[");
  for (uint64_t k = v->nframes - count; k < v->nframes - skip; k++) {
    if (k != v->nframes - count) jw_put(&w, ",", 1);
    put_frame(&w, &v->frames[k % LI_VIEW_FRAMES]);
  }
  jw_put(&w, "]", 1);
  jw_end(&w, droppable);
}

static void flush_frames(li_live_view *v, li_live_out *o) {
  msg_frames(v, o, v->pending, 0, 1);
  v->pending = 0;
}

/* The rows present, every one (catch-up). */
static void msg_table_all(const li_live_view *v, li_live_out *o) {
  jw w;
  int any = 0;
  jw_begin(&w, o, v, "table");
  jw_lit(&w, ",\"t_ns\":");
  jw_u64(&w, v->table_t);
  jw_lit(&w, ",\"rows\":[");
  for (uint32_t i = 0; i < v->nfuncs; i++) {
    const vrow *r = &v->rows[i];
    if (!r->present) continue;
    jw_lit(&w, any ? ",[" : "[");
    any = 1;
    jw_u64(&w, i);
    jw_put(&w, ",", 1);
    jw_u64(&w, r->calls);
    jw_put(&w, ",", 1);
    jw_i64(&w, r->self);
    jw_put(&w, ",", 1);
    jw_i64(&w, r->total);
    jw_put(&w, ",", 1);
    jw_u64(&w, r->alloc);
    jw_put(&w, ",", 1);
    jw_i64(&w, r->live);
    jw_put(&w, "]", 1);
  }
  jw_put(&w, "]", 1);
  jw_end(&w, 0);
}


/* ---- records in ------------------------------------------------------------ */

static int rec_hello(li_live_view *v, const unsigned char *p, size_t len,
                     li_live_out *o) {
  size_t n;
  char *name = NULL;
  if (len < sizeof(li_lrec_hello)) return -1;
  n = len - sizeof(li_lrec_hello);
  if (n > 0) {
    name = malloc(n);
    if (name == NULL) return -2;
    memcpy(name, p + sizeof(li_lrec_hello), n);
  }
  memcpy(&v->hello, p, sizeof v->hello);
  free(v->name);
  v->name = name;
  v->namelen = n;
  v->has_hello = 1;
  msg_hello(v, o);
  return 0;
}

static int rec_frame(li_live_view *v, const unsigned char *p, size_t len,
                     li_live_out *o) {
  if (len != sizeof(li_lrec_frame)) return -1;
  memcpy(&v->frames[v->nframes % LI_VIEW_FRAMES], p, sizeof(li_lrec_frame));
  v->nframes++;
  if (++v->pending == LI_VIEW_FRAMES) flush_frames(v, o);
  return 0;
}

/* FUNCS: checked whole before anything is kept.  Ids are dense: `first`
** may describe again what is known, not leave a gap (the producer moves
** on only when a FUNCS got through the ring). */
static int rec_funcs(li_live_view *v, const unsigned char *p, size_t len,
                     li_live_out *o) {
  li_lrec_funcs h;
  li_lrec_func f;
  size_t at, rem;
  uint32_t end;
  if (len < sizeof h) return -1;
  memcpy(&h, p, sizeof h);
  at = sizeof h;
  if (h.first > v->nfuncs || h.count > (len - at) / (sizeof f + 2) ||
      h.count > LI_VIEW_FUNCS_MAX - h.first)
    return -1;
  end = h.first + h.count;
  for (uint32_t i = 0; i < h.count; i++) {
    rem = len - at;
    if (rem < sizeof f) return -1;
    memcpy(&f, p + at, sizeof f);
    at += sizeof f;
    rem -= sizeof f;
    if (f.zone > 3 || f.namelen == 0 || f.srclen == 0 || f.namelen > rem ||
        f.srclen > rem - f.namelen || p[at + f.namelen - 1] != '\0' ||
        p[at + f.namelen + f.srclen - 1] != '\0')
      return -1;
    at += (size_t)f.namelen + f.srclen;
  }
  if (at != len) return -1;
  if (!funcs_reserve(v, end)) return -2;
  at = sizeof h;
  for (uint32_t i = h.first; i < end; i++) {
    vfunc *d = &v->funcs[i];
    char *s;
    memcpy(&f, p + at, sizeof f);
    at += sizeof f;
    s = malloc((size_t)f.namelen + f.srclen);
    if (s == NULL) {              /* those before it are kept and shown */
      msg_functions(v, o, h.first, i);
      return -2;
    }
    memcpy(s, p + at, (size_t)f.namelen + f.srclen);
    at += (size_t)f.namelen + f.srclen;
    free(d->name);
    d->name = s;
    d->namelen = f.namelen - 1;
    d->srclen = f.srclen - 1;
    d->line = f.line;
    d->lastline = f.lastline;
    d->zone = f.zone;
    if (i >= v->nfuncs) v->nfuncs = i + 1;
  }
  msg_functions(v, o, h.first, end);
  return 0;
}

/* The newest spike, kept (an older one goes when too many or too much). */
static void spike_keep(li_live_view *v, const char *json, size_t n) {
  vspike *s;
  char *c;
  if (n > LI_VIEW_SPIKE_BYTES || (c = malloc(n)) == NULL) return;
  memcpy(c, json, n);
  while (v->kept > 0 &&
         (v->kept == LI_VIEW_SPIKES || v->spike_bytes + n > LI_VIEW_SPIKE_BYTES)) {
    vspike *old = &v->spikes[(v->nspikes - v->kept) % LI_VIEW_SPIKES];
    v->spike_bytes -= old->len;
    free(old->json);
    old->json = NULL;
    v->kept--;
  }
  s = &v->spikes[v->nspikes % LI_VIEW_SPIKES];
  s->json = c;
  s->len = n;
  v->spike_bytes += n;
  v->nspikes++;
  v->kept++;
}

static int rec_spike(li_live_view *v, const unsigned char *p, size_t len,
                     li_live_out *o) {
  li_lrec_spike h;
  li_lrec_node nd;
  const unsigned char *q;
  jw w;
  if (len < sizeof h) return -1;
  memcpy(&h, p, sizeof h);
  if (h.n == 0 || h.n > (len - sizeof h) / sizeof nd ||
      len != sizeof h + (size_t)h.n * sizeof nd)
    return -1;
  q = p + sizeof h;
  for (uint32_t i = 0; i < h.n; i++) {
    memcpy(&nd, q + (size_t)i * sizeof nd, sizeof nd);
    if (i == 0 ? nd.func != NONE || nd.parent != NONE
               : nd.func >= v->nfuncs || v->funcs[nd.func].name == NULL ||
                 nd.parent >= i)
      return -1;
  }
  jw_begin(&w, o, v, "spike");
  jw_lit(&w, ",\"index\":");
  jw_u64(&w, h.frame);
  jw_lit(&w, ",\"duration_ns\":");
  jw_u64(&w, h.duration_ns);
  jw_lit(&w, ",\"busy_ns\":");
  jw_u64(&w, h.busy_ns);
  jw_lit(&w, ",\"tree\":[");
  for (uint32_t i = 0; i < h.n; i++) {
    memcpy(&nd, q + (size_t)i * sizeof nd, sizeof nd);
    jw_lit(&w, i ? ",[" : "[");
    if (i == 0) jw_lit(&w, "-1,-1");
    else {
      jw_u64(&w, nd.func);
      jw_put(&w, ",", 1);
      jw_u64(&w, nd.parent);
    }
    jw_put(&w, ",", 1);
    jw_u64(&w, nd.calls);
    jw_put(&w, ",", 1);
    jw_i64(&w, nd.total_ns);
    jw_put(&w, ",", 1);
    jw_i64(&w, nd.self_ns);
    jw_put(&w, ",", 1);
    jw_u64(&w, nd.alloc_bytes);
    jw_put(&w, "]", 1);
  }
  jw_put(&w, "]", 1);
  if (jw_end(&w, 0))
    spike_keep(v, o->buf + o->off[o->n - 1], o->len - o->off[o->n - 1]);
  return 0;
}

static int rec_table(li_live_view *v, const unsigned char *p, size_t len,
                     li_live_out *o) {
  li_lrec_table h;
  li_lrec_row r;
  const unsigned char *q;
  jw w;
  if (len < sizeof h) return -1;
  memcpy(&h, p, sizeof h);
  if (h.n > (len - sizeof h) / sizeof r ||
      len != sizeof h + (size_t)h.n * sizeof r)
    return -1;
  q = p + sizeof h;
  for (uint32_t i = 0; i < h.n; i++) {
    memcpy(&r, q + (size_t)i * sizeof r, sizeof r);
    if (r.func >= v->nfuncs || v->funcs[r.func].name == NULL) return -1;
  }
  v->table_t = h.t_ns;
  v->has_table = 1;
  jw_begin(&w, o, v, "table");
  jw_lit(&w, ",\"t_ns\":");
  jw_u64(&w, h.t_ns);
  jw_lit(&w, ",\"rows\":[");
  for (uint32_t i = 0; i < h.n; i++) {
    vrow *d;
    memcpy(&r, q + (size_t)i * sizeof r, sizeof r);
    d = &v->rows[r.func];
    d->calls = r.calls;
    d->self = r.self_ns;
    d->total = r.total_ns;
    d->alloc = r.alloc_bytes;
    d->live = r.live_bytes;
    d->present = 1;
    jw_lit(&w, i ? ",[" : "[");
    jw_u64(&w, r.func);
    jw_put(&w, ",", 1);
    jw_u64(&w, r.calls);
    jw_put(&w, ",", 1);
    jw_i64(&w, r.self_ns);
    jw_put(&w, ",", 1);
    jw_i64(&w, r.total_ns);
    jw_put(&w, ",", 1);
    jw_u64(&w, r.alloc_bytes);
    jw_put(&w, ",", 1);
    jw_i64(&w, r.live_bytes);
    jw_put(&w, "]", 1);
  }
  jw_put(&w, "]", 1);
  jw_end(&w, 1);
  return 0;
}

static int rec_memory(li_live_view *v, const unsigned char *p, size_t len,
                      li_live_out *o) {
  li_lrec_memory m;
  jw w;
  if (len != sizeof m) return -1;
  memcpy(&m, p, sizeof m);
  jw_begin(&w, o, v, "memory");
  jw_lit(&w, ",\"t_ns\":");
  jw_u64(&w, m.t_ns);
  jw_lit(&w, ",\"lua_bytes\":");
  jw_u64(&w, m.lua_bytes);
  jw_lit(&w, ",\"alloc_total\":");
  jw_u64(&w, m.alloc_total);
  jw_lit(&w, ",\"live_tracked\":");
  jw_i64(&w, m.live_tracked);
  jw_end(&w, 1);
  return 0;
}

static int rec_status(li_live_view *v, const unsigned char *p, size_t len,
                      li_live_out *o) {
  li_lrec_status s;
  if (len != sizeof s) return -1;
  memcpy(&s, p, sizeof s);
  if (s.collection > LI_LIVE_STOPPED) return -1;
  v->status = s;
  v->has_status = 1;
  msg_status(v, o);
  return 0;
}

/* ACK: the text after it is the error (not ok), a file's path (download)
** or a message. */
static int rec_ack(li_live_view *v, const unsigned char *p, size_t len,
                   li_live_out *o) {
  li_lrec_ack a;
  const char *text;
  size_t n, nf;
  jw w;
  char url[48];
  if (len < sizeof a) return -1;
  memcpy(&a, p, sizeof a);
  text = (const char *)p + sizeof a;
  n = len - sizeof a;
  for (nf = 0; nf < sizeof a.format && a.format[nf] != '\0'; nf++) {}
  url[0] = '\0';
  if (a.ok && a.download) {
    char *path, **d;
    if (n == 0 || memchr(text, '\0', n) != NULL || v->ndown == NONE) return -1;
    if (v->ndown == v->capdown) {
      uint32_t cap = v->capdown ? v->capdown * 2 : 8;
      d = cap > v->capdown ? realloc(v->downloads, cap * sizeof *d) : NULL;
      if (d == NULL) return -2;
      v->downloads = d;
      v->capdown = cap;
    }
    if ((path = malloc(n + 1)) == NULL) return -2;
    memcpy(path, text, n);
    path[n] = '\0';
    v->downloads[v->ndown++] = path;
    snprintf(url, sizeof url, "/download/%u/%u", (unsigned)v->state,
             (unsigned)v->ndown);
  }
  jw_begin(&w, o, v, "ack");
  jw_lit(&w, ",\"id\":");
  jw_u64(&w, a.id);
  jw_lit(&w, ",\"ok\":");
  jw_bool(&w, a.ok != 0);
  if (!a.ok) {
    jw_lit(&w, ",\"error\":");
    jw_str(&w, text, n);
  } else if (url[0] != '\0') {
    jw_lit(&w, ",\"download\":");
    jw_str(&w, url, strlen(url));
  } else if (n > 0) {
    jw_lit(&w, ",\"message\":");
    jw_str(&w, text, n);
  }
  if (nf > 0) {
    jw_lit(&w, ",\"format\":");
    jw_str(&w, a.format, nf);
  }
  jw_end(&w, 0);
  return 0;
}

static int rec_end(li_live_view *v, size_t len, li_live_out *o) {
  jw w;
  if (len != 0) return -1;
  jw_begin(&w, o, v, "end");
  jw_end(&w, 0);
  return 0;
}

int li_live_view_feed(li_live_view *v, uint32_t kind, const void *rec,
                      size_t len, li_live_out *out) {
  const unsigned char *p = rec;
  int r;
  if (p == NULL && len != 0) r = -1;
  else if (kind == LI_LREC_FRAME) r = rec_frame(v, p, len, out);
  else {
    if (v->pending > 0) flush_frames(v, out);   /* messages keep their order */
    switch (kind) {       /* ORDER LREC */
      case LI_LREC_HELLO: r = rec_hello(v, p, len, out); break;
      case LI_LREC_FUNCS: r = rec_funcs(v, p, len, out); break;
      case LI_LREC_SPIKE: r = rec_spike(v, p, len, out); break;
      case LI_LREC_TABLE: r = rec_table(v, p, len, out); break;
      case LI_LREC_MEMORY: r = rec_memory(v, p, len, out); break;
      case LI_LREC_STATUS: r = rec_status(v, p, len, out); break;
      case LI_LREC_ACK: r = rec_ack(v, p, len, out); break;
      case LI_LREC_END: r = rec_end(v, len, out); break;
      default: r = -1; break;
    }
  }
  if (r == -1) v->bad++;         /* -2: memory ran out, not its fault */
  return r != 0 ? -1 : 0;
}

void li_live_view_flush(li_live_view *v, li_live_out *out) {
  if (v->pending > 0) flush_frames(v, out);
}

/* The catch-up's table and frames are the subscriber's starting point,
** not a refresh it could do without: they are not droppable. */
void li_live_view_catchup(li_live_view *v, li_live_out *out) {
  uint32_t nf;
  if (v->has_hello) msg_hello(v, out);
  if (v->has_status) msg_status(v, out);
  for (uint32_t i = 0; i < v->nfuncs; i += LI_VIEW_FUNCS_MSG)
    msg_functions(v, out, i, v->nfuncs - i > LI_VIEW_FUNCS_MSG
                                 ? i + LI_VIEW_FUNCS_MSG : v->nfuncs);
  if (v->has_table) msg_table_all(v, out);
  /* the pending frames go to every subscriber at the next flush */
  nf = v->nframes < LI_VIEW_FRAMES ? (uint32_t)v->nframes : LI_VIEW_FRAMES;
  msg_frames(v, out, nf, v->pending, 0);
  for (uint64_t k = v->nspikes - v->kept; k < v->nspikes; k++) {
    const vspike *s = &v->spikes[k % LI_VIEW_SPIKES];
    jw w = {out, out->len, 0};
    jw_put(&w, s->json, s->len - 1);   /* its '}' is put back by jw_end */
    jw_end(&w, 0);
  }
}


/* ======================================================================
** Commands: one flat JSON object (RFC 8259), strictly
** ====================================================================== */

/* The fields a command may carry. */
enum { F_CMD = 1, F_STATE = 2, F_ID = 4, F_FACTOR = 8, F_MS = 16,
       F_COLLECT = 32, F_FORMAT = 64 };

static const char *const field_names[] = {   /* ORDER F_ */
  "cmd", "state", "id", "factor", "ms", "collect", "format"};

typedef struct jp {
  const unsigned char *s, *p, *end;
  char *err;
  size_t errlen;
} jp;

/* A number as it was read. */
typedef struct jnum {
  int integer;          /* digits only: no sign, fraction or exponent */
  int exact;            /* ...and u holds it (no overflow) */
  uint64_t u;
  double d;             /* its value (close, not correctly rounded) */
} jnum;

static int fail(jp *j, const char *what) {
  if (j->errlen > 0)
    snprintf(j->err, j->errlen, "bad JSON at byte %zu: %s",
             (size_t)(j->p - j->s), what);
  return 0;
}

static void ws(jp *j) {
  while (j->p < j->end &&
         (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
    j->p++;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int hex4(jp *j, unsigned *u) {
  *u = 0;
  if (j->end - j->p < 4) return fail(j, "\\u needs four hex digits");
  for (int i = 0; i < 4; i++) {
    int h = hexval(j->p[i]);
    if (h < 0) return fail(j, "\\u needs four hex digits");
    *u = *u * 16 + (unsigned)h;
  }
  j->p += 4;
  return 1;
}

/* string -> '"' chars '"': decoded into buf (cap bytes; *n its length, or
** cap + 1 when it did not fit: no command's word is that long). */
static int str(jp *j, char *buf, size_t cap, size_t *n) {
  *n = 0;
  j->p++;                                       /* the '"' */
  for (;;) {
    unsigned char c[4];
    size_t k = 1;
    unsigned u, lo;
    if (j->p == j->end) return fail(j, "unterminated string");
    c[0] = *j->p;
    if (c[0] == '"') break;
    if (c[0] < 0x20) return fail(j, "control character in a string");
    if (c[0] == '\\') {
      j->p++;
      if (j->p == j->end) return fail(j, "unterminated string");
      switch (*j->p++) {
        case '"': c[0] = '"'; break;
        case '\\': c[0] = '\\'; break;
        case '/': c[0] = '/'; break;
        case 'b': c[0] = '\b'; break;
        case 'f': c[0] = '\f'; break;
        case 'n': c[0] = '\n'; break;
        case 'r': c[0] = '\r'; break;
        case 't': c[0] = '\t'; break;
        case 'u':
          if (!hex4(j, &u)) return 0;
          if (u >= 0xdc00 && u <= 0xdfff) return fail(j, "lone low surrogate");
          if (u >= 0xd800 && u <= 0xdbff) {
            if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
              return fail(j, "high surrogate without its low one");
            j->p += 2;
            if (!hex4(j, &lo)) return 0;
            if (lo < 0xdc00 || lo > 0xdfff)
              return fail(j, "high surrogate without its low one");
            u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
          }
          if (u < 0x80) c[0] = (unsigned char)u;
          else if (u < 0x800) {
            c[0] = (unsigned char)(0xc0 | u >> 6);
            c[1] = (unsigned char)(0x80 | (u & 0x3f));
            k = 2;
          } else if (u < 0x10000) {
            c[0] = (unsigned char)(0xe0 | u >> 12);
            c[1] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
            c[2] = (unsigned char)(0x80 | (u & 0x3f));
            k = 3;
          } else {
            c[0] = (unsigned char)(0xf0 | u >> 18);
            c[1] = (unsigned char)(0x80 | (u >> 12 & 0x3f));
            c[2] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
            c[3] = (unsigned char)(0x80 | (u & 0x3f));
            k = 4;
          }
          break;
        default:
          j->p--;
          return fail(j, "unknown escape in a string");
      }
    } else if (c[0] >= 0x80) {
      k = li_utf8_len(j->p, (size_t)(j->end - j->p));
      if (k == 0) return fail(j, "a string that is not UTF-8");
      memcpy(c, j->p, k);
      j->p += k;
    } else {
      j->p++;
    }
    if (*n <= cap && cap - *n >= k) {
      memcpy(buf + *n, c, k);
      *n += k;
    } else {
      *n = cap + 1;
    }
  }
  j->p++;
  return 1;
}

/* number -> '-'? int frac? exp? (RFC 8259's grammar; no leading zeros). */
static int num(jp *j, jnum *v) {
  uint64_t m = 0;
  int digits = 0;               /* significant digits in m */
  long e = 0, ex = 0;
  int neg = 0, eneg = 0;
  v->integer = 1;
  v->exact = 1;
  v->u = 0;
  if (*j->p == '-') {
    neg = 1;
    v->integer = 0;
    j->p++;
  }
  if (j->p == j->end || *j->p < '0' || *j->p > '9')
    return fail(j, "a digit expected");
  if (*j->p == '0' && j->end - j->p > 1 && j->p[1] >= '0' && j->p[1] <= '9')
    return fail(j, "a number with a leading zero");
  for (; j->p < j->end && *j->p >= '0' && *j->p <= '9'; j->p++) {
    unsigned d = (unsigned)(*j->p - '0');
    if (v->u > (UINT64_MAX - d) / 10) v->exact = 0;
    else v->u = v->u * 10 + d;
    if (digits < 19) {
      m = m * 10 + d;
      if (m) digits++;
    } else {
      e++;
    }
  }
  if (j->p < j->end && *j->p == '.') {
    v->integer = 0;
    j->p++;
    if (j->p == j->end || *j->p < '0' || *j->p > '9')
      return fail(j, "a digit expected after '.'");
    for (; j->p < j->end && *j->p >= '0' && *j->p <= '9'; j->p++)
      if (digits < 19) {
        m = m * 10 + (unsigned)(*j->p - '0');
        if (m) digits++;
        e--;
      }
  }
  if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
    v->integer = 0;
    j->p++;
    if (j->p < j->end && (*j->p == '+' || *j->p == '-')) eneg = *j->p++ == '-';
    if (j->p == j->end || *j->p < '0' || *j->p > '9')
      return fail(j, "a digit expected in the exponent");
    for (; j->p < j->end && *j->p >= '0' && *j->p <= '9'; j->p++)
      if (ex < 100000) ex = ex * 10 + (*j->p - '0');
  }
  e += eneg ? -ex : ex;
  if (e > 400) e = 400;             /* inf or 0 either way */
  if (e < -400) e = -400;
  /* dividing by an exact power of ten rounds a short fraction right */
  if (m == 0) v->d = 0.0;
  else if (e >= 0) v->d = (double)m * pow(10.0, (double)e);
  else if (e >= -300) v->d = (double)m / pow(10.0, (double)-e);
  else v->d = (double)m / pow(10.0, (double)(-e - 100)) / 1e100;
  if (neg) v->d = -v->d;
  if (!v->integer) v->exact = 0;
  return 1;
}

static int word(jp *j, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
    return fail(j, "a value expected");
  j->p += n;
  return 1;
}

/* A field's value. */
typedef struct jval {
  int kind;             /* 's' string, 'n' number, 't' true, 'f' false, 'z' null */
  char s[32];           /* a string's first bytes */
  size_t n;             /* its length (33: longer) */
  jnum num;
} jval;

/* value -> string | number | true | false | null (no object, no array:
** no command has one). */
static int value(jp *j, jval *v) {
  if (j->p == j->end) return fail(j, "a value expected");
  switch (*j->p) {
    case '"': v->kind = 's'; return str(j, v->s, sizeof v->s, &v->n);
    case 't': v->kind = 't'; return word(j, "true");
    case 'f': v->kind = 'f'; return word(j, "false");
    case 'n': v->kind = 'z'; return word(j, "null");
    case '{': case '[':
      return fail(j, "no command takes an object or an array");
    default:
      if (*j->p != '-' && (*j->p < '0' || *j->p > '9'))
        return fail(j, "a value expected");
      v->kind = 'n';
      return num(j, &v->num);
  }
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int cmd_error(jp *j, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(j->err, j->errlen, fmt, ap);
  va_end(ap);
  return 0;
}

static const char *field_name(int f) {
  int i = 0;
  while (f > 1) {
    f >>= 1;
    i++;
  }
  return field_names[i];
}

/* The command of a name (0: none). */
static uint32_t cmd_of(const char *s, size_t n, int *subscribe) {
  static const struct { const char *name; uint32_t cmd; } cmds[] = {
    {"start", LI_LCMD_START}, {"stop", LI_LCMD_STOP},
    {"reset", LI_LCMD_RESET}, {"pause", LI_LCMD_PAUSE},
    {"resume", LI_LCMD_RESUME}, {"spike_rule", LI_LCMD_RULE},
    {"snapshot", LI_LCMD_SNAPSHOT}, {"report", LI_LCMD_REPORT}};
  *subscribe = n == 9 && memcmp(s, "subscribe", 9) == 0;
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    if (strlen(cmds[i].name) == n && memcmp(cmds[i].name, s, n) == 0)
      return cmds[i].cmd;
  return 0;
}

static int format_known(const char *s, size_t n) {
#define LI_FORMAT_NAME(id, name, binary) name,
  static const char *const formats[] = {LI_REPORT_FORMATS(LI_FORMAT_NAME)};
#undef LI_FORMAT_NAME
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    if (strlen(formats[i]) == n && memcmp(formats[i], s, n) == 0) return 1;
  return 0;
}

/* One field, its value read: checked and put in c.  *seen: fields so far. */
static int field(jp *j, int f, const jval *v, li_live_cmd *c, char *cmdname,
                 uint32_t *cmd, int *subscribe) {
  const char *name = field_name(f);
  if (v->kind == 'z' && f != F_CMD) return 1;   /* null: not given */
  switch (f) {
    case F_CMD:
      if (v->kind != 's') return cmd_error(j, "\"%s\" must be a string", name);
      *cmd = v->n < sizeof v->s ? cmd_of(v->s, v->n, subscribe) : 0;
      if (*cmd == 0 && !*subscribe) {
        char shown[sizeof v->s + 4];
        size_t k = v->n < sizeof v->s ? v->n : sizeof v->s;
        for (size_t i = 0; i < k; i++)    /* printable in the message */
          shown[i] = v->s[i] >= 0x20 && v->s[i] < 0x7f ? v->s[i] : '?';
        shown[k] = '\0';
        return cmd_error(j, "unknown cmd \"%s%s\"", shown,
                         v->n < sizeof v->s ? "" : "...");
      }
      memcpy(cmdname, v->s, v->n);
      cmdname[v->n] = '\0';
      return 1;
    case F_STATE:
      if (v->kind != 'n' || !v->num.exact || v->num.u > UINT32_MAX)
        return cmd_error(j, "\"%s\" must be an integer from 0 to %s", name,
                         "4294967295");
      c->state = (uint32_t)v->num.u;
      return 1;
    case F_ID:
      if (v->kind != 'n' || !v->num.exact)
        return cmd_error(j, "\"%s\" must be an integer from 0 to %s", name,
                         "18446744073709551615");
      c->id = v->num.u;
      return 1;
    case F_FACTOR:
      if (v->kind != 'n' || !isfinite(v->num.d) || !(v->num.d > 1))
        return cmd_error(j, "\"%s\" must be a number above 1", name);
      c->spike_factor = v->num.d;
      return 1;
    case F_MS:
      if (v->kind != 'n' || !isfinite(v->num.d) || v->num.d < 0)
        return cmd_error(j, "\"%s\" must be a number of 0 or more", name);
      c->spike_ms = v->num.d == 0 ? 0 : v->num.d;     /* no -0 */
      return 1;
    case F_COLLECT:
      if (v->kind != 't' && v->kind != 'f')
        return cmd_error(j, "\"%s\" must be true or false", name);
      c->collect = v->kind == 't';
      return 1;
    default:  /* F_FORMAT */
      if (v->kind != 's' || v->n >= sizeof c->format ||
          !format_known(v->s, v->n))
        return cmd_error(j, "\"%s\" must be a luainstr_dump format (%s)", name,
                         "text, csv, folded, folded-calls, folded-alloc, "
                         "callgrind, chrome, html, json");
      memcpy(c->format, v->s, v->n);
      c->format[v->n] = '\0';
      return 1;
  }
}

/* object -> '{' ws [ member (',' member)* ] '}' ;  member -> string ':' value */
int li_live_parse_cmd(const char *json, size_t len, li_live_cmd *cmd,
                      char *err, size_t errlen) {
  static const int allowed[] = {   /* by LI_LCMD_*, beside cmd, state, id */
    0, 0, 0, 0, 0, 0, F_FACTOR | F_MS, F_COLLECT, F_FORMAT};
  jp j;
  int seen = 0, given = 0, subscribe = 0;
  uint32_t c = 0;
  char cmdname[32] = "";
  char dummy[1];
  if (err == NULL || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  memset(cmd, 0, sizeof *cmd);
  cmd->spike_ms = -1;
  if (len > LI_LIVE_MSG_MAX) {
    snprintf(err, errlen, "message of %zu bytes: at most %d", len,
             LI_LIVE_MSG_MAX);
    return 0;
  }
  if (json == NULL) {
    json = "";
    len = 0;
  }
  j.s = j.p = (const unsigned char *)json;
  j.end = j.s + len;
  j.err = err;
  j.errlen = errlen;
  ws(&j);
  if (j.p == j.end) return fail(&j, "empty message");
  if (*j.p != '{') return fail(&j, "a command is a JSON object");
  j.p++;
  ws(&j);
  if (j.p < j.end && *j.p == '}') j.p++;
  else for (;;) {
    char key[16];
    size_t kn;
    int f = 0;
    jval v;
    if (j.p == j.end || *j.p != '"') return fail(&j, "a field name expected");
    if (!str(&j, key, sizeof key, &kn)) return 0;
    ws(&j);
    if (j.p == j.end || *j.p != ':') return fail(&j, "':' expected");
    j.p++;
    ws(&j);
    if (!value(&j, &v)) return 0;
    for (int i = 0; i < 7; i++)
      if (kn == strlen(field_names[i]) && memcmp(key, field_names[i], kn) == 0)
        f = 1 << i;
    if (f == 0) {
      for (size_t i = 0; i < kn && i < sizeof key; i++)
        if (key[i] < 0x20 || key[i] >= 0x7f) key[i] = '?';
      if (kn >= sizeof key) memcpy(key + sizeof key - 4, "...", 4);
      else key[kn] = '\0';
      snprintf(err, errlen, "unknown field \"%s\"", key);
      return 0;
    }
    if (seen & f)
      return cmd_error(&j, "field \"%s\" given twice", field_name(f));
    seen |= f;
    if (v.kind != 'z') given |= f;      /* null: as if not there */
    if (!field(&j, f, &v, cmd, cmdname, &c, &subscribe)) return 0;
    ws(&j);
    if (j.p < j.end && *j.p == ',') {
      j.p++;
      ws(&j);
      continue;
    }
    if (j.p < j.end && *j.p == '}') {
      j.p++;
      break;
    }
    return fail(&j, "',' or '}' expected");
  }
  ws(&j);
  if (j.p != j.end) return fail(&j, "text after the object");
  if (!(seen & F_CMD)) {
    snprintf(err, errlen, "no \"cmd\" field");
    return 0;
  }
  {
    int extra = given & ~(F_CMD | F_STATE | F_ID) &
                ~(subscribe ? 0 : allowed[c]);
    if (extra)
      return cmd_error(&j, "field \"%s\" is not one of cmd \"%s\"",
                       field_name(extra & -extra), cmdname);
  }
  if (subscribe) return 2;
  cmd->cmd = c;
  if (c == LI_LCMD_RULE && cmd->spike_factor == 0 && cmd->spike_ms < 0) {
    snprintf(err, errlen, "spike_rule needs \"factor\" or \"ms\"");
    return 0;
  }
  if (c == LI_LCMD_REPORT && cmd->format[0] == '\0') {
    snprintf(err, errlen, "report needs \"format\"");
    return 0;
  }
  return 1;
}
