/*
** fuzz_live.c -- libFuzzer target: the live view's message handling
** (runtime/liveview.c, docs/live-protocol.md) over any bytes.
**
** The first byte chooses:
**   even: the rest is a client's message for li_live_parse_cmd.  It never
**         reads past the bytes (given in a block of exactly their size);
**         a command it takes holds together (a known cmd, factor > 1 or
**         left, ms >= 0 or left, a known format, err empty); one it refuses
**         has a message.
**   odd:  the rest drives a view: each step is a record built from the
**         bytes (fields chosen by them, so most records are well formed
**         and the view's state grows: functions, table rows, trees) or
**         raw bytes of any kind and size, maybe then a flush or a
**         catch-up.  Every record is in a block of exactly its size; every
**         message that comes out is one valid JSON object (json_check.c,
**         strict: UTF-8, no NaN) of this state, with nothing an HTML
**         <script> would stop at; a record it takes or refuses, nothing
**         else; li_live_view_bad counts the refusals.
*/
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "json_check.h"
#include "live.h"
#include "writers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_cmd(const uint8_t *data, size_t size) {
  char *copy = malloc(size ? size : 1), err[256];
  li_live_cmd c;
  int rc;
  FZ_CHECK(copy != NULL, "malloc");
  if (size) memcpy(copy, data, size);
  memset(err, 'x', sizeof err);
  rc = li_live_parse_cmd(copy, size, &c, err, sizeof err);
  free(copy);
  FZ_CHECK(memchr(err, '\0', sizeof err) != NULL, "err not terminated");
  if (rc == 0) {
    FZ_CHECK(err[0] != '\0', "refused without a message");
    return;
  }
  FZ_CHECK(rc == 1 || rc == 2, "returned %d", rc);
  FZ_CHECK(size <= LI_LIVE_MSG_MAX, "took %zu bytes", size);
  FZ_CHECK(err[0] == '\0', "taken with a message: %s", err);
  if (rc == 2) return;
  FZ_CHECK(c.cmd >= LI_LCMD_START && c.cmd <= LI_LCMD_REPORT, "cmd %u", c.cmd);
  FZ_CHECK(c.spike_factor == 0 || (isfinite(c.spike_factor) && c.spike_factor > 1),
           "factor %g", c.spike_factor);
  FZ_CHECK(c.spike_ms == -1 || (isfinite(c.spike_ms) && c.spike_ms >= 0),
           "ms %g", c.spike_ms);
  FZ_CHECK(c.cmd != LI_LCMD_RULE || c.spike_factor != 0 || c.spike_ms != -1,
           "a rule that changes nothing");
  FZ_CHECK(c.collect == 0 || c.collect == 1, "collect %d", c.collect);
  FZ_CHECK(memchr(c.format, '\0', sizeof c.format) != NULL, "format not terminated");
  if (c.cmd == LI_LCMD_REPORT) {
#define LI_FMT(id, name, binary) name,
    static const char *const formats[] = {LI_REPORT_FORMATS(LI_FMT)};
#undef LI_FMT
    int known = 0;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
      known |= strcmp(c.format, formats[i]) == 0;
    FZ_CHECK(known, "format \"%s\"", c.format);
  } else {
    FZ_CHECK(c.format[0] == '\0', "format \"%s\" for cmd %u", c.format, c.cmd);
  }
}

/* Every message of o from the from-th: one JSON object of state `state`. */
static void check_out(const li_live_out *o, uint32_t from, uint32_t state) {
  char err[256], head[48];
  int nh = snprintf(head, sizeof head, "\",\"state\":%u", state);
  FZ_CHECK(o->n == 0 || (o->buf != NULL && o->buf[o->len] == '\0'),
           "buffer not terminated");
  for (uint32_t i = from; i < o->n; i++) {
    size_t a = o->off[i], b = i + 1 < o->n ? o->off[i + 1] : o->len;
    const char *m = o->buf + a, *q;
    FZ_CHECK(a < b && b <= o->len, "message %u at %zu..%zu of %zu", i, a, b, o->len);
    FZ_CHECK(o->droppable[i] <= 1, "droppable %u", o->droppable[i]);
    FZ_CHECK(fz_json_valid(m, b - a, err, sizeof err), "%s\n%.*s", err,
             (int)(b - a), m);
    FZ_CHECK(strncmp(m, "{\"type\":\"", 9) == 0, "%.*s", (int)(b - a), m);
    q = memchr(m + 9, '"', b - a - 9);
    FZ_CHECK(q != NULL && (size_t)(m + b - a - q) > (size_t)nh &&
             memcmp(q, head, (size_t)nh) == 0, "not of state %u: %.*s", state,
             (int)(b - a), m);
    for (const char *c = m; c < m + (b - a); c++)
      FZ_CHECK(*c != '<' && *c != '>' && *c != '&', "raw %c in %.*s", *c,
               (int)(b - a), m);
  }
}

/* Up to max of the bytes, copied to rec + *n (room permitting), taken. */
static void take(fz_bytes *b, size_t max, uint8_t *rec, size_t *n, size_t cap) {
  size_t k = (size_t)fz_upto(b, max);
  if (k > b->n) k = b->n;
  if (k > cap - *n) k = cap - *n;
  memcpy(rec + *n, b->p, k);
  *n += k;
  b->p += k;
  b->n -= k;
}

/* A record of kind k from the bytes: its fields, mostly in range. */
static size_t build(fz_bytes *b, uint32_t k, uint32_t nfuncs, uint8_t *rec,
                    size_t cap) {
  size_t n = 0;
#define PUT(p, len) do { size_t l_ = (len); \
    if (n + l_ > cap) return n; memcpy(rec + n, (p), l_); n += l_; } while (0)
  switch (k) {
    case LI_LREC_HELLO: {
      li_lrec_hello h = {fz_u64(b, 8), (uint32_t)fz_u64(b, 2),
                         (uint32_t)fz_u64(b, 1) & 1, 0, 1, 0};
      uint64_t bits = fz_u64(b, 8);
      memcpy(&h.ns_per_tick, &bits, sizeof bits);   /* NaN and inf too */
      PUT(&h, sizeof h);
      take(b, 64, rec, &n, cap);
      break;
    }
    case LI_LREC_FRAME: {
      li_lrec_frame f;
      for (size_t i = 0; i < sizeof f; i++) ((uint8_t *)&f)[i] = (uint8_t)fz_u64(b, 1);
      PUT(&f, sizeof f);
      break;
    }
    case LI_LREC_FUNCS: {
      uint32_t count = (uint32_t)fz_upto(b, 8);
      li_lrec_funcs h = {nfuncs - (uint32_t)fz_upto(b, nfuncs ? 1 : 0), count};
      PUT(&h, sizeof h);
      for (uint32_t i = 0; i < count; i++) {
        size_t nl = (size_t)fz_upto(b, 24), sl = (size_t)fz_upto(b, 24);
        li_lrec_func f = {(uint32_t)fz_u64(b, 2), (uint32_t)fz_u64(b, 2),
                          (uint32_t)fz_upto(b, 2), (uint32_t)nl + 1,
                          (uint32_t)sl + 1, 0};
        PUT(&f, sizeof f);
        for (size_t j = 0; j < nl; j++) PUT(&(uint8_t){(uint8_t)fz_u64(b, 1)}, 1);
        PUT("", 1);
        for (size_t j = 0; j < sl; j++) PUT(&(uint8_t){(uint8_t)fz_u64(b, 1)}, 1);
        PUT("", 1);
      }
      break;
    }
    case LI_LREC_SPIKE: {
      uint32_t nn = 1 + (uint32_t)fz_upto(b, 40);
      li_lrec_spike h = {fz_u64(b, 4), fz_u64(b, 4), fz_u64(b, 4), nn, 0};
      PUT(&h, sizeof h);
      for (uint32_t i = 0; i < nn; i++) {
        li_lrec_node d = {UINT32_MAX, UINT32_MAX, fz_u64(b, 2),
                          (int64_t)fz_u64(b, 8), (int64_t)fz_u64(b, 3), fz_u64(b, 2)};
        if (i > 0) {
          d.func = nfuncs ? (uint32_t)fz_upto(b, nfuncs - 1) : 0;
          d.parent = (uint32_t)fz_upto(b, i - 1);
        }
        PUT(&d, sizeof d);
      }
      break;
    }
    case LI_LREC_TABLE: {
      uint32_t nr = nfuncs ? (uint32_t)fz_upto(b, 16) : 0;
      li_lrec_table h = {fz_u64(b, 4), nr, nfuncs};
      PUT(&h, sizeof h);
      for (uint32_t i = 0; i < nr; i++) {
        li_lrec_row r = {(uint32_t)fz_upto(b, nfuncs - 1), 0, fz_u64(b, 8),
                         (int64_t)fz_u64(b, 8), (int64_t)fz_u64(b, 8),
                         fz_u64(b, 8), (int64_t)fz_u64(b, 8)};
        PUT(&r, sizeof r);
      }
      break;
    }
    case LI_LREC_MEMORY: {
      li_lrec_memory m = {fz_u64(b, 8), fz_u64(b, 8), fz_u64(b, 8),
                          (int64_t)fz_u64(b, 8)};
      PUT(&m, sizeof m);
      break;
    }
    case LI_LREC_STATUS: {
      li_lrec_status s = {(uint32_t)fz_upto(b, 3), 1, 1, (uint32_t)fz_u64(b, 2),
                          0, 0, fz_u64(b, 8)};
      uint64_t bits = fz_u64(b, 8);
      memcpy(&s.spike_factor, &bits, sizeof bits);
      bits = fz_u64(b, 8);
      memcpy(&s.spike_ms, &bits, sizeof bits);
      PUT(&s, sizeof s);
      break;
    }
    case LI_LREC_ACK: {
      li_lrec_ack a = {fz_u64(b, 8), (uint32_t)fz_upto(b, 1), (uint32_t)fz_upto(b, 1),
                       {0}};
      for (size_t i = 0; i < sizeof a.format; i++) a.format[i] = (char)fz_u64(b, 1);
      PUT(&a, sizeof a);
      take(b, 64, rec, &n, cap);
      break;
    }
    default:
      break;
  }
#undef PUT
  return n;
}

static void drive(fz_bytes *b) {
  uint32_t state = (uint32_t)fz_u64(b, 4), nfuncs = 0;
  li_live_view *v = li_live_view_new(state);
  li_live_out out = {0};
  uint8_t *rec = malloc(65536);
  uint64_t refused = 0;
  FZ_CHECK(v != NULL && rec != NULL, "malloc");
  for (int step = 0; b->n > 0 && step < 4096; step++) {
    uint8_t op = (uint8_t)fz_u64(b, 1);
    uint32_t kind = op & 15u;
    size_t n;
    uint8_t *exact;
    uint32_t from = out.n;
    int rc;
    if (op & 0x80) {                      /* raw bytes, any kind */
      n = 0;
      take(b, 4096, rec, &n, 65536);
      if (op & 0x40) kind = (uint32_t)fz_u64(b, 4);
    } else {
      n = build(b, kind, nfuncs, rec, 65536);
    }
    exact = malloc(n ? n : 1);
    FZ_CHECK(exact != NULL, "malloc");
    memcpy(exact, rec, n);
    rc = li_live_view_feed(v, kind, n ? exact : NULL, n, &out);
    FZ_CHECK(rc == 0 || rc == -1, "feed returned %d", rc);
    if (rc == 0 && kind == LI_LREC_FUNCS) {
      li_lrec_funcs h;
      memcpy(&h, exact, sizeof h);
      if (h.first + h.count > nfuncs) nfuncs = h.first + h.count;
    }
    FZ_CHECK(kind < LI_LREC_KINDS && kind > 0 ? 1 : rc == -1, "kind %u taken", kind);
    refused += rc != 0;
    free(exact);
    if (op & 0x20) li_live_view_flush(v, &out);
    if ((op & 0x50) == 0x50) li_live_view_catchup(v, &out);
    check_out(&out, from, state);
    if (out.len > (1u << 20)) li_live_out_clear(&out);
  }
  li_live_out_clear(&out);
  li_live_view_flush(v, &out);
  li_live_view_catchup(v, &out);
  check_out(&out, 0, state);
  FZ_CHECK(li_live_view_bad(v) == refused, "bad %llu, refused %llu",
           (unsigned long long)li_live_view_bad(v), (unsigned long long)refused);
  for (uint32_t i = 0; i < 4; i++) {
    const char *p = li_live_view_download(v, i);
    FZ_CHECK(p == NULL || (i > 0 && p[0] != '\0'), "download %u", i);
  }
  li_live_out_free(&out);
  li_live_view_free(v);
  free(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_bytes b = {data, size};
  if (size == 0) return 0;
  b.p++;
  b.n--;
  if ((data[0] & 1) == 0) check_cmd(b.p, b.n);
  else drive(&b);
  return 0;
}
