/*
** clock.c -- the profiler's clock.  The cheapest monotonic clock with
** nanosecond resolution: the invariant TSC of x86 CPUs (one instruction,
** about 7 ns here against about 20 ns for clock_gettime through the vDSO),
** calibrated against CLOCK_MONOTONIC; in WebAssembly performance.now(),
** read straight from JavaScript; CLOCK_MONOTONIC itself elsewhere;
** or the host's own clock (a WebAssembly host's performance.now()), whose
** tick length the host gives or we calibrate as the TSC's.
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#include "runtime.h"

/* Shortest span to calibrate over: a shorter run waits for the rest at
** its report.  With pairs read as read_pair does, each end is known within
** some 25 ns, so the tick length over a span s is within about 50 ns / s
** (over 1 ms within 1e-6 of its value over 1 s on the test machine): every
** figure of a run lies inside its span, so none is off by more than about
** 50 ns, whatever s.  0.2 ms, not the 1 ms it was: a short script's report
** waited 0.8 ms more for a precision no figure of it could show (issue 32's
** start-up). */
#define CALIBRATION_NS 200000u
#define PAIR_TRIES 5              /* reads of a pair, the narrowest kept */

/* The resolution is the smallest of RES_STEPS changes of the clock: on a
** TSC about one read (some 30 ticks), on a clock of 100 us steps 0.8 ms
** of start-up; a clock that never moves is given up after RES_MAX_NS, or
** after RES_MAX_READS reads when CLOCK_MONOTONIC does not move either (a
** browser's virtual time: headless Chromium freezes performance.now()). */
#define RES_STEPS 8
#define RES_MAX_NS 20000000u
#define RES_MAX_READS (1u << 20)
/* The same for the calibration's span (some 50 ns a pair of reads). */
#define CALIBRATION_MAX_PAIRS (1u << 20)

uint64_t li_clock_mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifndef __EMSCRIPTEN__
/* Does the CPU say its TSC runs at a constant rate in every state
** (CPUID 0x80000007, EDX bit 8)?  Without that the TSC is not a clock. */
static int invariant_tsc(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u) return 0;
  __cpuid(0x80000007u, a, b, c, d);
  (void)a; (void)b; (void)c;
  return (d >> 8) & 1u;
#else
  return 0;
#endif
}
#endif

/* A CLOCK_MONOTONIC time and the ticks at the same moment: the monotonic
** read between two tick reads, from the try whose two tick reads are
** closest (an interrupt or a preemption between the reads widens them),
** with the ticks taken halfway. */
static void read_pair(const li_clock *c, uint64_t *ns, uint64_t *ticks) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < PAIR_TRIES; i++) {
    uint64_t a = li_clock_ticks(c);
    uint64_t n = li_clock_mono_ns();
    uint64_t b = li_clock_ticks(c);
    if (b >= a && b - a < best) {
      best = b - a;
      *ns = n;
      *ticks = a + (b - a) / 2;
    }
  }
  if (best == UINT64_MAX) {  /* ticks went backwards every time */
    *ns = li_clock_mono_ns();
    *ticks = li_clock_ticks(c);
  }
}

#ifdef __EMSCRIPTEN__
/* The inline clock of WebAssembly: performance.now() in ns, one call into
** JavaScript (bench/wasm/clock_cost.c, docs/wasm.md: clock_gettime and
** emscripten_get_now() reach the same time through more JavaScript, under
** node process.hrtime(), an array per read; Date.now() steps by 1 ms; a
** browser steps performance.now() by 100 us, 5 us when the page is
** cross-origin isolated).  Where a SharedArrayBuffer is allowed, the
** programs' pre-js (cmake/wasm-clock.js) reads it from a word a worker
** keeps current, checked against performance.now() every 64 reads.
** The time is stored into *cell rather than returned (a double returned
** from JavaScript is a heap object made per read; cmake/wasm-clock.js's
** liClockInto). */
double li_clock_js_cell;
EM_JS(void, li_clock_js_into, (double *cell), {
  if (liClockInto !== null) liClockInto(cell);
  else HEAPF64[cell >> 3] = performance.now() * 1e6;
});
/* Waits up to ms for the worker's word (cmake/wasm-clock.js); 1 when the
** reads are the word's. */
EM_JS(int, li_clock_js_settle, (double ms), {
  var c = Module['liClock'];
  return c !== undefined ? c.settle(ms) : 0;
});
#define WORD_SETTLE_MS 500.0
/* 1 while the reads are the word's. */
EM_JS(int, li_clock_js_word, (void), {
  var c = Module['liClock'];
  return c !== undefined && c.word() ? 1 : 0;
});
#endif

void li_clock_init(li_clock *c) {
#ifdef __EMSCRIPTEN__
  c->tsc = 1;
  c->host = NULL;
  c->host_ud = NULL;
  c->shift = 0;
  c->calibrate = 0;     /* ns already */
  c->ns_per_tick = 1.0;
  c->resolution = 0;
  snprintf(c->name, sizeof c->name, "performance.now()");
  c->base_ns = li_clock_mono_ns();
  c->base_ticks = li_clock_inline_ticks();
#else
  c->tsc = invariant_tsc();
  c->host = NULL;
  c->host_ud = NULL;
  c->shift = 0;
  c->calibrate = c->tsc;
  c->ns_per_tick = 1.0;
  c->resolution = 0;
  snprintf(c->name, sizeof c->name, "%s",
           c->tsc ? "tsc" : "clock_gettime(CLOCK_MONOTONIC)");
  if (c->tsc) read_pair(c, &c->base_ns, &c->base_ticks);
  else c->base_ns = c->base_ticks = li_clock_mono_ns();
#endif
}

/* The shift that makes a tick of ns_per_tick ns 1-2 ns long (0 for a
** tick of 2 ns or less). */
static unsigned shift_for(double ns_per_tick) {
  unsigned s = 0;
  while (s < 40 && ns_per_tick / (double)(2ull << s) >= 1.0) s++;
  return s;
}

void li_clock_init_host(li_clock *c, const char *name, li_clock_fn fn,
                        void *ud, double ns_per_tick) {
  c->tsc = 0;
  c->host = fn;
  c->host_ud = ud;
  c->shift = 0;
  /* NaN, infinities, 0 and below: not a length, so measure it */
  c->calibrate = !(isfinite(ns_per_tick) && ns_per_tick > 0);
  c->ns_per_tick = c->calibrate ? 1.0 : ns_per_tick;
  if (!c->calibrate) {
    c->shift = shift_for(ns_per_tick);
    c->ns_per_tick = ns_per_tick / (double)(1ull << c->shift);
  }
  c->resolution = 0;
  snprintf(c->name, sizeof c->name, "%s", name != NULL ? name : "host");
  read_pair(c, &c->base_ns, &c->base_ticks);
}

void li_clock_calibrate(li_clock *c) {
  uint64_t ns, ticks;
  uint32_t pairs = 0;
  if (!c->calibrate) return;
  do {
    read_pair(c, &ns, &ticks);
  } while (ns - c->base_ns < CALIBRATION_NS && ++pairs < CALIBRATION_MAX_PAIRS);
  if (ticks > c->base_ticks)
    c->ns_per_tick = (double)(ns - c->base_ns) / (double)(ticks - c->base_ticks);
}

double li_clock_ns_per_tick_now(const li_clock *c) {
  uint64_t ns, ticks;
  if (!c->calibrate) return c->ns_per_tick;
  ns = li_clock_mono_ns();
  ticks = li_clock_ticks(c);
  if (ns - c->base_ns < CALIBRATION_NS || ticks <= c->base_ticks)
    return c->ns_per_tick;
  return (double)(ns - c->base_ns) / (double)(ticks - c->base_ticks);
}

/* Two consecutive reads that differ differ by at least one step of the
** clock, and by at least the time one read takes: the smallest difference
** seen is the finest time the probes can tell apart. */
static void measure_resolution(li_clock *c) {
  uint64_t best = 0, prev = li_clock_ticks(c);
  uint64_t deadline = li_clock_mono_ns() + RES_MAX_NS;
  int seen = 0;
  for (uint32_t reads = 0; seen < RES_STEPS && reads < RES_MAX_READS; reads += 256) {
    for (int i = 0; i < 256 && seen < RES_STEPS; i++) {
      uint64_t t = li_clock_ticks(c);
      if (t == prev) continue;
      if (t > prev && (best == 0 || t - prev < best)) best = t - prev;
      prev = t;
      seen++;
    }
    if (seen < RES_STEPS && li_clock_mono_ns() > deadline) break;
  }
  c->resolution = best;
}

void li_clock_start(li_clock *c) {
#ifdef __EMSCRIPTEN__
  if (c->tsc)
    snprintf(c->name, sizeof c->name, "%s", li_clock_js_settle(WORD_SETTLE_MS)
             ? "performance.now() (worker's word)" : "performance.now()");
#endif
  measure_resolution(c);
  if (c->host != NULL && c->calibrate && c->shift == 0) {
    unsigned s;
    li_clock_calibrate(c);
    s = shift_for(c->ns_per_tick);
    /* nothing has read the clock for the profile yet: rescale in place */
    c->shift = s;
    c->base_ticks <<= s;
    c->resolution <<= s;
    c->ns_per_tick /= (double)(1ull << s);
  }
}

uint64_t li_clock_epoch_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0 || ts.tv_sec <= 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *li_clock_name(const li_clock *c) {
#ifdef __EMSCRIPTEN__
  /* (the word may have been given up since the start) */
  if (c->tsc) return li_clock_js_word() ? "performance.now() (worker's word)"
                                        : "performance.now()";
#endif
  return c->name;
}
