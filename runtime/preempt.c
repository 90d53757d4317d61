/*
** preempt.c -- time the thread spent preempted (runnable, waiting for a
** CPU), measured and taken out of every call that was open then.
**
** On a busy machine the profiled program is preempted in proportion to how
** long it runs, and it runs several times longer than a plain one when
** most of its time is the probes' own (call-heavy code): a preemption that
** lands in the probes' time was added to the calls around it, which then
** read 2-3 times their true time with two busy processes beside them
** (docs/measuring.md).  Preemptions are long (a scheduler slice: 1-10 ms
** under load here) and rare, so each one shows as a long step between two
** probes' clock reads.  A probe that sees a step longer than gap_thr asks
** the kernel how long the thread waited on a run queue since it last
** asked (Linux's per-thread schedstat, its run_delay: a wait for a CPU
** only, never a sleep or I/O, which stay in the calls as wall time), and
** excludes that wait, up to the step's length, from every open call of the
** running stack and of the stacks waiting in a resume under it.  Asking
** costs a system call (4 us in this VM): the threshold doubles after each
** step that found no wait, up to GAP_MAX, and falls back to GAP_MIN after
** one that found some, so an idle machine asks rarely.
*/
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#define LI_HAVE_SCHEDSTAT 1
#else
#define LI_HAVE_SCHEDSTAT 0
#endif

#define GAP_MIN_NS 200000.0     /* shortest step that asks (200 us) */
#define OWN_MAX_NS 20000.0      /* longest span of the probes' own work that
                                   counts as theirs (li_stack_own) */
#define GAP_MAX_NS 5000000.0    /* longest threshold (5 ms) */

#if LI_HAVE_SCHEDSTAT
/* The thread's run_delay (ns waited on a run queue) from its schedstat
** (fd open on /proc/thread-self/schedstat); 0: unreadable. */
static int read_delay(int fd, uint64_t *delay) {
  char buf[96];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  char *p, *end;
  if (n <= 0) return 0;
  buf[n] = '\0';
  (void)strtoull(buf, &p, 10);                 /* time on the CPU */
  *delay = strtoull(p, &end, 10);
  return end != p;
}

/* (Re)open the running thread's schedstat and take its figure as the
** baseline: 0 if there is none to read. */
static int open_thread(li_prof *P) {
  if (P->gap_fd >= 0) close(P->gap_fd);
  P->gap_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  P->gap_thread = (uint64_t)pthread_self();
  if (P->gap_fd < 0) return 0;
  if (!read_delay(P->gap_fd, &P->gap_delay)) {
    close(P->gap_fd);
    P->gap_fd = -1;
    return 0;
  }
  return 1;
}

/* The threshold in ticks for `ns` ns. */
static uint64_t thr_ticks(const li_prof *P, double ns) {
  double k = li_clock_ns_per_tick_now(&P->clock);
  return (uint64_t)(ns / (k > 0 ? k : 1)) + 1;
}
#endif

void li_gap_start(li_prof *P, uint64_t t) {
  double k = li_clock_ns_per_tick_now(&P->clock);
  P->own_max = (uint64_t)(OWN_MAX_NS / (k > 0 ? k : 1)) + 1;
  P->gap_at = UINT64_MAX;               /* never asks: */
  P->gap_thr = (uint64_t)1 << 62;       /* (the probes add it to gap_at) */
#if LI_HAVE_SCHEDSTAT
  /* (a host's clock may be virtual: its steps are not the thread's) */
  if (!P->clock.host && !P->gap_off && open_thread(P)) {
    P->gap_thr = thr_ticks(P, GAP_MIN_NS);
    P->gap_at = t + P->gap_thr;
  }
#else
  (void)t;
#endif
}

void li_gap_free(li_prof *P) {
#if LI_HAVE_SCHEDSTAT
  if (P->gap_fd >= 0) close(P->gap_fd);
#endif
  P->gap_fd = -1;
  P->gap_at = UINT64_MAX;
  P->gap_thr = (uint64_t)1 << 62;
}

LI_NOINLINE uint64_t li_gap(li_prof *P, uint64_t t) {
#if LI_HAVE_SCHEDSTAT
  uint64_t d = t - (P->gap_at - P->gap_thr), delay, e;
  double k;
  if (P->gap_fd < 0) return 0;
  k = li_clock_ns_per_tick_now(&P->clock);
  if (k <= 0) k = 1;
  if ((uint64_t)pthread_self() != P->gap_thread) {      /* another thread */
    open_thread(P);
    return 0;
  }
  if (!read_delay(P->gap_fd, &delay)) return 0;
  e = delay > P->gap_delay ? (uint64_t)((double)(delay - P->gap_delay) / k) : 0;
  P->gap_delay = delay;
  if (e > d) e = d;                     /* (waits before this step: here) */
  if (e == 0) {
    P->gap_thr = P->gap_thr * 2 < thr_ticks(P, GAP_MAX_NS) ? P->gap_thr * 2
                                                          : thr_ticks(P, GAP_MAX_NS);
    return 0;
  }
  P->gap_thr = thr_ticks(P, GAP_MIN_NS);
  P->preempted += e;
  /* every call open now was open during the step: those of every stack
  ** not suspended (li_stack_pre) */
  P->pre_clock += e;
  return e;
#else
  (void)P; (void)t;
  return 0;
#endif
}
