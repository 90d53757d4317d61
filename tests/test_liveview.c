/*
** test_liveview.c -- the live view's model of a state (runtime/liveview.c):
** records in, the JSON messages of docs/live-protocol.md out, and the
** parser of the clients' commands.
**
** Records are laid out as the Lua thread lays them out (runtime/live.h:
** fixed part, then the variable part).  Every step is logged (the record's
** bytes, what feed returned, every message) and tests/live/check_view.py
** reads the log: it decodes the records again with Python's struct, runs
** its own model of the protocol, and reads each message with Python's json
** module, comparing field by field.  What is simple to see is also
** checked here (counts, bounds, downloads, droppable flags).
*/
#define _POSIX_C_SOURCE 200809L   /* mkstemp */

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"
#include "writers.h"

/* ---- records, as the producer lays them out ------------------------------- */

typedef struct rb {     /* a record being built */
  unsigned char *b;
  size_t n, cap;
} rb;

static void rb_put(rb *r, const void *p, size_t n) {
  if (r->n + n > r->cap) {
    r->cap = (r->n + n) * 2 + 64;
    r->b = realloc(r->b, r->cap);
    cr_assert_not_null(r->b);
  }
  if (n) memcpy(r->b + r->n, p, n);
  r->n += n;
}

static void rb_reset(rb *r) {
  r->n = 0;
}

static void rb_hello(rb *r, uint64_t pid, uint32_t ver, uint32_t jit, double npt,
                     const char *name, size_t namelen) {
  li_lrec_hello h = {pid, ver, jit, npt, 1, 1};
  rb_reset(r);
  rb_put(r, &h, sizeof h);
  rb_put(r, name, namelen);
}

typedef struct tfunc {
  const char *name;
  size_t namelen;       /* without the NUL (0: strlen) */
  const char *source;
  uint32_t line, lastline, zone;
} tfunc;

static void rb_funcs(rb *r, uint32_t first, const tfunc *f, uint32_t count) {
  li_lrec_funcs h = {first, count};
  rb_reset(r);
  rb_put(r, &h, sizeof h);
  for (uint32_t i = 0; i < count; i++) {
    size_t nl = f[i].namelen ? f[i].namelen : strlen(f[i].name);
    li_lrec_func d = {f[i].line, f[i].lastline, f[i].zone, (uint32_t)nl + 1,
                      (uint32_t)strlen(f[i].source) + 1, 0};
    rb_put(r, &d, sizeof d);
    rb_put(r, f[i].name, nl);
    rb_put(r, "", 1);
    rb_put(r, f[i].source, strlen(f[i].source) + 1);
  }
}

static li_lrec_frame frame_of(uint64_t index, int spike) {
  li_lrec_frame f = {index, index * 16666667u, 16000000u + index % 7 * 1000u,
                     12000000u + index % 5, 4000000u - index % 5, 100 + index,
                     index * 64, (uint32_t)spike, (uint32_t)(index % 3)};
  return f;
}

/* A spike of frame `frame`: the root, then n - 1 nodes over functions
** below nfuncs, each under an earlier one. */
static void rb_spike(rb *r, uint64_t frame, uint32_t n, uint32_t nfuncs) {
  li_lrec_spike h = {frame, 40000000u + frame, 39000000u + frame, n, 0};
  rb_reset(r);
  rb_put(r, &h, sizeof h);
  for (uint32_t i = 0; i < n; i++) {
    li_lrec_node d = {UINT32_MAX, UINT32_MAX, 1, (int64_t)(1000 * (n - i)),
                      (int64_t)(100 * i), i * 8u};
    if (i > 0) {
      d.func = (i * 7u) % nfuncs;
      d.parent = (i - 1) / 2;
      d.calls = i;
    }
    rb_put(r, &d, sizeof d);
  }
}

static void rb_table(rb *r, uint64_t t, const li_lrec_row *rows, uint32_t n,
                     uint32_t nfuncs) {
  li_lrec_table h = {t, n, nfuncs};
  rb_reset(r);
  rb_put(r, &h, sizeof h);
  rb_put(r, rows, n * sizeof *rows);
}

static void rb_ack(rb *r, uint64_t id, uint32_t ok, uint32_t download,
                   const char *format, const char *text) {
  li_lrec_ack a = {id, ok, download, {0}};
  rb_reset(r);
  if (format) strncpy(a.format, format, sizeof a.format);
  rb_put(r, &a, sizeof a);
  rb_put(r, text, strlen(text));
}

/* ---- a view under test, logged for check_view.py ---------------------------- */

typedef struct tv {
  li_live_view *v;
  li_live_out out;
  FILE *log;
  char path[64];
  uint32_t ndown;       /* downloads made (for the log's check) */
} tv;

static void tv_open(tv *t, uint32_t state) {
  int fd;
  memset(t, 0, sizeof *t);
  strcpy(t->path, "/tmp/li-liveview-XXXXXX");
  fd = mkstemp(t->path);
  cr_assert(fd >= 0);
  t->log = fdopen(fd, "wb");
  cr_assert_not_null(t->log);
  t->v = li_live_view_new(state);
  cr_assert_not_null(t->v);
  fprintf(t->log, "sizes hello=%zu frame=%zu funcs=%zu func=%zu spike=%zu "
          "node=%zu table=%zu row=%zu memory=%zu status=%zu ack=%zu\n",
          sizeof(li_lrec_hello), sizeof(li_lrec_frame), sizeof(li_lrec_funcs),
          sizeof(li_lrec_func), sizeof(li_lrec_spike), sizeof(li_lrec_node),
          sizeof(li_lrec_table), sizeof(li_lrec_row), sizeof(li_lrec_memory),
          sizeof(li_lrec_status), sizeof(li_lrec_ack));
  fprintf(t->log, "view %u\n", state);
}

static size_t msg_len(const li_live_out *o, uint32_t i) {
  return (i + 1 < o->n ? o->off[i + 1] : o->len) - o->off[i];
}

static void log_out(tv *t) {
  fprintf(t->log, "out %u\n", t->out.n);
  for (uint32_t i = 0; i < t->out.n; i++) {
    size_t n = msg_len(&t->out, i);
    fprintf(t->log, "m %d %zu\n", t->out.droppable[i], n);
    fwrite(t->out.buf + t->out.off[i], 1, n, t->log);
    fputc('\n', t->log);
  }
}

static int tv_feed(tv *t, uint32_t kind, const void *rec, size_t len) {
  int rc;
  li_live_out_clear(&t->out);
  rc = li_live_view_feed(t->v, kind, rec, len, &t->out);
  if (rec == NULL && len > 0) {
    fprintf(t->log, "feednull %u %d %zu\n", kind, rc, len);
  } else {
    fprintf(t->log, "feed %u %d %zu\n", kind, rc, len);
    if (len) fwrite(rec, 1, len, t->log);
    fputc('\n', t->log);
  }
  log_out(t);
  return rc;
}

static int tv_rb(tv *t, uint32_t kind, const rb *r) {
  return tv_feed(t, kind, r->b, r->n);
}

static void tv_flush(tv *t) {
  li_live_out_clear(&t->out);
  li_live_view_flush(t->v, &t->out);
  fputs("flush\n", t->log);
  log_out(t);
}

static void tv_catchup(tv *t) {
  li_live_out_clear(&t->out);
  li_live_view_catchup(t->v, &t->out);
  fputs("catchup\n", t->log);
  log_out(t);
}

/* Message i of the last step (NUL-terminated copy). */
static char *tv_msg(const tv *t, uint32_t i) {
  size_t n = msg_len(&t->out, i);
  char *s = malloc(n + 1);
  memcpy(s, t->out.buf + t->out.off[i], n);
  s[n] = '\0';
  return s;
}

static int tv_count(const tv *t, const char *type) {
  char key[64];
  int k = 0;
  snprintf(key, sizeof key, "{\"type\":\"%s\"", type);
  for (uint32_t i = 0; i < t->out.n; i++)
    k += strncmp(t->out.buf + t->out.off[i], key, strlen(key)) == 0;
  return k;
}

/* The log to check_view.py, and the view freed. */
static void tv_check(tv *t) {
  char cmd[256];
  for (uint32_t n = 0; n <= t->ndown + 1; n++) {
    const char *p = li_live_view_download(t->v, n);
    fprintf(t->log, "download %u %d\n", n, p ? (int)strlen(p) : -1);
    if (p) fprintf(t->log, "%s\n", p);
  }
  fprintf(t->log, "bad %llu\n", (unsigned long long)li_live_view_bad(t->v));
  cr_assert_eq(fclose(t->log), 0);
  li_live_view_free(t->v);
  li_live_out_free(&t->out);
  snprintf(cmd, sizeof cmd, "python3 %s/live/check_view.py %s", LI_TEST_DIR,
           t->path);
  cr_assert_eq(system(cmd), 0, "check_view.py disagrees (log %s)", t->path);
  remove(t->path);
}

/* Names no page may take as they are. */
static const tfunc nasty[] = {
  {"update", 0, "@game/main.lua", 10, 40, 0},
  {"say \"hi\"\\", 0, "@x.lua", 1, 2, 0},
  {"</script><script>alert(1)</script>", 0, "=[C]", 0, 0, 0},
  {"ctl\x01\x1f\x7f\n\t\r\b\f end", 0, "@ctl\x02.lua", 3, 4, 0},
  {"bad utf8 \xff\xfe \xc3 \xe2\x82 \xed\xa0\x80 \xf4\x90\x80\x80", 0,
   "@\xc0\xaf.lua", 5, 6, 0},
  {"ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xae \xe2\x80\xa8 \xe2\x80\xa9", 0,
   "@\xe6\x97\xa5.lua", 7, 8, 0},
  {"zone physics", 0, "@game/phys.lua", 12, 12, 1},
  {"idle", 0, "=idle", 0, 0, 2},
  {"nul\0inside", 10, "@n.lua", 9, 9, 0},
  {"", 0, "", 0, 0, 0},
};
#define NNASTY (uint32_t)(sizeof nasty / sizeof nasty[0])


/* ---- the view ---------------------------------------------------------------- */

Test(liveview, stream_and_catchup) {
  tv t;
  rb r = {0};
  li_lrec_status st = {LI_LIVE_RUNNING, 1, 1, 8, 2.5, 4.0, 0};
  li_lrec_memory mem = {123456789, 5u << 20, 1ull << 40, -17};
  li_lrec_row rows[3] = {
    {0, 0, 10, 5000, 9000, 640, 64},
    {2, 0, UINT64_MAX, INT64_MAX, INT64_MIN, UINT64_MAX, INT64_MIN},
    {6, 0, 3, -1, 0, 0, -5}};
  char *m;

  tv_open(&t, 7);
  rb_hello(&r, 4242, 504, 0, 1.0, "game \"<main>\" \xff", 16);
  cr_assert_eq(tv_rb(&t, LI_LREC_HELLO, &r), 0);
  cr_assert_eq(t.out.n, 1);
  cr_assert_eq(t.out.droppable[0], 0);
  m = tv_msg(&t, 0);
  cr_assert(strstr(m, "\"lua\":\"Lua 5.4\"") != NULL, "%s", m);
  cr_assert(strchr(m, '<') == NULL && strchr(m, '>') == NULL, "%s", m);
  free(m);
  cr_assert_eq(tv_feed(&t, LI_LREC_STATUS, &st, sizeof st), 0);
  rb_funcs(&r, 0, nasty, NNASTY);
  cr_assert_eq(tv_rb(&t, LI_LREC_FUNCS, &r), 0);
  cr_assert_eq(tv_count(&t, "functions"), 1);
  m = tv_msg(&t, 0);
  cr_assert(strstr(m, "<") == NULL && strstr(m, "\\u003c/script\\u003e") != NULL,
            "%s", m);
  cr_assert(strstr(m, "\\u2028") != NULL && strstr(m, "\\u00ff") != NULL, "%s", m);
  free(m);

  for (uint64_t i = 1; i <= 10; i++) {
    li_lrec_frame f = frame_of(i, i == 9);
    cr_assert_eq(tv_feed(&t, LI_LREC_FRAME, &f, sizeof f), 0);
    cr_assert_eq(t.out.n, 0, "frames wait for the flush");
  }
  tv_flush(&t);
  cr_assert_eq(t.out.n, 1);
  cr_assert_eq(t.out.droppable[0], 1);
  tv_flush(&t);
  cr_assert_eq(t.out.n, 0, "nothing new: no message");

  rb_table(&r, 250000000, rows, 3, NNASTY);
  cr_assert_eq(tv_rb(&t, LI_LREC_TABLE, &r), 0);
  cr_assert_eq(t.out.droppable[0], 1);
  rows[0].calls = 20;                       /* a row again: merged */
  rows[0].self_ns = 7000;
  rb_table(&r, 500000000, rows, 1, NNASTY);
  cr_assert_eq(tv_rb(&t, LI_LREC_TABLE, &r), 0);
  cr_assert_eq(tv_feed(&t, LI_LREC_MEMORY, &mem, sizeof mem), 0);
  cr_assert_eq(t.out.droppable[0], 1);

  {                       /* a frame, then its spike: in that order */
    li_lrec_frame f = frame_of(11, 1);
    cr_assert_eq(tv_feed(&t, LI_LREC_FRAME, &f, sizeof f), 0);
    rb_spike(&r, 11, 9, NNASTY);
    cr_assert_eq(tv_rb(&t, LI_LREC_SPIKE, &r), 0);
    cr_assert_eq(t.out.n, 2);
    cr_assert_eq(tv_count(&t, "frames"), 1);
    cr_assert_eq(strncmp(t.out.buf + t.out.off[1], "{\"type\":\"spike\"", 15), 0);
    cr_assert_eq(t.out.droppable[1], 0);
  }

  rb_ack(&r, 1, 1, 1, "html", "/tmp/luainstr-live/report-1.html");
  cr_assert_eq(tv_rb(&t, LI_LREC_ACK, &r), 0);
  m = tv_msg(&t, 0);
  cr_assert(strstr(m, "\"download\":\"/download/7/1\"") != NULL, "%s", m);
  free(m);
  rb_ack(&r, 2, 1, 1, "heapsnapshot", "/tmp/luainstr-live/snap \"2\".heapsnapshot");
  cr_assert_eq(tv_rb(&t, LI_LREC_ACK, &r), 0);
  rb_ack(&r, 3, 0, 0, "", "cannot write \"/nope\": Permission denied");
  cr_assert_eq(tv_rb(&t, LI_LREC_ACK, &r), 0);
  rb_ack(&r, UINT64_MAX, 1, 0, NULL, "collection paused");
  cr_assert_eq(tv_rb(&t, LI_LREC_ACK, &r), 0);
  t.ndown = 2;
  cr_assert_str_eq(li_live_view_download(t.v, 1),
                   "/tmp/luainstr-live/report-1.html");
  cr_assert_str_eq(li_live_view_download(t.v, 2),
                   "/tmp/luainstr-live/snap \"2\".heapsnapshot");
  cr_assert_null(li_live_view_download(t.v, 0));
  cr_assert_null(li_live_view_download(t.v, 3));

  /* more functions; one described again (a newer name) */
  {
    tfunc more[2] = {{"draw", 0, "@game/draw.lua", 1, 30, 0},
                     {"late", 0, "@late.lua", 2, 3, 0}};
    rb_funcs(&r, NNASTY, more, 2);
    cr_assert_eq(tv_rb(&t, LI_LREC_FUNCS, &r), 0);
    rb_funcs(&r, 1, more + 1, 1);
    cr_assert_eq(tv_rb(&t, LI_LREC_FUNCS, &r), 0);
  }
  st.collection = LI_LIVE_PAUSED;
  st.lost = 99;
  cr_assert_eq(tv_feed(&t, LI_LREC_STATUS, &st, sizeof st), 0);
  for (uint64_t i = 12; i <= 14; i++) {
    li_lrec_frame f = frame_of(i, 0);
    cr_assert_eq(tv_feed(&t, LI_LREC_FRAME, &f, sizeof f), 0);
  }

  tv_catchup(&t);
  /* hello, status, functions, table, frames 1..11 (12..14 wait for the
     flush), the spike */
  cr_assert_eq(t.out.n, 6);
  cr_assert_eq(strncmp(t.out.buf, "{\"type\":\"hello\"", 15), 0);
  for (uint32_t i = 0; i < t.out.n; i++)
    cr_assert_eq(t.out.droppable[i], 0, "the catch-up is the starting point");
  tv_flush(&t);
  cr_assert_eq(t.out.n, 1);
  cr_assert_eq(tv_feed(&t, LI_LREC_END, NULL, 0), 0);
  cr_assert_eq(tv_count(&t, "end"), 1);
  cr_assert_eq(li_live_view_bad(t.v), 0);
  free(r.b);
  tv_check(&t);
}

Test(liveview, frames_batched_and_bounded) {
  tv t;
  uint64_t i = 1;
  tv_open(&t, 1);
  tv_catchup(&t);
  cr_assert_eq(t.out.n, 0, "nothing known: nothing to catch up");
  /* flushes every few frames, with catch-ups between */
  for (; i <= 300; i++) {
    li_lrec_frame f = frame_of(i, i % 50 == 0);
    tv_feed(&t, LI_LREC_FRAME, &f, sizeof f);
    if (i % 7 == 0) tv_flush(&t);
    if (i % 61 == 0) tv_catchup(&t);
  }
  /* 1400 frames without a flush: sent in batches of 600 all the same */
  for (; i <= 1700; i++) {
    li_lrec_frame f = frame_of(i, 0);
    tv_feed(&t, LI_LREC_FRAME, &f, sizeof f);
    if (i == 1000) tv_catchup(&t);
  }
  tv_catchup(&t);
  cr_assert_eq(t.out.n, 1);
  tv_flush(&t);
  tv_catchup(&t);
  {                     /* every frame of the last 600, in order */
    char *m = tv_msg(&t, 0), *p = m;
    uint64_t k = 1701 - 600;
    while ((p = strstr(p, "{\"index\":")) != NULL) {
      p += 9;
      cr_assert_eq(strtoull(p, &p, 10), k++);
    }
    cr_assert_eq(k, 1701);
    free(m);
  }
  tv_check(&t);
}

Test(liveview, spikes_kept_newest) {
  tv t;
  rb r = {0};
  tfunc f[3] = {{"a", 0, "@a", 1, 2, 0}, {"b", 0, "@b", 3, 4, 0},
                {"c", 0, "@c", 5, 6, 0}};
  int spikes;
  tv_open(&t, 2);
  rb_funcs(&r, 0, f, 3);
  tv_rb(&t, LI_LREC_FUNCS, &r);
  for (uint64_t i = 1; i <= 1100; i++) {
    rb_spike(&r, i, 1 + i % 4, 3);
    cr_assert_eq(tv_rb(&t, LI_LREC_SPIKE, &r), 0);
  }
  tv_catchup(&t);
  spikes = tv_count(&t, "spike");
  cr_assert_eq(spikes, 1024, "%d spikes kept", spikes);
  {
    char *m = tv_msg(&t, t.out.n - 1024);
    cr_assert(strstr(m, "\"index\":77,") != NULL, "oldest kept: %.60s", m);
    free(m);
  }
  /* big trees: the kept ones stay under LI_VIEW_SPIKE_BYTES (4 MiB) */
  for (uint64_t i = 2000; i < 2040; i++) {
    rb_spike(&r, i, 5000, 3);
    cr_assert_eq(tv_rb(&t, LI_LREC_SPIKE, &r), 0);
  }
  tv_catchup(&t);
  spikes = tv_count(&t, "spike");
  cr_assert(spikes > 1 && spikes < 40, "%d big spikes kept", spikes);
  cr_assert(t.out.len < (5u << 20), "catch-up of %zu bytes", t.out.len);
  free(r.b);
  tv_check(&t);
}

Test(liveview, malformed_records_ignored) {
  tv t;
  rb r = {0};
  unsigned char junk[256];
  li_lrec_frame f = frame_of(1, 0);
  li_lrec_status st = {LI_LIVE_STOPPED + 1, 1, 0, 4, 2, 0, 0};
  li_lrec_memory mem = {1, 2, 3, 4};
  tfunc two[2] = {{"a", 0, "@a", 1, 2, 0}, {"b", 0, "@b", 3, 4, 0}};
  uint64_t bad = 0;
  memset(junk, 0xA5, sizeof junk);
  tv_open(&t, 3);
  rb_funcs(&r, 0, two, 2);
  cr_assert_eq(tv_rb(&t, LI_LREC_FUNCS, &r), 0);
  cr_assert_eq(tv_feed(&t, LI_LREC_FRAME, &f, sizeof f), 0);

#define BAD(kind, p, n) do { \
    cr_assert_eq(tv_feed(&t, kind, p, n), -1, "line %d", __LINE__); \
    cr_assert_eq(li_live_view_bad(t.v), ++bad); \
  } while (0)
  /* every kind a byte short and a byte long */
  BAD(LI_LREC_HELLO, junk, sizeof(li_lrec_hello) - 1);
  BAD(LI_LREC_FRAME, &f, sizeof f - 1);
  BAD(LI_LREC_FRAME, junk, sizeof f + 1);
  BAD(LI_LREC_FUNCS, junk, sizeof(li_lrec_funcs) - 1);
  BAD(LI_LREC_SPIKE, junk, sizeof(li_lrec_spike) - 1);
  BAD(LI_LREC_TABLE, junk, sizeof(li_lrec_table) - 1);
  BAD(LI_LREC_MEMORY, &mem, sizeof mem - 1);
  BAD(LI_LREC_MEMORY, junk, sizeof mem + 1);
  BAD(LI_LREC_STATUS, junk, sizeof st - 1);
  BAD(LI_LREC_STATUS, junk, sizeof st + 1);
  BAD(LI_LREC_ACK, junk, sizeof(li_lrec_ack) - 1);
  BAD(LI_LREC_END, junk, 1);
  BAD(0, junk, 8);
  BAD(LI_LREC_KINDS, junk, 8);
  BAD(999, NULL, 0);
  cr_assert_eq(tv_feed(&t, LI_LREC_FRAME, NULL, 5), -1);
  cr_assert_eq(li_live_view_bad(t.v), ++bad);
  /* the first bad record flushed the frame before it; none since */
  BAD(LI_LREC_STATUS, &st, sizeof st);          /* collection 3 */

  /* FUNCS: a gap, a name without its NUL, zone 4, too many, bytes after */
  rb_funcs(&r, 3, two, 2);
  BAD(LI_LREC_FUNCS, r.b, r.n);
  rb_funcs(&r, 2, two, 2);
  r.b[sizeof(li_lrec_funcs) + sizeof(li_lrec_func) + 1] = 'x';  /* "a\0" */
  BAD(LI_LREC_FUNCS, r.b, r.n);
  {
    tfunc z = {"z", 0, "@z", 1, 1, 4};
    rb_funcs(&r, 2, &z, 1);
    BAD(LI_LREC_FUNCS, r.b, r.n);
  }
  rb_funcs(&r, 2, two, 2);
  ((li_lrec_funcs *)r.b)->count = 3;
  BAD(LI_LREC_FUNCS, r.b, r.n);
  ((li_lrec_funcs *)r.b)->count = 0xFFFFFFFF;
  BAD(LI_LREC_FUNCS, r.b, r.n);
  ((li_lrec_funcs *)r.b)->count = 1;
  BAD(LI_LREC_FUNCS, r.b, r.n);                 /* the second one is extra */
  ((li_lrec_funcs *)r.b)->count = 2;
  ((li_lrec_func *)(r.b + sizeof(li_lrec_funcs)))->namelen = 0xFFFFFFF0;
  BAD(LI_LREC_FUNCS, r.b, r.n);
  ((li_lrec_func *)(r.b + sizeof(li_lrec_funcs)))->namelen = 2;
  ((li_lrec_func *)(r.b + sizeof(li_lrec_funcs)))->srclen = 0xFFFFFFFF;
  BAD(LI_LREC_FUNCS, r.b, r.n);
  ((li_lrec_funcs *)r.b)->first = 0xFFFFFFFF;
  BAD(LI_LREC_FUNCS, r.b, r.n);

  /* SPIKE: no root, a root with a function, a parent after its child, an
     unknown function, n too big, zero nodes */
  rb_spike(&r, 5, 4, 2);
  ((li_lrec_node *)(r.b + sizeof(li_lrec_spike)))->func = 0;
  BAD(LI_LREC_SPIKE, r.b, r.n);
  rb_spike(&r, 5, 4, 2);
  ((li_lrec_node *)(r.b + sizeof(li_lrec_spike)))->parent = 0;
  BAD(LI_LREC_SPIKE, r.b, r.n);
  rb_spike(&r, 5, 4, 2);
  ((li_lrec_node *)(r.b + sizeof(li_lrec_spike)) + 2)->parent = 2;
  BAD(LI_LREC_SPIKE, r.b, r.n);
  rb_spike(&r, 5, 4, 2);
  ((li_lrec_node *)(r.b + sizeof(li_lrec_spike)) + 3)->func = 2;
  BAD(LI_LREC_SPIKE, r.b, r.n);
  rb_spike(&r, 5, 4, 2);
  ((li_lrec_node *)(r.b + sizeof(li_lrec_spike)) + 3)->func = UINT32_MAX;
  BAD(LI_LREC_SPIKE, r.b, r.n);
  rb_spike(&r, 5, 4, 2);
  ((li_lrec_spike *)r.b)->n = 5;
  BAD(LI_LREC_SPIKE, r.b, r.n);
  ((li_lrec_spike *)r.b)->n = 0x80000000u;
  BAD(LI_LREC_SPIKE, r.b, r.n);
  ((li_lrec_spike *)r.b)->n = 0;
  BAD(LI_LREC_SPIKE, r.b, sizeof(li_lrec_spike));
  BAD(LI_LREC_SPIKE, r.b, r.n);

  /* TABLE: an unknown function, a count that does not fit */
  {
    li_lrec_row rows[2] = {{1, 0, 1, 1, 1, 0, 0}, {2, 0, 1, 1, 1, 0, 0}};
    rb_table(&r, 1, rows, 2, 2);
    BAD(LI_LREC_TABLE, r.b, r.n);
    rb_table(&r, 1, rows, 1, 2);
    ((li_lrec_table *)r.b)->n = 2;
    BAD(LI_LREC_TABLE, r.b, r.n);
    ((li_lrec_table *)r.b)->n = 0x10000000u;
    BAD(LI_LREC_TABLE, r.b, r.n);
  }

  /* ACK: a download with no path, or a NUL in it */
  rb_ack(&r, 1, 1, 1, "html", "");
  BAD(LI_LREC_ACK, r.b, r.n);
  rb_ack(&r, 1, 1, 1, "html", "/tmp/a.html");
  r.b[sizeof(li_lrec_ack) + 3] = '\0';
  BAD(LI_LREC_ACK, r.b, r.n);
  cr_assert_null(li_live_view_download(t.v, 1));
#undef BAD

  /* none of them changed what a subscriber gets */
  tv_catchup(&t);
  cr_assert_eq(t.out.n, 2);                     /* functions, the frame */
  free(r.b);
  tv_check(&t);
}

Test(liveview, doubles_never_nan_or_inf) {
  tv t;
  rb r = {0};
  li_lrec_status st = {LI_LIVE_RUNNING, 1, 0, 4, INFINITY, NAN, 0};
  char *m;
  tv_open(&t, 4);
  rb_hello(&r, 1, 0, 1, -INFINITY, "jit", 3);
  cr_assert_eq(tv_rb(&t, LI_LREC_HELLO, &r), 0);
  m = tv_msg(&t, 0);
  cr_assert(strstr(m, "\"ns_per_tick\":null") != NULL, "%s", m);
  cr_assert(strstr(m, "\"lua\":\"LuaJIT\"") != NULL, "%s", m);
  free(m);
  cr_assert_eq(tv_feed(&t, LI_LREC_STATUS, &st, sizeof st), 0);
  m = tv_msg(&t, 0);
  cr_assert(strstr(m, "\"spike_factor\":null,\"spike_ms\":null") != NULL, "%s", m);
  free(m);
  st.spike_factor = 1e300;
  st.spike_ms = 0.1;
  cr_assert_eq(tv_feed(&t, LI_LREC_STATUS, &st, sizeof st), 0);
  m = tv_msg(&t, 0);
  cr_assert(strstr(m, "\"spike_factor\":1e+300,\"spike_ms\":0.1,") != NULL, "%s", m);
  free(m);
  free(r.b);
  tv_check(&t);
}

/* xorshift64*: the same sequence on every run */
static uint64_t rnd(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

/* Records of every kind in a random order, one in five garbled (a byte
** changed, cut short, made longer): every message checked by the model. */
Test(liveview, random_records_as_the_model_says, .timeout = 120) {
  tv t;
  rb r = {0};
  uint64_t s = 0x9e3779b97f4a7c15ull, frame = 0;
  uint32_t nfuncs = 0;
  tv_open(&t, 5);
  for (int step = 0; step < 6000; step++) {
    uint32_t kind = (uint32_t)(rnd(&s) % 10) + 1;
    rb_reset(&r);
    switch (kind) {
      case LI_LREC_HELLO: {
        char name[16];
        size_t n = rnd(&s) % sizeof name;
        for (size_t i = 0; i < n; i++) name[i] = (char)rnd(&s);
        rb_hello(&r, rnd(&s), 501 + (uint32_t)(rnd(&s) % 4), (uint32_t)(rnd(&s) % 2),
                 (double)(rnd(&s) % 1000) / 7.0, name, n);
        break;
      }
      case LI_LREC_FUNCS: {
        tfunc f[4];
        char names[4][12];
        uint32_t n = (uint32_t)(rnd(&s) % 4);
        for (uint32_t i = 0; i < n; i++) {
          snprintf(names[i], sizeof names[i], "f%u\xe2%c", nfuncs + i,
                   (char)(0x80 + rnd(&s) % 0x50));
          f[i] = (tfunc){names[i], 0, "@r.lua", (uint32_t)rnd(&s),
                         (uint32_t)rnd(&s), (uint32_t)(rnd(&s) % 3)};
        }
        rb_funcs(&r, nfuncs - (nfuncs && rnd(&s) % 4 == 0), f, n);
        break;
      }
      case LI_LREC_SPIKE:
        if (nfuncs == 0) continue;
        rb_spike(&r, frame, 1 + (uint32_t)(rnd(&s) % 20), nfuncs);
        break;
      case LI_LREC_TABLE: {
        li_lrec_row rows[8];
        uint32_t n = nfuncs ? (uint32_t)(rnd(&s) % 8) : 0;
        for (uint32_t i = 0; i < n; i++)
          rows[i] = (li_lrec_row){(uint32_t)(rnd(&s) % nfuncs), 0, rnd(&s),
                                  (int64_t)rnd(&s), (int64_t)rnd(&s), rnd(&s),
                                  (int64_t)rnd(&s)};
        rb_table(&r, rnd(&s), rows, n, nfuncs);
        break;
      }
      case LI_LREC_MEMORY: {
        li_lrec_memory m = {rnd(&s), rnd(&s), rnd(&s), (int64_t)rnd(&s)};
        rb_put(&r, &m, sizeof m);
        break;
      }
      case LI_LREC_STATUS: {
        li_lrec_status st = {(uint32_t)(rnd(&s) % 3), 1, 1, 8,
                             1 + (double)(rnd(&s) % 100) / 10, 0.5, rnd(&s)};
        rb_put(&r, &st, sizeof st);
        break;
      }
      case LI_LREC_ACK:
        rb_ack(&r, rnd(&s), (uint32_t)(rnd(&s) % 2), (uint32_t)(rnd(&s) % 2),
               rnd(&s) % 2 ? "json" : "", rnd(&s) % 2 ? "/tmp/r.json" : "no");
        break;
      case LI_LREC_END:
        break;
      default: {                                 /* the most common */
        li_lrec_frame f = frame_of(++frame, rnd(&s) % 10 == 0);
        kind = LI_LREC_FRAME;
        rb_put(&r, &f, sizeof f);
      }
    }
    switch (rnd(&s) % 15) {
      case 0:
        if (r.n) r.b[rnd(&s) % r.n] = (unsigned char)rnd(&s);
        break;
      case 1:
        if (r.n) r.n = rnd(&s) % r.n;
        break;
      case 2:
        rb_put(&r, "\x01\x02\x03\x04\x05\x06\x07\x08", 1 + rnd(&s) % 8);
        break;
    }
    if (tv_rb(&t, kind, &r) == 0 && kind == LI_LREC_FUNCS)
      nfuncs = ((li_lrec_funcs *)r.b)->first + ((li_lrec_funcs *)r.b)->count > nfuncs
                   ? ((li_lrec_funcs *)r.b)->first + ((li_lrec_funcs *)r.b)->count
                   : nfuncs;
    if (kind == LI_LREC_ACK && t.out.n && strstr(t.out.buf, "\"download\""))
      t.ndown++;
    if (rnd(&s) % 8 == 0) tv_flush(&t);
    if (rnd(&s) % 200 == 0) tv_catchup(&t);
  }
  tv_catchup(&t);
  cr_assert(li_live_view_bad(t.v) > 0);
  free(r.b);
  tv_check(&t);
}

Test(liveview, out_buffer_reused) {
  li_live_view *v = li_live_view_new(9);
  li_live_out o = {0};
  li_lrec_memory mem = {1, 2, 3, 4};
  cr_assert_eq(li_live_view_feed(v, LI_LREC_MEMORY, &mem, sizeof mem, &o), 0);
  cr_assert_eq(li_live_view_feed(v, LI_LREC_END, NULL, 0, &o), 0);
  cr_assert_eq(o.n, 2);
  cr_assert_eq(o.off[0], 0);
  cr_assert_eq(o.buf[o.off[1] - 1], '}');
  cr_assert_eq(o.buf[o.len], '\0');
  cr_assert_str_eq(o.buf + o.off[1], "{\"type\":\"end\",\"state\":9}");
  li_live_out_clear(&o);
  cr_assert_eq(o.n, 0);
  cr_assert_eq(o.len, 0);
  for (int i = 0; i < 5000; i++)
    cr_assert_eq(li_live_view_feed(v, LI_LREC_MEMORY, &mem, sizeof mem, &o), 0);
  cr_assert_eq(o.n, 5000);
  for (uint32_t i = 0; i < o.n; i++)        /* the same message each time */
    cr_assert_eq(o.off[i], i * (o.len / 5000));
  li_live_out_free(&o);
  cr_assert_null(o.buf);
  cr_assert_eq(o.n, 0);
  li_live_out_free(&o);                         /* twice: harmless */
  li_live_view_free(v);
  li_live_view_free(NULL);
}


/* ---- the commands ------------------------------------------------------------ */

static int parse(const char *json, li_live_cmd *c, char *err, size_t errlen) {
  return li_live_parse_cmd(json, strlen(json), c, err, errlen);
}

Test(livecmd, every_command) {
  static const struct { const char *name; uint32_t cmd; } plain[] = {
    {"start", LI_LCMD_START}, {"stop", LI_LCMD_STOP}, {"pause", LI_LCMD_PAUSE},
    {"resume", LI_LCMD_RESUME}, {"reset", LI_LCMD_RESET}};
  li_live_cmd c;
  char err[200], json[128];
  for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
    snprintf(json, sizeof json, "{\"cmd\":\"%s\"}", plain[i].name);
    cr_assert_eq(parse(json, &c, err, sizeof err), 1, "%s: %s", json, err);
    cr_assert_eq(c.cmd, plain[i].cmd);
    cr_assert_eq(c.state, 0);
    cr_assert_eq(c.id, 0);
    cr_assert_str_eq(err, "");
    snprintf(json, sizeof json, " {\n\t\"id\" : 17 , \"cmd\":\"%s\", \"state\":3 }\r\n",
             plain[i].name);
    cr_assert_eq(parse(json, &c, err, sizeof err), 1, "%s: %s", json, err);
    cr_assert_eq(c.cmd, plain[i].cmd);
    cr_assert_eq(c.state, 3);
    cr_assert_eq(c.id, 17);
  }
  cr_assert_eq(parse("{\"cmd\":\"subscribe\"}", &c, err, sizeof err), 2, "%s", err);
  cr_assert_eq(c.state, 0);
  cr_assert_eq(parse("{\"cmd\":\"subscribe\",\"state\":4294967295,\"id\":1}",
                     &c, err, sizeof err), 2, "%s", err);
  cr_assert_eq(c.state, 4294967295u);

  cr_assert_eq(parse("{\"cmd\":\"spike_rule\",\"factor\":2.5}", &c, err, sizeof err), 1,
               "%s", err);
  cr_assert_eq(c.cmd, LI_LCMD_RULE);
  cr_assert_eq(c.spike_factor, 2.5);
  cr_assert_eq(c.spike_ms, -1, "ms left as it is");
  cr_assert_eq(parse("{\"cmd\":\"spike_rule\",\"ms\":0}", &c, err, sizeof err), 1, "%s", err);
  cr_assert_eq(c.spike_factor, 0, "factor left as it is");
  cr_assert_eq(c.spike_ms, 0);
  cr_assert_eq(parse("{\"cmd\":\"spike_rule\",\"ms\":-0.0}", &c, err, sizeof err), 1, "%s", err);
  cr_assert_eq(c.spike_ms, 0);
  cr_assert(!signbit(c.spike_ms));
  cr_assert_eq(parse("{\"ms\":16.7,\"cmd\":\"spike_rule\",\"factor\":1.25e1}", &c, err,
                     sizeof err), 1, "%s", err);
  cr_assert_eq(c.spike_factor, 12.5);
  cr_assert(fabs(c.spike_ms - 16.7) < 1e-12, "%.17g", c.spike_ms);
  cr_assert_eq(parse("{\"cmd\":\"spike_rule\",\"factor\":1.0000001,\"ms\":null}", &c,
                     err, sizeof err), 1, "%s", err);
  cr_assert_eq(c.spike_ms, -1);

  cr_assert_eq(parse("{\"cmd\":\"snapshot\"}", &c, err, sizeof err), 1, "%s", err);
  cr_assert_eq(c.cmd, LI_LCMD_SNAPSHOT);
  cr_assert_eq(c.collect, 0);
  cr_assert_eq(parse("{\"cmd\":\"snapshot\",\"collect\":true}", &c, err, sizeof err), 1);
  cr_assert_eq(c.collect, 1);
  cr_assert_eq(parse("{\"cmd\":\"snapshot\",\"collect\":false}", &c, err, sizeof err), 1);
  cr_assert_eq(c.collect, 0);

#define LI_FMT(id, name, binary) name,
  static const char *const formats[] = {LI_REPORT_FORMATS(LI_FMT)};
#undef LI_FMT
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
    snprintf(json, sizeof json, "{\"cmd\":\"report\",\"format\":\"%s\",\"id\":%zu}",
             formats[i], i + 1);
    cr_assert_eq(parse(json, &c, err, sizeof err), 1, "%s: %s", json, err);
    cr_assert_eq(c.cmd, LI_LCMD_REPORT);
    cr_assert_str_eq(c.format, formats[i]);
    cr_assert_eq(c.id, i + 1);
  }
}

Test(livecmd, bounds_and_escapes) {
  li_live_cmd c;
  char err[200], big[LI_LIVE_MSG_MAX + 2];
  const char *obj = "{\"cmd\":\"start\",\"id\":18446744073709551615}";
  cr_assert_eq(parse(obj, &c, err, sizeof err), 1, "%s", err);
  cr_assert_eq(c.id, UINT64_MAX);
  cr_assert_eq(parse("{\"cmd\":\"\\u0073t\\u0061rt\"}", &c, err, sizeof err), 1, "%s", err);
  cr_assert_eq(c.cmd, LI_LCMD_START);
  cr_assert_eq(parse("{\"cmd\":\"start\",\"state\":null,\"id\":null}", &c, err,
                     sizeof err), 1, "%s", err);
  cr_assert_eq(parse("{\"cmd\":\"stop\",\"id\":0}", &c, NULL, 0), 1);
  /* exactly LI_LIVE_MSG_MAX bytes: taken; one more: refused */
  memset(big, ' ', sizeof big);
  memcpy(big, obj, strlen(obj));
  cr_assert_eq(li_live_parse_cmd(big, LI_LIVE_MSG_MAX, &c, err, sizeof err), 1, "%s", err);
  cr_assert_eq(li_live_parse_cmd(big, LI_LIVE_MSG_MAX + 1, &c, err, sizeof err), 0);
  cr_assert(strstr(err, "4097 bytes") != NULL, "%s", err);
  /* a tiny err buffer still ends with its NUL */
  cr_assert_eq(parse("{\"cmd\":\"fly\"}", &c, err, 5), 0);
  cr_assert_eq(strlen(err), 4);
}

Test(livecmd, every_refusal) {
  static const struct { const char *json; const char *why; } bad[] = {
    {"", "empty"}, {"   \n", "empty"}, {"[]", "object"}, {"\"start\"", "object"},
    {"1", "object"}, {"null", "object"},
    {"{", "field name"}, {"{\"cmd\"", "':'"}, {"{\"cmd\":", "value"},
    {"{\"cmd\":\"start\"", "'}'"}, {"{\"cmd\":\"start\",}", "field name"},
    {"{\"cmd\":\"start\"}}", "after the object"},
    {"{\"cmd\":\"start\"}{\"cmd\":\"stop\"}", "after the object"},
    {"{'cmd':'start'}", "field name"}, {"{cmd:\"start\"}", "field name"},
    {"{\"cmd\":\"start\" \"id\":1}", "','"},
    {"{\"cmd\":\"sta", "unterminated"}, {"{\"cmd\":\"st\\x\"}", "escape"},
    {"{\"cmd\":\"st\\u00\"}", "hex"}, {"{\"cmd\":\"\\ud800\"}", "surrogate"},
    {"{\"cmd\":\"\\udc00x\"}", "surrogate"}, {"{\"cmd\":\"\\ud800\\u0041\"}", "surrogate"},
    {"{\"cmd\":\"a\tb\"}", "control"}, {"{\"cmd\":\"\xff\"}", "UTF-8"},
    {"{\"cmd\":\"\xed\xa0\x80\"}", "UTF-8"}, {"{\"cmd\":\"\xc0\xaf\"}", "UTF-8"},
    {"{\"cmd\":\"start\",\"id\":01}", "leading zero"},
    {"{\"cmd\":\"start\",\"id\":-}", "digit"}, {"{\"cmd\":\"start\",\"id\":1.}", "digit"},
    {"{\"cmd\":\"start\",\"id\":.5}", "value"}, {"{\"cmd\":\"start\",\"id\":+1}", "value"},
    {"{\"cmd\":\"start\",\"id\":1e}", "exponent"},
    {"{\"cmd\":\"start\",\"id\":NaN}", "value"},
    {"{\"cmd\":\"start\",\"id\":Infinity}", "value"},
    {"{\"cmd\":\"start\",\"id\":tru}", "value"},
    {"{\"cmd\":\"start\",\"id\":nul}", "value"},
    {"{\"cmd\":{\"a\":1}}", "object or an array"},
    {"{\"cmd\":\"start\",\"x\":[1,2]}", "object or an array"},
    {"{\"cmd\":\"start\",\"id\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
     "object or an array"},
    {"{}", "no \"cmd\""}, {"{\"id\":1}", "no \"cmd\""},
    {"{\"cmd\":\"fly\"}", "unknown cmd \"fly\""},
    {"{\"cmd\":\"Start\"}", "unknown cmd"}, {"{\"cmd\":\"start \"}", "unknown cmd"},
    {"{\"cmd\":\"start\\u0000\"}", "unknown cmd \"start?\""},
    {"{\"cmd\":\"a-very-long-command-name-that-goes-on-and-on\"}", "...\""},
    {"{\"cmd\":1}", "string"}, {"{\"cmd\":null}", "string"}, {"{\"cmd\":true}", "string"},
    {"{\"cmd\":\"start\",\"cmd\":\"stop\"}", "twice"},
    {"{\"cmd\":\"start\",\"verbose\":true}", "unknown field \"verbose\""},
    {"{\"cmd\":\"start\",\"a-very-long-field-name\":1}", "unknown field \"a-very-long-..."},
    {"{\"cmd\":\"start\",\"factor\":2}", "not one of cmd \"start\""},
    {"{\"cmd\":\"snapshot\",\"format\":\"html\"}", "not one of cmd \"snapshot\""},
    {"{\"cmd\":\"report\",\"format\":\"html\",\"collect\":true}", "not one of"},
    {"{\"cmd\":\"subscribe\",\"ms\":3}", "not one of"},
    {"{\"cmd\":\"spike_rule\"}", "needs"}, {"{\"cmd\":\"spike_rule\",\"factor\":null}", "needs"},
    {"{\"cmd\":\"spike_rule\",\"factor\":1}", "above 1"},
    {"{\"cmd\":\"spike_rule\",\"factor\":0.5}", "above 1"},
    {"{\"cmd\":\"spike_rule\",\"factor\":-3}", "above 1"},
    {"{\"cmd\":\"spike_rule\",\"factor\":\"2\"}", "above 1"},
    {"{\"cmd\":\"spike_rule\",\"factor\":1e999}", "above 1"},
    {"{\"cmd\":\"spike_rule\",\"ms\":-1}", "0 or more"},
    {"{\"cmd\":\"spike_rule\",\"ms\":-1e-300}", "0 or more"},
    {"{\"cmd\":\"spike_rule\",\"ms\":1e400}", "0 or more"},
    {"{\"cmd\":\"spike_rule\",\"ms\":false}", "0 or more"},
    {"{\"cmd\":\"snapshot\",\"collect\":1}", "true or false"},
    {"{\"cmd\":\"snapshot\",\"collect\":\"yes\"}", "true or false"},
    {"{\"cmd\":\"report\"}", "needs \"format\""},
    {"{\"cmd\":\"report\",\"format\":\"pdf\"}", "luainstr_dump format"},
    {"{\"cmd\":\"report\",\"format\":\"HTML\"}", "luainstr_dump format"},
    {"{\"cmd\":\"report\",\"format\":\"folded-calls-and-more-of-it\"}", "luainstr_dump format"},
    {"{\"cmd\":\"report\",\"format\":7}", "luainstr_dump format"},
    {"{\"cmd\":\"start\",\"state\":-1}", "integer from 0 to 4294967295"},
    {"{\"cmd\":\"start\",\"state\":1.5}", "integer"},
    {"{\"cmd\":\"start\",\"state\":1e2}", "integer"},
    {"{\"cmd\":\"start\",\"state\":4294967296}", "integer"},
    {"{\"cmd\":\"start\",\"state\":\"1\"}", "integer"},
    {"{\"cmd\":\"start\",\"id\":18446744073709551616}", "integer from 0 to 18446744073709551615"},
    {"{\"cmd\":\"start\",\"id\":-0}", "integer"},
  };
  li_live_cmd c;
  char err[200];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(err, 'x', sizeof err);
    cr_assert_eq(parse(bad[i].json, &c, err, sizeof err), 0, "%s taken", bad[i].json);
    cr_assert(strstr(err, bad[i].why) != NULL, "%s: \"%s\", want \"%s\"", bad[i].json,
              err, bad[i].why);
  }
  /* a NUL inside the text, and bytes after a NUL */
  cr_assert_eq(li_live_parse_cmd("{\"cmd\":\"start\"}\0", 16, &c, err, sizeof err), 0);
  cr_assert(strstr(err, "after the object") != NULL, "%s", err);
  cr_assert_eq(li_live_parse_cmd("{\"cmd\":\"st\0art\"}", 16, &c, err, sizeof err), 0);
  cr_assert(strstr(err, "control") != NULL, "%s", err);
  /* the offset is said */
  cr_assert_eq(parse("{\"cmd\":\"start\",\"id\":01}", &c, err, sizeof err), 0);
  cr_assert(strstr(err, "at byte 20") != NULL, "%s", err);
  cr_assert_eq(li_live_parse_cmd(NULL, 0, &c, err, sizeof err), 0);
}
