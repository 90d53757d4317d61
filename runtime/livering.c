/*
** livering.c -- the live view's ring (live.h): variable-size records from
** one producer thread to one consumer thread, lock-free.
**
** head and tail count bytes written and read since the ring was made
** (size_t, so they wrap together: only their difference is read).  The
** producer owns head, the consumer tail; each publishes its own with a
** release store and reads the other's with an acquire load, so a record's
** bytes are written before head passes them and read before tail frees
** them.  A record is an 8-byte header (kind, length) and its bytes,
** padded to 8: every record starts 8-aligned, and at least a header's room
** is always left before the buffer's end.  A record that would cross the
** end goes to the buffer's start, after a padding record that fills the
** rest (the consumer skips it).  A record that finds no room is dropped,
** and counted: the producer never waits and never allocates.
*/
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"

#define PAD_KIND 0u             /* a padding record: skipped */
#define HDR 8u                  /* a record's header */
#define MIN_BYTES 4096u

typedef struct rec_hdr {
  uint32_t kind;
  uint32_t len;                 /* bytes after the header, unpadded */
} rec_hdr;

struct li_ring {
  _Atomic size_t head;          /* bytes written (producer) */
  char pad0_[64 - sizeof(size_t)];  /* (head and tail on lines of their own) */
  _Atomic size_t tail;          /* bytes read (consumer) */
  char pad1_[64 - sizeof(size_t)];
  _Atomic uint64_t dropped;     /* records put found no room for */
  size_t size;                  /* bytes of buf: a power of two */
  unsigned char *buf;
};

static size_t round8(size_t n) {
  return (n + 7u) & ~(size_t)7u;
}

li_ring *li_ring_new(size_t bytes) {
  li_ring *r;
  size_t size = MIN_BYTES;
  while (size < bytes && size <= (SIZE_MAX >> 2)) size <<= 1;
  r = calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  r->buf = malloc(size);
  if (r->buf == NULL) {
    free(r);
    return NULL;
  }
  r->size = size;
  atomic_init(&r->head, 0);
  atomic_init(&r->tail, 0);
  atomic_init(&r->dropped, 0);
  return r;
}

void li_ring_free(li_ring *r) {
  if (r == NULL) return;
  free(r->buf);
  free(r);
}

static void put_hdr(unsigned char *at, uint32_t kind, size_t len) {
  rec_hdr h;
  h.kind = kind;
  h.len = (uint32_t)len;
  memcpy(at, &h, sizeof h);
}

static int drop(li_ring *r) {
  atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
  return 0;
}

int li_ring_put(li_ring *r, uint32_t kind, const void *a, size_t na,
                const void *b, size_t nb) {
  size_t head, tail, room, off, to_end, need, skip = 0;
  if (nb > SIZE_MAX - na || na + nb > UINT32_MAX || na + nb > r->size)
    return drop(r);
  need = HDR + round8(na + nb);
  head = atomic_load_explicit(&r->head, memory_order_relaxed);
  tail = atomic_load_explicit(&r->tail, memory_order_acquire);
  room = r->size - (head - tail);
  off = head & (r->size - 1);
  to_end = r->size - off;
  if (need > to_end) skip = to_end;       /* a padding record first */
  if (skip + need > room) return drop(r);
  if (skip != 0) {
    put_hdr(r->buf + off, PAD_KIND, to_end - HDR);
    off = 0;
  }
  put_hdr(r->buf + off, kind, na + nb);
  if (na != 0) memcpy(r->buf + off + HDR, a, na);
  if (nb != 0) memcpy(r->buf + off + HDR + na, b, nb);
  atomic_store_explicit(&r->head, head + skip + need, memory_order_release);
  return 1;
}

/* The next record's header (padding skipped): 1, or 0 when empty. */
static int next(li_ring *r, rec_hdr *h, size_t *tail) {
  size_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
  size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  while (t != head) {
    memcpy(h, r->buf + (t & (r->size - 1)), sizeof *h);
    if (h->kind != PAD_KIND) {
      *tail = t;
      return 1;
    }
    t += HDR + h->len;
    atomic_store_explicit(&r->tail, t, memory_order_release);
  }
  return 0;
}

int li_ring_peek(li_ring *r, uint32_t *kind, size_t *len) {
  rec_hdr h;
  size_t t;
  if (!next(r, &h, &t)) return 0;
  if (kind != NULL) *kind = h.kind;
  if (len != NULL) *len = h.len;
  return 1;
}

size_t li_ring_get(li_ring *r, uint32_t *kind, void *buf, size_t cap) {
  rec_hdr h;
  size_t t;
  /* (a buffer too small takes nothing: li_ring_peek says the size; an
  ** empty record, END, reads as 0 too: peek tells it from an empty ring) */
  if (!next(r, &h, &t) || h.len > cap) return 0;
  if (kind != NULL) *kind = h.kind;
  if (h.len != 0) memcpy(buf, r->buf + (t & (r->size - 1)) + HDR, h.len);
  atomic_store_explicit(&r->tail, t + HDR + round8(h.len), memory_order_release);
  return h.len;
}

uint64_t li_ring_dropped(const li_ring *r) {
  return atomic_load_explicit(&((li_ring *)r)->dropped, memory_order_relaxed);
}


/* ======================================================================
** A channel's flag: an int of live.h's struct (no _Atomic there, so that
** the header needs no <stdatomic.h>): the compiler's atomic builtins,
** which C11's atomics are made of in GCC and Clang, act on it
** ====================================================================== */

void li_live_flag_set(li_live_chan *c) {
  __atomic_store_n(&c->pending, 1, __ATOMIC_RELEASE);
}

int li_live_flag_take(li_live_chan *c) {
  return __atomic_exchange_n(&c->pending, 0, __ATOMIC_ACQ_REL) != 0;
}
