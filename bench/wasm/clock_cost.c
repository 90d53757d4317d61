/*
** clock_cost.c -- what one read of each clock a probe could use costs, and
** how fine it is: a loop of N reads of each clock, the fastest of
** many short passes, in ns per read (the loop's own cost, an empty loop of the same
** shape, subtracted), and the resolution, the smallest nonzero difference
** of two consecutive reads (as runtime/clock.c measures it).  Built by
** cmake/Wasm.cmake for node (clock_cost.js) and for a page
** (clock_cost_web.js, which bench/wasm/chromium.js runs in headless
** Chromium); bench/run.sh --wasm runs both.  Natively: rdtsc and
** clock_gettime.
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
#elif defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One clock, read as the profiler reads it: an integer count of ns. */
typedef uint64_t (*reader)(void);

static uint64_t r_none(void) { return 0; }
static uint64_t r_mono(void) { return mono_ns(); }
#ifdef __EMSCRIPTEN__
static uint64_t r_now(void) { return (uint64_t)(emscripten_get_now() * 1e6); }
/* performance.now() straight from JavaScript (emscripten 3.1.6's
** emscripten_get_now is process.hrtime() under node, an array per read) */
EM_JS(double, js_perf_now, (void), { return performance.now(); });
static uint64_t r_perf(void) { return (uint64_t)(js_perf_now() * 1e6); }
/* the same, scaled to ns in JavaScript (what runtime/clock.c calls) */
EM_JS(double, js_perf_now_ns, (void), { return performance.now() * 1e6; });
static uint64_t r_perf_ns(void) { return (uint64_t)js_perf_now_ns(); }
/* the same, stored into a C double instead of returned (a double returned
** from JavaScript is a heap object made per call) */
static double cell;
EM_JS(void, js_perf_into, (double *p), { HEAPF64[p >> 3] = performance.now() * 1e6; });
static uint64_t r_perf_into(void) { js_perf_into(&cell); return (uint64_t)cell; }
/* Date.now(): ms steps, listed for what a call costs, not a clock to use */
EM_JS(double, js_date_now, (void), { return Date.now(); });
static uint64_t r_date(void) { return (uint64_t)(js_date_now() * 1e6); }
/* A clock word: a worker writes performance.now() into a SharedArrayBuffer
** as fast as it can (clock_word_start, below) and a read is one load of it
** from JavaScript.  It costs a core while it runs, and it stops when the
** worker is not scheduled (a busy machine: the reads go stale). */
EM_JS(double, js_word, (void), { return Module.clockWord ? Module.clockWord[0] * 1e6 : 0; });
static uint64_t r_word(void) { return (uint64_t)js_word(); }
/* Starts the worker; 1 when the word is running (SharedArrayBuffer and
** workers available: node, or a cross-origin isolated page). */
EM_JS(int, clock_word_start, (void), {
  if (typeof SharedArrayBuffer === 'undefined') return 0;
  var sab = new SharedArrayBuffer(16);
  var src = "var w; function go(sab, now) { w = new Float64Array(sab); " +
            "for (;;) { w[0] = now(); } }";
  try {
    if (typeof process === 'object' && typeof require === 'function') {
      var wt = require('worker_threads');
      var worker = new wt.Worker(src + "var wt = require('worker_threads'); " +
        "var d = wt.workerData.origin - performance.timeOrigin; " +
        "go(wt.workerData.sab, function () { return performance.now() - d; });",
        { eval: true, workerData: { sab: sab, origin: performance.timeOrigin } });
      worker.unref();
    } else {
      var blob = new Blob([src + "onmessage = function (e) { var d = e.data.origin - performance.timeOrigin; " +
        "go(e.data.sab, function () { return performance.now() - d; }); };"]);
      var wk = new Worker(URL.createObjectURL(blob));
      wk.postMessage({ sab: sab, origin: performance.timeOrigin });
    }
  } catch (e) { return 0; }
  Module.clockWord = new Float64Array(sab);
  return 1;
});
/* The runtime's clock as runtime/clock.c's probes read it (cmake/wasm-clock.js:
** the worker's word where SharedArrayBuffer is allowed, stored into a C
** double by liClockInto); settle starts it. */
EM_JS(void, js_liclock, (double *p), {
  if (liClockInto !== null) liClockInto(p);
  else HEAPF64[p >> 3] = performance.now() * 1e6;
});
static uint64_t r_liclock(void) { js_liclock(&cell); return (uint64_t)cell; }
EM_JS(void, js_liclock_stalls, (void), {
  var c = Module['liClock'];
  if (c !== undefined) out("    (" + c.stalls() + (c.word() ? "" : ", given up") + ")");
});
EM_JS(int, js_liclock_settle, (void), {
  var c = Module['liClock'];
  return c !== undefined ? c.settle(500) : 0;
});
/* the crossing alone: a JavaScript function that returns a constant */
EM_JS(double, js_const, (void), { return 1.5; });
static uint64_t r_const(void) { return (uint64_t)(js_const() * 1e6); }
#elif defined(__x86_64__) || defined(__i386__)
static uint64_t r_tsc(void) { return (uint64_t)__rdtsc(); }
#endif

static volatile uint64_t sink;

static uint64_t pass_ns;        /* a pass lasts at least this (set in main) */

/* ns of one pass of n reads of r. */
static uint64_t pass(reader r, long n) {
  uint64_t acc = 0, t0 = mono_ns();
  for (long i = 0; i < n; i++) acc += r();
  uint64_t t1 = mono_ns();
  sink = acc;
  return t1 - t0;
}

/* ns per read of r through a call by pointer (as the runtime calls a host
** clock), as mono_ns measures it: the fastest of many short passes, about
** total reads in all.  Short passes, so that on a busy machine some run
** with no preemption (a scheduler's slice is milliseconds); each long
** enough for mono_ns's resolution (a browser's 5 or 100 us) to read it to
** 1 %. */
static double per_read(reader volatile *rp, long total) {
  reader r = *rp;
  long n = 1000, passes;
  double best = 1e30;
  while (pass(r, n) < pass_ns && n < (1L << 28)) n *= 2;
  passes = total / n < 20 ? 20 : total / n;
  for (long i = 0; i < passes; i++) {
    double d = (double)pass(r, n) / (double)n;
    if (d < best) best = d;
  }
  return best;
}

/* The smallest nonzero step of r over 64 steps or 200 ms, in r's units
** (0: it never moved). */
static uint64_t resolution(reader volatile *rp) {
  reader r = *rp;
  uint64_t best = 0, prev = r(), end = mono_ns() + 200000000u;
  for (int seen = 0; seen < 64 && mono_ns() < end;) {
    for (int i = 0; i < 1000; i++) {
      uint64_t t = r();
      if (t == prev) continue;
      if (t > prev && (best == 0 || t - prev < best)) best = t - prev;
      prev = t;
      seen++;
    }
  }
  return best;
}

static double base;

static void show(const char *name, reader volatile *rp, long n, double ticks_ns) {
  double cost = per_read(rp, n) - base;
  uint64_t res = resolution(rp);
  printf("  %-34s %8.2f ns  resolution %10.1f ns\n", name, cost, (double)res * ticks_ns);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 5000000L;
  static reader volatile none = r_none, mono = r_mono;
  /* passes of at least 1 ms and 100 steps of mono_ns */
  pass_ns = 100 * resolution(&mono);
  if (pass_ns < 1000000u) pass_ns = 1000000u;
  base = per_read(&none, n);
  printf("clock_cost: %ld reads, ns per read (empty call loop %.2f ns subtracted), resolution\n",
         n, base);
  show("clock_gettime(CLOCK_MONOTONIC)", &mono, n, 1.0);
#ifdef __EMSCRIPTEN__
  static reader volatile now = r_now, perf = r_perf, perf_ns = r_perf_ns, date = r_date,
                         word = r_word, cst = r_const, perf_into = r_perf_into;
  show("emscripten_get_now()", &now, n, 1.0);
  show("performance.now() (EM_JS, ms)", &perf, n, 1.0);
  show("performance.now()*1e6 (EM_JS, ns)", &perf_ns, n, 1.0);
  show("the same, stored, not returned", &perf_into, n, 1.0);
  show("Date.now() (EM_JS)", &date, n, 1.0);
  printf("  (a JavaScript call returning 1.5: %.2f ns)\n", per_read(&cst, n) - base);
  /* last: the workers take a core from here on */
  static reader volatile lic = r_liclock;
  show(js_liclock_settle() ? "the runtime's: a worker's word" : "the runtime's: performance.now()",
       &lic, n, 1.0);
  js_liclock_stalls();
  if (clock_word_start()) {
    /* wait until the worker writes (its start takes milliseconds) */
    uint64_t end = mono_ns() + 2000000000u;
    while (r_word() == 0 && mono_ns() < end) {}
    if (r_word() != 0) show("a worker's word (SharedArrayBuffer)", &word, n, 1.0);
    else printf("  a worker's word (SharedArrayBuffer): the worker did not start in 2 s\n");
  } else {
    printf("  a worker's word (SharedArrayBuffer): no SharedArrayBuffer or Worker here\n");
  }
#elif defined(__x86_64__) || defined(__i386__)
  static reader volatile tsc = r_tsc;
  show("rdtsc (ticks)", &tsc, n, 1.0);
#endif
  return 0;
}
