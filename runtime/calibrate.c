/*
** calibrate.c -- what one probe pair costs the code that calls it, and how
** much of it falls inside the measured call: measured once, at the first
** start, with the real probe over a scratch profiler.
*/
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "profiler.h"
#include "jit.h"
#include "luaver.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
/* Every round's figures, for bench/wasm/calibration.js: ticks of the plain
** and the probed run, their calls (CAL_PER an iteration), ns since the rounds began, and which
** measurement of the state (0 at the start, then one a report); pushed to
** Module.liCalTrace when it is an array (between the timed runs). */
EM_JS(void, li_cal_round, (double plain, double probed, double calls, double t,
                           double which), {
  var a = Module['liCalTrace'];
  if (Array.isArray(a)) a.push([plain, probed, calls, t, which]);
});
#endif

/* ======================================================================
** Calibration: what one probe pair costs the caller, and how much of the
** probes' own work falls inside a measured call.  Measured on this state
** with the real probe, against a scratch profiler, at the first start.
** ====================================================================== */

/* The pair in the shapes the rewriter gives the commonest functions (an
** argument in, a value out: the exit after an expression's value, and
** before a return of a local, docs/probes.md): an empty function whose exit
** ran as a statement measured the pair 4-8 % cheaper than the code it
** corrects (callgrind: 475 instructions a pair against 496 and 515), and
** call-heavy phases read 1.15-1.4 times their time. */
/* The chunk's own frame is open around the loop, as a caller's is: the
** probe's fast path runs only with a frame below the call's (with none,
** every pair took the general path, 54 instructions dearer, and the
** calibration measured that path rather than the one the program runs).
** Its own pair is in both kinds of rounds. */
/* Kind 2: the functions counted, not timed (option "count_small"), as the
** rewriter makes them: the count probe's cost to its caller. */
static const char calibration_chunk[] =
  "local P, n, kind = ...\n"
  "P(1)\n"
  "local f, g\n"
  "if kind == 1 then\n"
  "  f = function(x) P(2); return x + 1, P() end\n"
  "  g = function(x) P(3); local y = x + 1 P() return y end\n"
  "elseif kind == 2 then\n"
  "  f = function(x) P(2,1); return x + 1 end\n"
  "  g = function(x) P(3,1); local y = x + 1 return y end\n"
  "else\n"
  "  f = function(x) return x + 1 end\n"
  "  g = function(x) local y = x + 1 return y end\n"
  "end\n"
  "local s = 0\n"
  "for _ = 1, n do s = f(s); s = g(s) end\n"
  "P()\n";

#define CAL_PER 2               /* calls an iteration of the loop */

/* Many short rounds, not a few long ones: the median of 15 rounds of 500
** calls lands where 7 rounds of 10,000 did (92-94 ticks a pair in 30
** start-ups of each, the spread between start-ups narrower) in 0.5 ms
** instead of 4-8 ms, and a round hit by an interrupt is one outlier of
** 15.  A round lasts at least CAL_STEPS steps of the clock, so that a
** coarse clock (100 us) reads it to a few per cent (its rounds are then
** longer: 6.4 ms of calls with probes).  The rounds go on while the cost
** still falls: a JIT (V8 running the wasm build) first runs the probe
** unoptimised, at 3-4 times its later cost; once the median of the last
** CAL_WINDOW rounds is no longer below that of the CAL_WINDOW before by
** CAL_FALL, the median of both windows is the cost. */
/* Natively 125 iterations and windows of 6: the start's calibration was
** 9 million instructions (callgrind), most of luaprof's start-up beyond
** lua5.4's, while the pair's real cost moves by far more than what longer
** rounds would pin down (docs/measuring.md); WebAssembly keeps 250 and 8. */
#ifdef __EMSCRIPTEN__
#define CAL_CALLS 250           /* iterations (CAL_PER calls) a round, at least */
#define CAL_WINDOW 8            /* rounds compared */
#else
#define CAL_CALLS 125
#define CAL_WINDOW 6
#endif
#define CAL_MAX_CALLS 1000000   /* (a clock that never moves) */
#define CAL_STEPS 32            /* clock steps a probed round spans */
#define CAL_FALL 0.95
/* In WebAssembly the engine compiles the hot code again, in the background,
** while the rounds run, and the wasm probe and the JavaScript of the clock
** each step down when theirs is ready: in node under load the pair read
** 500 ns for 10 rounds, then 270, then 250 (bench/wasm/calibration.js),
** and a run whose rounds ended on the first plateau kept twice the cost.
** So the rounds there go on for CAL_MIN_ROUNDS and CAL_MIN_NS at least
** (rounds, too: on a loaded machine a few preempted rounds were 60 ms),
** which saw every step there (native: no minimum, its code does not
** change). */
#ifdef __EMSCRIPTEN__
#define CAL_MIN_NS 60000000u
#define CAL_MIN_ROUNDS 64
/* (a clock that never moves, a browser's virtual time, has nothing to wait
** for: its rounds are 1,000,000 calls) */
#define CAL_LONG_ENOUGH(start) (P->clock.resolution == 0 || \
  (r + 1 >= CAL_MIN_ROUNDS && li_clock_mono_ns() - (start) >= CAL_MIN_NS))
#define CAL_MAX_ROUNDS 384
/* There the median of the rounds was not stable either: in Chromium one
** page load in ten read twice the cost (bench/wasm/calibration.js, every
** round's figures: docs/wasm.md).  What moved it, round by round:
** - the browser preempts rounds (on a 2-core machine one in five or more,
**   by 2-100 ms), and a preempted round only ever reads longer: the
**   probed one reads a pair too dear, the plain one too cheap; when more
**   than a quarter of a window's rounds were hit, its middle half was too;
** - stretches of 50-100 ms where every round ran 1.5-1.8 times its cost
**   (with V8's optimizing tier forced, and in the second run of a page
**   whose code was hot: not a tier, the page or machine was slow then);
** - a first round of cold code (compiled on its first call, inside the
**   timed run) sized the rounds: from file:// (100 us steps) to 3 steps
**   of the clock instead of 32, every round's figure a multiple of 200 ns.
** So the rounds are sized by the fastest of CAL_TRIES runs, and sized
** again (twice the calls, the rounds begun again) while the fastest of a
** window's probed rounds spans fewer than half of CAL_STEPS (three cold or
** preempted tries sized them at 1000 calls, 6 steps, and the cost read
** 499 ns against 650); and the cost of a window is its fastest probed
** round less its fastest plain round: whatever slowed a round, the
** fastest of a window is the nearest to the probe's cost (less at most a
** step of the clock over the calls, 3-6 %).  The cost is the least of
** every window of the calibration: the code only
** gets faster as the engine optimizes it, and a slow stretch only costs
** more.  The rounds stop when a window no longer reads below the one
** before (after the minimum above). */
#define CAL_TRIES 3
#else
#define CAL_LONG_ENOUGH(start) ((void)(start), 1)
#define CAL_MAX_ROUNDS 96       /* a cost that keeps falling: the last window */
#define CAL_TRIES 1             /* (native code does not change) */
#endif

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

#ifndef __EMSCRIPTEN__
/* The median of v[0..n) (sorts a copy). */
static uint64_t median(const uint64_t *v, int n) {
  uint64_t c[2 * CAL_WINDOW];
  memcpy(c, v, (size_t)n * sizeof c[0]);
  qsort(c, (size_t)n, sizeof c[0], cmp_u64);
  return c[n / 2];
}
#endif

/* The mean of the middle half of v[0..n) (sorts a copy): the cost.  On a
** clock of coarse steps (a browser's 100 us or 5 us) every round's figure
** is a multiple of step/calls, and the median is one of those multiples:
** it moved by whole steps from one page load to the next (Chromium from
** file://: 499, 549, 599 or 799 ns); the browser's clock jitters where it
** steps, so the mean of the rounds falls between them, and the middle
** half keeps a round an interrupt hit out as the median did. */
static uint64_t mid_mean(const uint64_t *v, int n) {
  uint64_t c[2 * CAL_WINDOW], sum = 0;
  int lo = n / 4, hi = n - n / 4;
  memcpy(c, v, (size_t)n * sizeof c[0]);
  qsort(c, (size_t)n, sizeof c[0], cmp_u64);
  for (int i = lo; i < hi; i++) sum += c[i];
  return (sum + (uint64_t)(hi - lo) / 2) / (uint64_t)(hi - lo);
}

/* Half the range of the middle half of v[0..n) (sorts a copy): how far a
** round's figure strays from the cost. */
static uint64_t mid_spread(const uint64_t *v, int n) {
  uint64_t c[2 * CAL_WINDOW];
  int lo = n / 4, hi = n - n / 4;
  memcpy(c, v, (size_t)n * sizeof c[0]);
  qsort(c, (size_t)n, sizeof c[0], cmp_u64);
  return (c[hi - 1] - c[lo]) / 2;
}

/* Ticks of one run of `calls` calls of the loop at index `loop` with the
** probe at `pr`; 0 if it failed. */
static uint64_t cal_time(li_prof *P, lua_State *L, int loop, int pr, int probed,
                         uint32_t calls) {
  uint64_t t0, t1;
  lua_pushvalue(L, loop);
  lua_pushvalue(L, pr);
  lua_pushinteger(L, calls);
  lua_pushinteger(L, probed);
  t0 = li_clock_ticks(&P->clock);
  if (lua_pcall(L, 3, 0, 0) != LUA_OK) { lua_pop(L, 1); return 0; }
  t1 = li_clock_ticks(&P->clock);
  return t1 > t0 ? t1 - t0 : 1;
}

/* Inclusive ticks of the calibration's functions (all but the main). */
static int64_t fn_total(const li_prof *P) {
  int64_t t = 0;
  for (uint32_t i = 1; i < P->nnode; i++)
    if (P->node[i].func != 0) t += P->node[i].total;
  return t;
}

/* Ticks a probed round should span: CAL_STEPS steps of the clock. */
static uint64_t cal_want(const li_prof *P) {
  return (P->clock.resolution ? P->clock.resolution : 1) * CAL_STEPS;
}

/* Calls a round needs to span CAL_STEPS steps of the clock with probes;
** 0 if the loop failed. */
static uint32_t cal_calls(li_prof *P, lua_State *L, int loop, int pr) {
  uint64_t want = cal_want(P);
  uint32_t n = CAL_CALLS;
  for (;;) {
    uint64_t t = UINT64_MAX;
    for (int i = 0; i < CAL_TRIES; i++) {
      uint64_t ti = cal_time(P, L, loop, pr, 1, n);
      if (ti == 0) return 0;
      if (ti < t) t = ti;
    }
    if (t >= want || n >= CAL_MAX_CALLS) return n;
    n *= 2;
  }
}

#ifdef __EMSCRIPTEN__
/* The least of v[0..n). */
static uint64_t least(const uint64_t *v, int n) {
  uint64_t m = v[0];
  for (int i = 1; i < n; i++) if (v[i] < m) m = v[i];
  return m;
}

/* The pair's cost over a window of n rounds: its fastest probed round
** less its fastest plain one, a call. */
static uint64_t window_cost(const uint64_t *plain, const uint64_t *probed, int n,
                            uint32_t calls) {
  return li_minus(least(probed, n), least(plain, n)) / (CAL_PER * (uint64_t)calls);
}
#endif

/* The scratch profiler's end.  Its probe is an ordinary Lua value while
** the rounds run, and a call hook can take it (debug.getinfo, then the
** loop's upvalue P) and keep it: the probe must be dead before Q's data
** goes, closed, off and its map no map, so that a later call measures
** nothing and passes its values through, as the probe of a closed
** profiler does (tests/runtime/calibration_probe.lua). */
static void cal_end(li_prof *Q, li_chunk *c) {
  if (c != NULL) c->magic = 0;
  Q->closed = 1;
  Q->on = 0;
  li_prof_set_fast(Q);
  li_set_cur(Q, NULL, NULL);
  li_prof_free_data(Q);
  li_lsan_unroot(Q, sizeof *Q);
}

/* What one measurement found. */
typedef struct cal_result {
  uint64_t pair, inside;        /* ticks, as pair_cost and inside_cost */
  uint64_t spread;              /* mid_spread of the pair's rounds */
  uint64_t count, count_spread; /* a count probe's (P->count_small on) */
  uint32_t rounds, calls;       /* rounds: 0 when it failed */
} cal_result;

/* A count probe's cost (kind 2 of the chunk at `loop`, the probe at `pr`,
** rounds of `calls` calls as the pair's): over 2 * CAL_WINDOW rounds
** after the pair's, the mean of the middle half of each round's counted
** run less its plain one (WebAssembly: the fastest counted run less the
** fastest plain one, as the pair's window_cost). */
#ifdef __EMSCRIPTEN__
#define LI_WASM 1
#else
#define LI_WASM 0
#endif

static void measure_count(li_prof *P, lua_State *L, int loop, int pr,
                          uint32_t calls, cal_result *out) {
  uint64_t cnt[2 * CAL_WINDOW], plain[2 * CAL_WINDOW], counted[2 * CAL_WINDOW];
  int n = 2 * CAL_WINDOW;
  uint64_t least_plain = UINT64_MAX, least_counted = UINT64_MAX;
  for (int r = 0; r < n; r++) {
    plain[r] = cal_time(P, L, loop, pr, 0, calls);
    counted[r] = cal_time(P, L, loop, pr, 2, calls);
    if (plain[r] == 0 || counted[r] == 0) return;
    cnt[r] = li_minus(counted[r], plain[r]) / (CAL_PER * calls);
    if (plain[r] < least_plain) least_plain = plain[r];
    if (counted[r] < least_counted) least_counted = counted[r];
  }
  /* (LuaJIT: the rounds' code is compiled as they run, and a round's
  ** figure falls from the interpreter's to the trace's: the fastest of
  ** each kind is the trace's, the mean of the rounds read 3-13 ns a count
  ** against 4.4 in a program's trace, and took all the time out of calls
  ** made of counted ones) */
  if (LI_IS_LUAJIT || LI_WASM)
    out->count = li_minus(least_counted, least_plain) / (CAL_PER * calls);
  else
    out->count = mid_mean(cnt, n);
  out->count_spread = mid_spread(cnt, n);
}

static void measure(li_prof *P, lua_State *L, cal_result *out) {
  li_prof *Q;           /* scratch profiler: the real probe, own figures */
  li_chunk *c = NULL;
  uint64_t pair[CAL_MAX_ROUNDS], inside[CAL_MAX_ROUNDS], start_ns;
#ifdef __EMSCRIPTEN__
  uint64_t plain_t[CAL_MAX_ROUNDS], probed_t[CAL_MAX_ROUNDS], best = UINT64_MAX;
  int best_end = 0;     /* the rounds of the least window end here */
#endif
  uint32_t calls;
  int top = lua_gettop(L), r, w = 2 * CAL_WINDOW;
  memset(out, 0, sizeof *out);
  if (!lua_checkstack(L, 10)) return;
  Q = lua_newuserdatauv(L, sizeof *Q, 0);              /* top+1 */
  memset(Q, 0, sizeof *Q);
  Q->gap_fd = -1;               /* (no preemption asked: li_gap_free) */
  Q->gap_at = UINT64_MAX;
  Q->gap_thr = (uint64_t)1 << 62;
  Q->own_max = UINT64_MAX;      /* (a preempted round cancels out: probed
                                   less what it timed of itself) */
  /* the profiler's finalizer frees what Q gets, should the Lua API raise
  ** an error (out of memory) before `done` */
  luaL_setmetatable(L, LI_MT_PROF);
  li_lsan_root(Q, sizeof *Q);   /* (cal_end takes it back, or the finalizer) */
  Q->clock = P->clock;
  Q->jit_g = P->jit_g;          /* (the FFI probe reads the thread there) */
  Q->on = 1;
  li_prof_set_fast(Q);
  Q->mainL = L;
  li_stack_init(&Q->main, Q, L);
  if (!li_tree_init(Q) || li_fn_find(Q, "=calibration", 1, "main", 4, 0, 0) != 0 ||
      li_fn_find(Q, "=calibration", 2, "f", 1, 1, 1) != 1 ||
      li_fn_find(Q, "=calibration", 3, "g", 1, 1, 1) != 2)
    goto done;
  /* the probe chunks loaded now get: on LuaJIT with its JIT on, the FFI
  ** probe (jit.c), whose loop the JIT compiles as it compiles theirs */
  if ((c = li_jit_chunk_new(L, P, Q, 3)) == NULL) {
    c = li_chunk_new(L, Q, 3);
    lua_pushvalue(L, top + 1);
    lua_pushcclosure(L, li_probe_for(P), 2);
  }                                                    /* top+2 */
  c->gid[0] = 0;
  c->gid[1] = 1;
  c->gid[2] = 2;
  if (luaL_loadbufferx(L, calibration_chunk, sizeof calibration_chunk - 1,
                       "=luainstr calibration", "t") != LUA_OK)
    goto done;                                         /* top+3 */
  if ((calls = cal_calls(P, L, top + 3, top + 2)) == 0) goto done;
  start_ns = li_clock_mono_ns();
  for (r = 0; r < CAL_MAX_ROUNDS; r++) {
    uint64_t plain = cal_time(P, L, top + 3, top + 2, 0, calls), probed;
    int64_t before = fn_total(Q), after;
    uint64_t own = Q->own_clock;
    probed = cal_time(P, L, top + 3, top + 2, 1, calls);
    if (plain == 0 || probed == 0) goto done;
    after = fn_total(Q);
    /* (the probes' work they timed themselves is out of the spans already:
    ** the pair is what is left, LI_INBAND) */
    own = Q->own_clock - own;
    pair[r] = li_minus(li_minus(probed, own), plain) / (CAL_PER * calls);
    inside[r] = after > before ? (uint64_t)(after - before) / (CAL_PER * calls) : 0;
#ifdef __EMSCRIPTEN__
    li_cal_round((double)plain, (double)probed, (double)(CAL_PER * calls),
                 (double)(li_clock_mono_ns() - start_ns), (double)P->recals);
    plain_t[r] = plain;
    probed_t[r] = li_minus(probed, own);
    if (r + 1 >= CAL_WINDOW && calls < CAL_MAX_CALLS &&
        least(probed_t + r + 1 - CAL_WINDOW, CAL_WINDOW) < cal_want(P) / 2) {
      calls *= 2;       /* (rounds too short for the clock: sized again) */
      best = UINT64_MAX;
      r = -1;
      continue;
    }
    if (r + 1 >= w) {
      uint64_t e = window_cost(plain_t + r + 1 - w, probed_t + r + 1 - w, w, calls);
      if (e <= best) best = e, best_end = r + 1;
      if (CAL_LONG_ENOUGH(start_ns) &&
          (double)window_cost(plain_t + r + 1 - CAL_WINDOW, probed_t + r + 1 - CAL_WINDOW,
                              CAL_WINDOW, calls) >=
          CAL_FALL * (double)window_cost(plain_t + r + 1 - w, probed_t + r + 1 - w,
                                         CAL_WINDOW, calls))
        break;
    }
  }
  if (r == CAL_MAX_ROUNDS) r--;                   /* still falling */
  out->pair = best;
  out->inside = mid_mean(inside + best_end - w, w);
  out->spread = mid_spread(pair + best_end - w, w);
#else
    if (r + 1 >= w && CAL_LONG_ENOUGH(start_ns) &&
        (double)median(pair + r + 1 - CAL_WINDOW, CAL_WINDOW) >=
        CAL_FALL * (double)median(pair + r + 1 - w, CAL_WINDOW))
      break;
  }
  if (r == CAL_MAX_ROUNDS) r--, w = CAL_WINDOW;   /* still falling */
  out->pair = mid_mean(pair + r + 1 - w, w);
  out->inside = mid_mean(inside + r + 1 - w, w);
  out->spread = mid_spread(pair + r + 1 - w, w);
#endif
  if (out->inside > out->pair) out->inside = out->pair;
  out->rounds = (uint32_t)(r + 1);
  out->calls = calls;
  if (P->count_small > 0) measure_count(P, L, top + 3, top + 2, calls, out);
done:
  cal_end(Q, c);
  /* Q holds nothing more: no finalizer, which on LuaJIT would abort the
  ** trace being recorded whenever the collector ran it */
  lua_pushnil(L);
  lua_setmetatable(L, top + 1);
  lua_settop(L, top);
}

void li_prof_calibrate(li_prof *P, lua_State *L) {
  cal_result c;
  measure(P, L, &c);
  if (c.rounds > 0) {
    P->pair_cost = P->pair_least = c.pair;
    P->inside_cost = P->inside_least = c.inside;
    P->pair_spread = c.spread;
    P->cal_rounds = c.rounds;
    P->cal_calls = c.calls;
    P->count_cost = c.count;
    P->count_spread = c.count_spread;
  }
  P->cal_entries = P->entries;
  P->calibrated = 1;    /* once, whatever happened (an error raised above
                           leaves it for the next start) */
}

void li_prof_calibrate_count(li_prof *P, lua_State *L) {
  cal_result c;
  if (P->count_small == 0 || P->count_cost > 0) return;
  measure(P, L, &c);
  if (c.rounds > 0) P->count_cost = c.count, P->count_spread = c.count_spread;
}

/* ======================================================================
** Calibrating again.  A measurement of 0.5 ms natively, 60 ms or more in
** WebAssembly, cannot tell a stretch in which the machine or the page ran
** everything slower from the probe's cost: in Chromium about one page
** load in 50 read the pair 30-65 % dear for all its rounds (docs/wasm.md),
** and the exits subtracted that from every call, so a caller of 100
** short calls read as 0.  Such a stretch only ever makes the figure
** dearer, so each report measures again and keeps the least; the exits
** go on subtracting pair_cost (changing it would mix two costs in one
** figure), and the report adds back (pair_cost - pair_least) for every
** pair it knows was subtracted (snapshot.c).
** ====================================================================== */

static int recal_run(lua_State *L) {
  li_prof *P = lua_touserdata(L, 1);
  cal_result c;
  P->recals++;
  P->cal_entries = P->entries;
  measure(P, L, &c);
  if (c.rounds == 0) return 0;
  if (c.pair < P->pair_least) P->pair_least = c.pair;
  if (c.inside < P->inside_least) P->inside_least = c.inside;
  if (P->count_small > 0 && (P->count_cost == 0 || c.count < P->count_cost))
    P->count_cost = c.count, P->count_spread = c.count_spread;
  return 0;
}

void li_prof_recalibrate(li_prof *P) {
  lua_State *L = P->mainL;
  int top;
  /* (the main thread never yields: calls on it are allowed even while it
  ** waits for a coroutine that dumps; a failed first calibration has no
  ** cost to correct) */
  /* (not on LuaJIT: its JIT would compile the measurement's loop at the
  ** report, traces that -jv and -jdump print and slots and hot counters
  ** the program's code would then miss; its native code keeps the first
  ** measurement, as every native build could: the slow stretch was seen
  ** in WebAssembly only) */
  /* (nothing new since the last measurement: the same report again; fewer
  ** than recal_min pairs: the least the measurement could change is below
  ** what it costs, 1 ms of a short script's start-up: 20,000 pairs off by
  ** even half their 50 ns are 0.5 ms over the whole profile) */
  if (LI_IS_LUAJIT || L == NULL || P->closed || !P->calibrated ||
      P->cal_rounds == 0 || P->entries - P->cal_entries < P->recal_min ||
      lua_status(L) != LUA_OK || !lua_checkstack(L, 3))
    return;
  top = lua_gettop(L);
  if (!li_pushcfunction_noerr(L, recal_run)) return;
  lua_pushlightuserdata(L, P);
  (void)lua_pcall(L, 1, 0, 0);  /* (no memory: the least so far stays) */
  lua_settop(L, top);
}
