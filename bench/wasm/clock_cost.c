/*
** clock_cost.c -- what one clock read costs: a loop of N reads of each
** clock, the fastest of five passes, in ns per read (the loop's own cost,
** an empty loop of the same shape, subtracted).  Built for node by
** cmake/Wasm.cmake (bench/run.sh --wasm runs it) and natively.
**
**   clock_cost [N]      (default 5,000,000)
*/
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One clock, read as the profiler reads it: an integer count. */
typedef uint64_t (*reader)(void);

static uint64_t r_none(void) { return 0; }
static uint64_t r_mono(void) { return mono_ns(); }
#ifdef __EMSCRIPTEN__
static uint64_t r_now(void) { return (uint64_t)(emscripten_get_now() * 1e6); }
/* performance.now() straight from JavaScript (emscripten 3.1.6's
** emscripten_get_now is process.hrtime() under node, an array per read) */
EM_JS(double, js_perf_now, (void), { return performance.now(); });
static uint64_t r_perf(void) { return (uint64_t)(js_perf_now() * 1e6); }
/* the crossing alone: a JavaScript function that returns a constant */
EM_JS(double, js_const, (void), { return 1.5; });
static uint64_t r_const(void) { return (uint64_t)(js_const() * 1e6); }
#endif

static volatile uint64_t sink;

/* ns per read of r: the fastest of 5 passes of n reads through a call by
** pointer (as the runtime calls a host clock), as mono_ns measures it. */
static double per_read(reader volatile *rp, long n) {
  double best = 1e30;
  for (int pass = 0; pass < 5; pass++) {
    reader r = *rp;
    uint64_t acc = 0, t0 = mono_ns();
    for (long i = 0; i < n; i++) acc += r();
    uint64_t t1 = mono_ns();
    sink = acc;
    double d = (double)(t1 - t0) / (double)n;
    if (d < best) best = d;
  }
  return best;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 5000000L;
  static reader volatile none = r_none, mono = r_mono;
  double base = per_read(&none, n);
  double m = per_read(&mono, n);
  printf("clock_cost: %ld reads, ns per read (empty call loop %.2f ns subtracted)\n", n, base);
  printf("  clock_gettime(CLOCK_MONOTONIC) %8.2f\n", m - base);
#ifdef __EMSCRIPTEN__
  static reader volatile now = r_now;
  double e = per_read(&now, n);
  printf("  emscripten_get_now()           %8.2f\n", e - base);
  static reader volatile perf = r_perf;
  double pn = per_read(&perf, n);
  printf("  performance.now() (EM_JS)      %8.2f\n", pn - base);
  static reader volatile cst = r_const;
  double c = per_read(&cst, n);
  printf("  (a JavaScript call returning 1.5: %.2f)\n", c - base);
#endif
  return 0;
}
