/*
** runtime.h -- what the parts of the runtime share (internal).
**
**   clock.c      the clock: TSC, CLOCK_MONOTONIC or the host's; ticks -> ns
**   profiler.c   one profiler per lua_State: the probe (entry/exit), its
**                factory, zones, the profiler's life
**   calltree.c   function records and call-tree nodes
**   stacks.c     per-coroutine shadow stacks, thread switches, inferred
**                resumes
**   calibrate.c  the probe pair's cost
**   boundary.c   pcall/xpcall/coroutine replacements: where errors are
**                caught and coroutines switch, so frames close exactly
**   snapshot.c   the profile model (report/report.h) from a profiler
**   loader.c     the instrumenting loader every entry point goes through
**   stdloaders.c the standard library's load/loadfile/dofile/require
**                replaced by versions that go through it
**   wrap.c       the swappable wrap_ entry points (luainstr_wrap.h) and
**                the profiler's loaders, lua_resume and lua_pcall
**   lapi.c       the C API of include/luainstr.h and the Lua module
**   run.c        running a script as lua.c does, the report written once
**                at the end (luaprof and the luainstr.run module)
*/
#ifndef LI_RUNTIME_H
#define LI_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>
#include "luaver.h"
#include "report.h"

typedef struct li_prof li_prof;

/* ---- clock.c ------------------------------------------------------------
** Ticks are TSC cycles where the CPU has an invariant TSC (x86), else
** nanoseconds of CLOCK_MONOTONIC, unless the host supplied its own clock
** (luainstr_set_clock).  A tick length that is not known (TSC, or a host
** clock given without one) is calibrated against CLOCK_MONOTONIC over the
** whole run: base pair at init, fresh pair at each conversion. */
typedef unsigned long long (*li_clock_fn)(void *ud);  /* luainstr_clock */

typedef struct li_clock {
  int tsc;              /* 1: ticks are TSC cycles, or in WebAssembly ns
                           of the inline clock (tested first: the
                           default clock's read costs what it did) */
  li_clock_fn host;     /* the host's clock (NULL: ours) */
  void *host_ud;        /* its argument */
  unsigned shift;       /* the host's ticks are taken << shift, so that a
                           tick is 1-2 ns and probe costs (tens of ns) are
                           many ticks even if the host counts in us or ms */
  int calibrate;        /* the tick length is measured, not given */
  uint64_t base_ticks;  /* ticks at init */
  uint64_t base_ns;     /* CLOCK_MONOTONIC ns at init */
  double ns_per_tick;   /* given, or the last calibration (1.0 for ns) */
  uint64_t resolution;  /* ticks: the smallest nonzero difference of two
                           consecutive reads seen at start (0: unknown) */
  char name[48];        /* for the report */
} li_clock;

/* Our own clock (TSC or CLOCK_MONOTONIC). */
void li_clock_init(li_clock *c);
/* The host's clock fn(ud), ns_per_tick ns a tick (0: unknown, calibrate it
** against CLOCK_MONOTONIC); name for the report (NULL: "host"). */
void li_clock_init_host(li_clock *c, const char *name, li_clock_fn fn,
                        void *ud, double ns_per_tick);
uint64_t li_clock_mono_ns(void);
/* The tick length as far as it is known now, without waiting (one read
** of each clock; before 1 ms of the run the last calibration's). */
double li_clock_ns_per_tick_now(const li_clock *c);
/* Recalibrate (spinning up to 1 ms if the run is shorter than that). */
void li_clock_calibrate(li_clock *c);
/* At the first start: measure c->resolution (reads until the clock has
** changed a few times, at most about 20 ms of CLOCK_MONOTONIC for a clock
** that never does); a host clock of unknown tick length is calibrated now
** (1 ms) to choose its shift. */
void li_clock_start(li_clock *c);
const char *li_clock_name(const li_clock *c);

/* The time of day, ns since the Unix epoch (CLOCK_REALTIME), for reports
** that state when they were taken; 0 when the system cannot say. */
uint64_t li_clock_epoch_ns(void);

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* The clock read with no call through a pointer (the probe's fast path):
** when c->tsc. */
#define LI_CLOCK_INLINE(c) ((c)->tsc)
#define li_clock_inline_ticks() ((uint64_t)__rdtsc())
#define LI_HAVE_INLINE_CLOCK 1
#elif defined(__EMSCRIPTEN__)
/* WebAssembly has no clock of its own: the inline clock is one call into
** JavaScript (clock.c: performance.now(), ns), and c->tsc says it is the
** clock in use.  The fast path runs with it as with the TSC. */
#define LI_CLOCK_INLINE(c) ((c)->tsc)
void li_clock_js_into(double *cell);
extern double li_clock_js_cell;
static inline uint64_t li_clock_js_ticks(void) {
  li_clock_js_into(&li_clock_js_cell);
  return (uint64_t)li_clock_js_cell;
}
#define li_clock_inline_ticks() li_clock_js_ticks()
#define LI_HAVE_INLINE_CLOCK 1
#else
/* (no clock is read without a call here) */
#define LI_CLOCK_INLINE(c) ((void)(c), 0)
#define li_clock_inline_ticks() ((uint64_t)0)
#define LI_HAVE_INLINE_CLOCK 0
#endif

/* LI_INBAND (off unless built with -DLI_INBAND=1): the probes time their
** own work in-band (profiler.c): an entry reads the clock as it begins as
** well as as it ends, an exit as it ends as well as as it begins, and the
** work between is left out of the calls below as measured
** (li_stack_own), so that only the calls into the probe and back are left
** to the calibrated cost.  Two more TSC reads a pair (fib: 807.7 -> 827.5
** instructions a call, and 12-50 ns a read in this VM); measured against
** the truth in the same process (bench/phases.sh --inproc) on a busy
** machine it was not more right than the calibrated pair: off
** (docs/measuring.md).  Only where the clock is read with no call, and not
** in WebAssembly, whose clock is a call into JavaScript. */
#if !defined(LI_INBAND) || !LI_HAVE_INLINE_CLOCK || defined(__EMSCRIPTEN__)
#undef LI_INBAND
#define LI_INBAND 0
#endif

static inline uint64_t li_clock_ticks(const li_clock *c) {
#if LI_HAVE_INLINE_CLOCK
  if (c->tsc) return li_clock_inline_ticks();
#endif
  return c->host != NULL ? (uint64_t)c->host(c->host_ud) << c->shift
                         : li_clock_mono_ns();
}

/* ---- loader.c ----------------------------------------------------------- */

/* Load a chunk as luaL_loadbufferx does, instrumented (unless binary,
** excluded by the patterns of L's profiler, or rejected by Lua).  Rewriter
** warnings go to L's profiler (the report), never to stderr. */
int li_load(lua_State *L, const char *buff, size_t sz, const char *name,
            const char *mode);

/* The binary chunk buff[0..sz) was just loaded (the function on top of L):
** if it is a dump of instrumented code, give it back a probe (loader.c). */
void li_loaded_binary(lua_State *L, const char *buff, size_t sz);

/* Like li_load, but for the bytes of a whole file as luaL_loadfilex reads
** them: a UTF-8 BOM and a `#` first line are skipped (the line break stays,
** so lines keep their numbers); a binary chunk after them loads as binary. */
int li_load_filebytes(lua_State *L, const char *buff, size_t sz,
                      const char *name, const char *mode);

/* Before a dump: count the Lua functions reachable from the globals and
** package.loaded (and the tables they hold) whose chunk was compiled but
** never through the loader (luaL_dofile and lua_load from C code without
** luainstr_wrap.h), for the report's note.  Raw access only: no
** metamethod runs; nothing is allocated in the Lua heap. */
void li_loader_scan(lua_State *L, li_prof *P);

/* ---- loaders.c ---------------------------------------------------------- */

/* luaL_loadfilex, instrumented: same results and messages. */
int li_loadfilex(lua_State *L, const char *filename, const char *mode);

/* Replace load, loadfile, dofile and the Lua-file searcher of `require`
** with versions that go through li_load; the originals are kept in the
** registry so li_restore_loaders can put them back. */
void li_install_loaders(lua_State *L);
void li_restore_loaders(lua_State *L);

/* ---- profiler.c --------------------------------------------------------- */

/* The profiler of L, or NULL. */
li_prof *li_prof_get(lua_State *L);
/* From a signal handler (run.c): every probe's next call acts on the
** signal (li_run_signal_act), in any coroutine.  Plain stores only. */
void li_prof_signal(li_prof *P);

/* Create L's profiler if it has none (not started).  NULL: out of memory. */
li_prof *li_prof_attach(lua_State *L);

/* Pop the value on top of L's stack and make it the probe factory, where
** chunks in the offline form look for it: ("").__luainstr, a field of the
** __index table of the metatable of the string metatable's __index table
** (profiler.c says why; the tables made where there are none). */
void li_set_factory(lua_State *L);

/* Push the probe of a chunk loaded in the loader's form (rewrite.h), for
** L's profiler (a probe that does nothing when L has none): the functions
** are registered as the factory registers a descriptor's. */
struct li_funcdesc;
void li_push_probe(lua_State *L, const char *chunkname,
                   const struct li_funcdesc *funcs, uint32_t nfuncs);

/* Is the value at idx a probe (what li_push_probe or the factory make)? */
int li_is_probe(lua_State *L, int idx);

/* Should a chunk of this name be instrumented (include/exclude patterns)? */
int li_prof_wants(li_prof *P, const char *chunkname);

/* Call fn(L, ud) when L closes, before the profiler's figures are freed
** (luaprof writes its report there after os.exit(code, true)). */
void li_prof_on_close(lua_State *L, void (*fn)(lua_State *L, void *ud), void *ud);

/* Keep a rewriter warning for the report. */
void li_prof_warn(li_prof *P, const char *text);

/* ---- run.c -------------------------------------------------------------- */

/* The report of the program running in L: to path (absolute, or NULL for
** stderr) in format; messages start with "who: ".  Also registers (once
** per process) an atexit handler that writes it. */
void li_run_report_setup(lua_State *L, const char *who, const char *format,
                         const char *path);
/* Replace os.exit with one that writes the report first, and write it when
** L closes; after luainstr_open. */
void li_run_report_hooks(lua_State *L);
/* Write the report unless it was written.  0: it failed (message on
** stderr). */
int li_run_report_write(void);
/* The state is about to close: nothing to write any more. */
void li_run_report_forget(void);
/* SIGTERM and SIGHUP write the report, then end the process by the same
** signal (unless the parent left them ignored): L the main thread, after
** luainstr_open and li_run_report_setup. */
void li_run_signals(lua_State *L);
/* At a safe point (a hook, a probe): the signal caught, if any, acted on:
** the report written and the process ended.  Returns if there was none. */
void li_run_signal_act(lua_State *L);
/* lua.c's message handler, as the version's lua.c has it (luaver.h,
** LI_LUAC_MSGH): a string message gets a traceback. */
int li_run_msghandler(lua_State *L);
/* lua.c's docall: the function and narg arguments on the top called with
** msgh as message handler; 5.1 collects garbage after an error. */
int li_run_docall(lua_State *L, lua_CFunction msgh, int narg, int nres);
/* lua.c's l_message: "pname: msg" (pname NULL: msg alone) on stderr. */
void li_run_message(const char *pname, const char *msg);
/* lua.c's report: the message of a failed chunk (status not LUA_OK) on
** the top, prefixed with progname, printed and popped as the version's
** lua.c does (LI_LUAC_REPORT_NONSTRING, LI_LUAC_GC_AFTER_MSG).  Returns
** status. */
int li_run_report(lua_State *L, const char *progname, int status);
/* Push arg[1..#arg], as lua.c passes them to the script; returns how many. */
int li_run_pushargs(lua_State *L);

#endif
