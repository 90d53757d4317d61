/*
** test_live_ring.c -- the live view's ring (runtime/livering.c) with two
** real threads: one producer, one consumer, as the Lua thread and the
** server's thread use it.  A plain program (Criterion cannot start under
** ThreadSanitizer, which runs this: scripts/sanitize.sh tsan).
**
** Checked: records come out whole and in order, through many wraps of a
** small ring; every record put is either read or counted as dropped
** (never both, never neither); a record larger than the ring is dropped
** and counted; an empty ring reads as empty; the channel's flag.
** Prints one line per check; exit status 0 when every one passed.
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"

static int failures;

#define CHECK(cond, ...) do {                                    \
    if (!(cond)) {                                               \
      failures++;                                                \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);       \
      fprintf(stderr, __VA_ARGS__);                              \
      fputc('\n', stderr);                                       \
    }                                                            \
  } while (0)

#define RECORDS 300000u
#define MAXLEN 700u

/* Record i: kind i % 7 + 1, length from a mix of i (0 to MAXLEN bytes:
** many cross the ring's end), bytes: its number, then a pattern of it. */
static size_t len_of(uint32_t i) {
  uint32_t x = i * 2654435761u;
  return i % 97 == 0 ? 0 : 4 + (x >> 7) % (MAXLEN - 4);
}

static void fill(uint32_t i, unsigned char *b, size_t len) {
  for (size_t k = 0; k < len; k++) b[k] = (unsigned char)(i * 31u + k);
  if (len >= 4) memcpy(b, &i, 4);
}

typedef struct shared {
  li_ring *r;
  uint64_t put_ok;      /* records the producer posted */
  int done;             /* the producer has finished (atomic) */
} shared;

static void *producer(void *arg) {
  shared *s = arg;
  unsigned char b[MAXLEN];
  for (uint32_t i = 0; i < RECORDS; i++) {
    size_t len = len_of(i), half = len / 3;
    fill(i, b, len);
    /* two pieces, as the runtime posts a header and its rows */
    s->put_ok += (uint64_t)li_ring_put(s->r, i % 7 + 1, b, half, b + half, len - half);
  }
  __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* Read until the producer is done and the ring empty; check every record
** against the one its number says it is, numbers rising. */
static void consume(shared *s, uint64_t *got, uint64_t *bad) {
  unsigned char b[MAXLEN], want[MAXLEN];
  int64_t last = -1;
  for (;;) {
    uint32_t kind, i;
    size_t len;
    int done = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
    if (!li_ring_peek(s->r, &kind, &len)) {
      if (done && !li_ring_peek(s->r, &kind, &len)) break;
      continue;
    }
    if (li_ring_get(s->r, &kind, b, sizeof b) != len) { (*bad)++; continue; }
    (*got)++;
    if (len == 0) {                   /* an empty record: i % 97 == 0 */
      CHECK(kind == 1 || kind <= 7, "empty record kind %u", kind);
      continue;
    }
    memcpy(&i, b, 4);
    fill(i, want, len);
    if ((int64_t)i <= last || len != len_of(i) || kind != i % 7 + 1 ||
        memcmp(b, want, len) != 0) {
      if ((*bad)++ < 5)
        fprintf(stderr, "record %u after %lld: len %zu kind %u\n", i,
                (long long)last, len, kind);
    }
    last = i;
  }
}

/* A 4 kB ring, a producer that never waits: most records are dropped,
** the rest arrive whole and in order, and the two add up. */
static void two_threads(size_t bytes) {
  shared s = {li_ring_new(bytes), 0, 0};
  pthread_t t;
  uint64_t got = 0, bad = 0;
  CHECK(s.r != NULL, "ring");
  CHECK(pthread_create(&t, NULL, producer, &s) == 0, "thread");
  consume(&s, &got, &bad);
  pthread_join(t, NULL);
  CHECK(bad == 0, "%llu records out of order or damaged", (unsigned long long)bad);
  CHECK(got == s.put_ok, "read %llu, posted %llu", (unsigned long long)got,
        (unsigned long long)s.put_ok);
  CHECK(got + li_ring_dropped(s.r) == RECORDS, "read %llu + dropped %llu != %u",
        (unsigned long long)got, (unsigned long long)li_ring_dropped(s.r), RECORDS);
  printf("two threads, ring of %zu bytes: %llu read, %llu dropped\n", bytes,
         (unsigned long long)got, (unsigned long long)li_ring_dropped(s.r));
  li_ring_free(s.r);
}

/* One thread: sizes at the edges, wrap with a padding record, full. */
static void edges(void) {
  li_ring *r = li_ring_new(100);      /* rounded up to 4096 */
  static unsigned char big[8192], out[8192];
  uint32_t kind;
  size_t len;
  CHECK(r != NULL, "ring");
  CHECK(!li_ring_peek(r, &kind, &len), "a new ring is empty");
  CHECK(li_ring_get(r, &kind, out, sizeof out) == 0, "nothing to get");
  /* larger than the ring: dropped, counted */
  CHECK(li_ring_put(r, 3, big, 4097, NULL, 0) == 0, "oversize taken");
  CHECK(li_ring_dropped(r) == 1, "oversize not counted");
  /* the largest record that fits: the ring less its header */
  memset(big, 0xab, sizeof big);
  CHECK(li_ring_put(r, 4, big, 4096 - 8, NULL, 0) == 1, "a full-ring record");
  CHECK(li_ring_put(r, 5, big, 1, NULL, 0) == 0, "no room: dropped");
  CHECK(li_ring_dropped(r) == 2, "drop not counted");
  CHECK(li_ring_peek(r, &kind, &len) && kind == 4 && len == 4088, "peek");
  CHECK(li_ring_get(r, &kind, out, 100) == 0 && li_ring_peek(r, &kind, &len),
        "a small buffer takes nothing");
  CHECK(li_ring_get(r, &kind, out, sizeof out) == 4088 && memcmp(out, big, 4088) == 0,
        "get");
  /* now at offset 4096 = 0 again; advance to 4000, then a record of 200
  ** crosses the end: padding, and it starts the buffer */
  CHECK(li_ring_put(r, 6, big, 3992, NULL, 0) == 1, "advance");
  CHECK(li_ring_get(r, &kind, out, sizeof out) == 3992, "advance read");
  for (int i = 0; i < 200; i++) big[i] = (unsigned char)i;
  CHECK(li_ring_put(r, 7, big, 100, big + 100, 100) == 1, "across the end");
  CHECK(li_ring_peek(r, &kind, &len) && kind == 7 && len == 200, "after padding");
  CHECK(li_ring_get(r, &kind, out, sizeof out) == 200 && memcmp(out, big, 200) == 0,
        "across the end: bytes");
  CHECK(!li_ring_peek(r, &kind, &len), "empty again");
  /* an empty record */
  CHECK(li_ring_put(r, 9, NULL, 0, NULL, 0) == 1, "empty record");
  CHECK(li_ring_peek(r, &kind, &len) && kind == 9 && len == 0, "empty record peek");
  CHECK(li_ring_get(r, &kind, out, sizeof out) == 0 && !li_ring_peek(r, &kind, &len),
        "empty record taken");
  li_ring_free(r);
  printf("edges: done\n");
}

/* The channel's flag, set by one thread and taken by another. */
static void *setter(void *arg) {
  li_live_chan *c = arg;
  for (int i = 0; i < 100000; i++) li_live_flag_set(c);
  return NULL;
}

static void flag(void) {
  li_live_chan c;
  pthread_t t;
  int taken = 0;
  memset(&c, 0, sizeof c);
  CHECK(!li_live_flag_take(&c), "a new flag is clear");
  li_live_flag_set(&c);
  CHECK(li_live_flag_take(&c) && !li_live_flag_take(&c), "set, taken, clear");
  CHECK(pthread_create(&t, NULL, setter, &c) == 0, "thread");
  for (int i = 0; i < 100000; i++) taken += li_live_flag_take(&c);
  pthread_join(t, NULL);
  taken += li_live_flag_take(&c);
  CHECK(taken >= 1, "never seen set");
  printf("flag: taken %d times\n", taken);
}

int main(void) {
  edges();
  flag();
  two_threads(4096);
  two_threads(1u << 20);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
