/*
** clock.c -- the profiler's clock.  The cheapest monotonic clock with
** nanosecond resolution: the invariant TSC of x86 CPUs (one instruction,
** about 7 ns here against about 20 ns for clock_gettime through the vDSO),
** calibrated against CLOCK_MONOTONIC; CLOCK_MONOTONIC itself elsewhere.
*/
#define _POSIX_C_SOURCE 200809L

#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "runtime.h"

/* Shortest span to calibrate over.  With pairs read as read_pair does,
** the tick length over 1 ms is within 1e-6 of its value over 1 s on the
** test machine (single pairs needed 20 ms for 1.5e-4), so a short run
** waits at most 1 ms for its report. */
#define CALIBRATION_NS 1000000u
#define PAIR_TRIES 5              /* reads of a pair, the narrowest kept */

uint64_t li_clock_mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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

void li_clock_init(li_clock *c) {
  c->tsc = invariant_tsc();
  c->ns_per_tick = 1.0;
  if (c->tsc) read_pair(c, &c->base_ns, &c->base_ticks);
  else c->base_ns = c->base_ticks = li_clock_mono_ns();
}

void li_clock_calibrate(li_clock *c) {
  uint64_t ns, ticks;
  if (!c->tsc) return;
  do {
    read_pair(c, &ns, &ticks);
  } while (ns - c->base_ns < CALIBRATION_NS);
  if (ticks > c->base_ticks)
    c->ns_per_tick = (double)(ns - c->base_ns) / (double)(ticks - c->base_ticks);
}

const char *li_clock_name(const li_clock *c) {
  return c->tsc ? "tsc" : "clock_gettime(CLOCK_MONOTONIC)";
}
