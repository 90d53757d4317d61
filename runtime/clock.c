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

#define CALIBRATION_NS 20000000u  /* shortest span to calibrate over */

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

void li_clock_init(li_clock *c) {
  c->tsc = invariant_tsc();
  c->ns_per_tick = 1.0;
  c->base_ns = li_clock_mono_ns();
  c->base_ticks = li_clock_ticks(c);
}

void li_clock_calibrate(li_clock *c) {
  uint64_t ns, ticks;
  if (!c->tsc) return;
  do {
    ns = li_clock_mono_ns();
    ticks = li_clock_ticks(c);
  } while (ns - c->base_ns < CALIBRATION_NS);
  if (ticks > c->base_ticks)
    c->ns_per_tick = (double)(ns - c->base_ns) / (double)(ticks - c->base_ticks);
}

const char *li_clock_name(const li_clock *c) {
  return c->tsc ? "tsc" : "clock_gettime(CLOCK_MONOTONIC)";
}
