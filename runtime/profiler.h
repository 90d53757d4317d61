/*
** profiler.h -- the profiler of one lua_State (internal to runtime/).
**
** Model: every function of user code (by chunk and definition) has a
** record; every calling context a call-tree node; every coroutine a shadow
** stack of open frames.  The probe's entry pushes a frame, its exit pops
** one; errors, coroutine switches and host-level catches close frames at
** the places in boundary.c.  What the probes keep is raw: per node the
** ticks its calls spanned (less the time their coroutine was suspended or
** the thread preempted, both measured) and how many probe pairs ran inside
** those spans.  The probes' cost is taken out once, at the report, from
** one calibrated figure (figures.c), and every time a report shows is
** derived there: so they agree by construction (self <= total, children
** within their parent, min <= mean <= max).
*/
#ifndef LI_PROFILER_H
#define LI_PROFILER_H

#include <signal.h>   /* sig_atomic_t */

#include "luainstr.h"
#include "runtime.h"

#define LI_NONE 0xFFFFFFFFu

/* LeakSanitizer does not look into LuaJIT's heap (lj_alloc maps memory of
** its own): the profiler and the coroutines' stacks, userdata there, are
** made roots of their own in sanitized builds, or the blocks they hold
** would be taken for leaks when a program exits without closing its state
** (os.exit(n), exit() from C).  Lua's heap is malloc's: nothing to do. */
#if defined(__SANITIZE_ADDRESS__)
#define LI_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LI_LSAN 1
#endif
#endif
#if defined(LI_LSAN) && LI_IS_LUAJIT
#include <sanitizer/lsan_interface.h>
#define li_lsan_root(p, n) __lsan_register_root_region((p), (n))
#define li_lsan_unroot(p, n) __lsan_unregister_root_region((p), (n))
#else
#define li_lsan_root(p, n) ((void)(p), (void)(n))
#define li_lsan_unroot(p, n) ((void)(p), (void)(n))
#endif

#if defined(__GNUC__)
#define LI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LI_LIKELY(x) __builtin_expect(!!(x), 1)
#define LI_NOINLINE __attribute__((noinline))
#define LI_INLINE inline __attribute__((always_inline))
#else
#define LI_INLINE inline
#define LI_UNLIKELY(x) (x)
#define LI_LIKELY(x) (x)
#define LI_NOINLINE
#endif

/* One function of user code (by chunk and definition, the same over every
** load of its chunk).  Its figures are the sums of its call-tree nodes,
** made by the snapshot: the probes touch nodes only. */
typedef struct li_fn {
  char *name;           /* as the rewriter names it (li_prof.names) */
  const char *source;   /* chunk name as Lua shows it (li_prof.chunks) */
  const char *chunkname; /* chunk name as given to lua_load (the same) */
  uint64_t hash;        /* of (chunkname, id, line, lastline, name) */
  int64_t live;         /* memory mode: bytes of its blocks still allocated */
  int64_t peak;         /* the most `live` has been */
  uint32_t id;          /* id in its chunk (1 = main chunk) */
  uint32_t line;        /* line of `function` (0: main chunk) */
  uint32_t lastline;    /* line of `end` */
  int zone;             /* a zone: name is "zone NAME", chunkname "=zone" */
  int counted;          /* its calls were counted, not timed (option
                           "count_small": li_count) */
} li_fn;

/* Memory figures of a node (memory mode, memory.c). */
typedef struct li_nmem {
  uint64_t alloc_bytes; /* new blocks and growth while it was on top */
  uint64_t alloc_count;
  uint64_t free_bytes;  /* of its blocks, freed by anyone */
  int64_t live;         /* bytes of its blocks still allocated */
  uint64_t max_alloc;   /* largest single allocation */
} li_nmem;

/* A node of the call tree: a function in one calling context.  A node's
** parent has a smaller index. */
typedef struct li_node {
  uint32_t func;        /* li_fn index (LI_NONE for the root) */
  uint32_t parent;      /* parent node (LI_NONE for the root) */
  uint64_t calls;       /* entries in this context */
  uint64_t errors;      /* exits by an error */
  int64_t total;        /* raw inclusive ticks: the calls' spans */
  uint64_t pairs;       /* probe pairs that ran inside those spans */
  int64_t min;          /* shortest call, corrected with pair_cost and
                           inside_cost as it closed (INT64_MAX: none yet) */
  int64_t max;          /* longest call (INT64_MIN at first) */
  uint32_t stamp;       /* frame mode: the frame whose start figures of this
                           node are saved (frames.c), 0 none */
  uint32_t mark;        /* scratch of the spike-tree builder */
  li_nmem mem;          /* memory mode */
  uint64_t min_pairs;   /* pairs inside the shortest call... */
  uint64_t max_pairs;   /* ...and the longest (the report corrects them
                           again with its own figure) */
  int64_t pre;          /* ticks of `total` the thread spent preempted */
} li_node;


/* The call-tree nodes found last, by (parent, func): LI_KIDS slots. */
#define LI_KIDS 4096u
#define li_kid_slot(parent, func) (((parent) * 8u + (func)) & (LI_KIDS - 1))

/* An open activation of a function. */
typedef struct li_frame {
  const void *ci;       /* Lua's CallInfo of the activation: its identity;
                           a zone's is odd (LI_ZONE_CI), no CallInfo's is;
                           the FFI probe's frames have none (LI_FFI_CI) */
  uint64_t start;       /* ticks at entry */
  uint64_t susp0;       /* the stack's excluded ticks at entry */
  uint64_t pairs0;      /* the stack's pairs at entry (its own counted) */
  int64_t done;         /* raw ticks already added to its node at frame
                           marks (frames.c): the call's earlier part... */
  uint64_t done_pairs;  /* ...and the pairs in it */
  uint32_t func;        /* li_fn index */
  uint32_t node;        /* li_node index */
  uint64_t pre0;        /* the stack's preempted ticks at entry */
} li_frame;

/* The identity of zone number `serial` in li_frame.ci. */
#define LI_ZONE_CI(serial) ((const void *)(((uintptr_t)(serial) << 1) | 1u))
#define li_is_zone(fr) (((uintptr_t)(fr)->ci & 1u) != 0)

/* The identity of every frame the FFI probe opens (jit.c): inside a trace
** there is no stack frame to name, so its exit pops the top function
** frame.  The address of a static object: even, and no CallInfo's (a
** heap address, or on LuaJIT and 5.1 a small stack index + 1). */
extern const uint64_t li_ffi_ci_tag;
#define LI_FFI_CI ((const void *)&li_ffi_ci_tag)
#define li_is_ffi(fr) ((fr)->ci == LI_FFI_CI)

typedef struct li_stack li_stack;

/* The shadow stack of one coroutine (or of the main thread). */
struct li_stack {
  li_frame *f;          /* frames, bottom first (malloc'd) */
  uint32_t n;           /* open frames */
  uint32_t cap;         /* allocated frames */
  uint32_t root;        /* node the bottom frames hang from */
  int suspended;        /* yielded (through coroutine.yield) */
  uint64_t susp;        /* ticks its frames do not count, so far: the time
                           it spent suspended */
  uint64_t pre_skip;    /* ticks of P->pre_clock it spent suspended: its
                           frames' preempted ticks so far are li_stack_pre */
  uint64_t susp_pre;    /* P->pre_clock when it was suspended */
  uint64_t pairs;       /* probe pairs entered in it (or in coroutines it
                           resumed), so far */
  uint64_t susp_since;  /* when it was suspended */
  uint32_t tid;         /* small id for traces: 0 main, then 1, 2, ... */
  const void *base_ci;  /* CallInfo of the last call seen at the thread's
                           base (its first level), a hint: checked again */
  lua_State *L;         /* its thread (identity only, never dereferenced
                           after the thread is collected) */
  li_prof *P;           /* owner */
  uint32_t zones_lost;  /* zones closed by a stop, pause or reset that the
                           program may still end (no error then) */
  li_stack *waker;      /* the stack inferred to have resumed it, while
                           it runs (a resume the profiler was not told
                           of: li_infer_switch), else NULL */
  int resuming;         /* waiting in coroutine.resume (boundary.c)... */
  uint64_t res_t0;      /* ...since this time, or the last frame mark, */
  uint64_t res_pairs0;  /* ...with this many entries counted */
  uint64_t res_own0;    /* ...and P->own_clock then */
  uint32_t ffi_lost;    /* FFI entries that found no room for a frame (no
                           memory): as many exits pop nothing, and until
                           they have, entries push nothing (LIFO) */
  li_stack *prev;       /* list of every stack of P */
  li_stack *next;
};

typedef struct li_frames li_frames;   /* frames.c */
typedef struct li_mem li_mem;         /* memory.c */

/* The profiler of one lua_State: a full userdata in the registry. */
struct li_prof {
  int on;               /* collecting: started && enabled && !closed */
  int fast;             /* on, the clock read with no call, no trace: the
                           probe's fast path may run (profiler.c) */
  int started;          /* between start and stop */
  int enabled;          /* not paused */
  int closed;           /* finalized: do nothing, free nothing more */
  int ever_started;     /* started at least once (dump before start) */
  li_clock clock;       /* ticks and their length */
  int probe;            /* the probe chunks get: LI_PROBE_* (option "probe") */
  int direct_ok;        /* Lua's structures passed their check on this
                           state's library (direct.h)... */
  const char *direct_why;   /* ...or why not (static) */
  void *jit_g;          /* LuaJIT's global_State, where the FFI probe reads
                           the running thread: its check passed (jit.c)... */
  const char *jit_why;  /* ...or why not (static), and NULL */
  uint64_t chunks_ffi;  /* chunks given the FFI probe */
  uint64_t chunks_api;  /* chunks given a lua_CFunction probe */
  uint64_t pair_cost;   /* ticks one entry+exit pair adds to its caller */
  uint64_t inside_cost; /* ticks of probe work inside a measured call */
  int calibrated;       /* pair_cost and inside_cost measured */
  uint32_t cal_rounds;  /* rounds the calibration took (0: it failed) */
  uint32_t cal_calls;   /* calls in each */
  /* ---- calibrated again at each report (calibrate.c, snapshot.c) ---- */
  uint64_t pair_least;  /* the least pair cost measured so far: pair_cost
                           is what the exits subtracted, and a report adds
                           the difference back for every pair it counted */
  uint64_t inside_least; /* the same for inside_cost */
  uint64_t pair_spread; /* how far apart the calibration's rounds read (half
                           their middle half's range) */
  uint32_t recals;      /* measurements after the first */
  uint64_t recal_min;   /* a report measures again only after as many
                           entries, 1 at least (LI_RECAL_MIN; tests: 1) */
  uint64_t cal_entries; /* entries at the last measurement: a report of
                           nothing new (a stopped profile written in a
                           second format) measures no more, so it gives
                           the same figures */
  /* ---- */
  /* ---- preemption (preempt.c) ---- */
  uint64_t gap_at;      /* a probe reading a later time asks the kernel
                           whether the thread was preempted (the last
                           probe's time + gap_thr; UINT64_MAX: never) */
  uint64_t gap_thr;     /* ticks */
  uint64_t gap_delay;   /* the thread's run_delay (ns) when last asked */
  uint64_t gap_thread;  /* (pthread_self() of the thread asked for) */
  int gap_fd;           /* its schedstat, -1: none */
  int gap_off;          /* option "preempt" off: never ask */
  uint64_t preempted;   /* ticks taken out as preemption */
  uint64_t pre_clock;   /* the same, never cleared: every stack not
                           suspended was preempted that long (stacks.c) */
  /* ---- */
  uint64_t own_clock;   /* ticks the profiler's coroutine bookkeeping took
                           (boundary.c, measured as it ran), never cleared:
                           the stacks running then take it out of their
                           frames (li_prof_charge, li_stack_own) */
  uint64_t own_base;    /* own_clock at the last reset (the report's cost) */
  uint64_t own_max;     /* ticks: a longer span is not counted (li_stack_own) */
  uint64_t entries;     /* entry probes counted */
  uint64_t counted;     /* count probes run (li_count) */
  uint32_t count_small; /* option "count_small": functions of at most this
                           many tokens without calls or loops get a count
                           probe, not a pair (li_rewrite_opts); 0: off */
  uint64_t count_cost;  /* ticks one count probe adds to its caller
                           (calibrated with the pair when count_small is
                           on at the first start; else 0) */
  uint64_t count_spread; /* how far apart its rounds read */
  uint64_t exits;       /* exit probes counted */
  uint64_t wall;        /* ticks collected in earlier start..stop spans */
  uint64_t wall_since;  /* ticks at the last start/enable */
  li_fn *fn;            /* functions */
  uint32_t nfn, capfn;
  uint32_t *fnhash;     /* open addressing: li_fn index + 1, 0 = empty */
  uint32_t fnhcap;      /* power of two */
  char **chunks;        /* each chunk name once, "chunkname\0source\0" (its
                           functions share it: a chunk of 100,000 functions
                           made 200,000 copies) */
  uint32_t nchunks, capchunks;
  char **names;         /* blocks holding the functions' names, bump
                           allocated (a malloc each cost a chunk of 100,000
                           functions 100,000 blocks and their overhead) */
  uint32_t nnames, capnames;
  char *names_next;     /* the last block's first free byte */
  size_t names_left;    /* and how many follow it */
  uint32_t *chunkhash;  /* open addressing over chunks: index + 1 */
  uint32_t chunkhcap;   /* power of two */
  li_node *node;        /* call tree, node[0] = root */
  uint32_t nnode, capnode;
  uint32_t *nodehash;   /* open addressing over (parent, func) */
  uint32_t nodehcap;
  uint32_t kids[LI_KIDS];   /* a node found or made last for its slot
                           (li_kid_slot), checked before the hash; 0 (the
                           root, which is nobody's child): none */
  li_stack main;        /* the main thread's stack */
  li_stack **xset;      /* every stack of P, by address (profiler.c: a
                           thread's extra space is read only through it) */
  uint32_t xcap, xn;
  li_stack **tmap;      /* every stack of P, by its thread's address (the
                           FFI probe finds a thread's stack there without
                           the Lua API: li_stack_switch_c) */
  uint32_t tcap, tn;
  int xs_off;           /* option "extraspace" off: the host's alone */
  lua_State *mainL;     /* the main thread */
  lua_State *curL;      /* thread of the last probe */
  li_stack *cur;        /* its stack */
  lua_State *fastL;     /* curL when fast, else NULL: the fast path's one
                           test (li_set_cur keeps the three together) */
  uint64_t loads;       /* chunks that went through the loader (li_load) */
  uint64_t outside;     /* functions a dump found reachable from chunks
                           compiled without the loader (li_loader_scan)... */
  char outside_chunk[96];   /* ...one of those chunks, by name */
  uint32_t inferring;   /* stacks with a waker */
  uint64_t unseen;      /* switches of thread nobody told the profiler of:
                           a probe (or a resumed yield) in a thread other
                           than curL, curL known; a coroutine resumed or
                           a function called on another thread from C
                           without luainstr_wrap.h (its time may count
                           twice: the report says so) */
  char *warnings;       /* rewriter warnings for the report (malloc'd) */
  char **include;       /* glob patterns (malloc'd) */
  uint32_t ninclude;
  char **exclude;
  uint32_t nexclude;
  li_pevent *trace;     /* trace buffer, ts_ns holding ticks (malloc'd) */
  uint64_t ntrace;      /* events in it */
  uint64_t trace_cap;   /* its size in events; 0: trace mode off */
  uint64_t trace_next;  /* the oldest event (0 until a ring wraps): where
                           the next one goes once the buffer is full */
  int trace_keep;       /* what a full buffer keeps, as asked: LI_KEEP_* */
  int trace_wrap;       /* as decided when it first filled: 1 the recent
                           events (a ring), 0 the first, -1 not full yet */
  uint64_t trace_dropped; /* events lost because it was full: dropped,
                           or overwritten (the oldest) in a ring */
  uint64_t trace_t0;    /* ticks when the trace (re)started */
  uint32_t next_tid;    /* next thread id for traces */
  uint32_t nstacks;     /* coroutine stacks linked (live or not swept) */
  uint32_t sweep_at;    /* a stack made with this many linked sweeps first */
  uint64_t zone_serial; /* zones opened so far (their identities) */
  struct {              /* zone records by the address of the name last  */
    const char *name;   /* given for them (a Lua string, a C literal):   */
    uint32_t func;      /* checked by content, so a name reused at an   */
  } zcache[16];         /* address is never taken for another */
  li_frames *frames;    /* frame mode (NULL: off) */
  uint64_t idle_serial; /* the open idle span's zone (frames.c), 0: none */
  double spike_factor;  /* a spike: longer than this x the running median */
  uint64_t spike_min_ns;    /* and than this */
  uint32_t spike_keep;  /* trees of the slowest spikes kept */
  uint32_t fstamp;      /* the running frame's stamp (0: frame mode off):
                           a node whose stamp differs is touched first */
  uint32_t fstamp_last; /* the last stamp given: stamps never repeat, even
                           when frame mode is turned off and on again */
  li_mem *mem;          /* memory mode (NULL: off) */
  int mem_skip;         /* the next new block is the profiler's own */
  uint64_t alloc_total; /* bytes allocated in memory mode (frames' share) */
  char **heap_files;    /* heap snapshots written (absolute paths,
                           malloc'd), oldest first (heap.c) */
  uint32_t nheap_files;
  struct li_live *live; /* the live view (live.c; NULL: off) */
  int live_probe;       /* live on with frame mode off: the probe's general
                           path polls it (li_live_due), the fast path is off */
  int *live_flag;       /* live_probe: the channel's command flag (live.c),
                           read at every probe... */
  uint32_t live_count;  /* ...and the clock every this many probes */
  int gate;             /* on && !live_probe && !signal: the general
                           path's one test (li_prof_set_fast keeps it),
                           which costs what testing `on` did when live is
                           off */
  volatile sig_atomic_t signal;  /* a SIGTERM or SIGHUP waits for a probe
                           (run.c, li_run_signals): set with gate and
                           fastL cleared by the handler */
  void (*on_close)(lua_State *L, void *ud);  /* called as the state closes */
  void *on_close_ud;    /* its argument */
  char errmsg[512];     /* the last failed API call's message */
};

/* The stack of the running thread L (created if it has none), made the
** current one; NULL: out of memory.  The probe's path: the thread of the
** last probe is checked inline (curL and cur are set and cleared together;
** curL alone may be reset), any other one is looked up. */
li_stack *li_stack_switch(li_prof *P, lua_State *L);
static inline void li_set_cur(li_prof *P, lua_State *L, li_stack *S) {
  P->curL = L;
  P->cur = S;
  P->fastL = P->fast ? L : NULL;
}
static inline li_stack *li_stack_of(li_prof *P, lua_State *L) {
  return L == P->curL ? P->cur : li_stack_switch(P, L);
}

/* The thread the host is most likely running in when it calls the C API
** with no thread to name (lua_resume's `from` NULL): the thread of the
** last probe while it is running (neither suspended nor finished), else
** the main thread. */
lua_State *li_running_thread(li_prof *P);

/* The stack of the running thread T for the FFI probe, which must not
** call the Lua API (inside a LuaJIT trace the Lua stack is not written
** back): found by T's address only, never made (NULL: T has none yet, its
** event is not counted: P->unseen); a switch nobody told the profiler of
** is inferred as li_infer_switch infers it.  Only the main thread is made
** current here: another one could not be held alive (xs_pin), so its
** probes come here until a boundary makes it current. */
li_stack *li_stack_switch_c(li_prof *P, lua_State *T);
/* Forget S in the map by thread (its thread is gone). */
void li_tmap_del(li_prof *P, li_stack *S);
/* T is a thread just made: a stack the map holds at its address is a
** collected thread's, forgotten (boundary.c: coroutine.create, wrap). */
void li_tmap_forget(li_prof *P, const lua_State *T);

/* The running thread L's probe (or the end of its yield) finds the
** profiler's current thread is another one, and nobody told it of a
** switch: a host resumed L with Lua's own lua_resume (or called a function
** on it with lua_pcall) from C code without luainstr_wrap.h.  The resume is
** inferred (profiler.c); L's stack is returned, made current.  NULL: out
** of memory. */
li_stack *li_infer_switch(li_prof *P, lua_State *L);
/* S's inferred resume ends at t (it yields, or returned from its last
** call): its time goes to its waker's top frame, which runs again (made
** current). */
void li_infer_end(li_prof *P, li_stack *S, uint64_t t);
/* The host calls the C API (a zone, a frame mark, a dump): the inferred
** resumes that ended meanwhile end now (a coroutine that died by an
** error closes its calls), and the thread that runs is current. */
void li_infer_settle(li_prof *P);

/* The stack of the thread at index idx of L (created if it has none);
** the current stack does not change. */
li_stack *li_stack_of_thread(li_prof *P, lua_State *L, int idx);

/* Suspended S runs again at t (back from its yield): its suspension is
** excluded from its frames' times. */
void li_stack_wake(li_prof *P, li_stack *S, uint64_t t);

/* Close the top frames of S down to depth `to` at time t (frames end then:
** t already excludes nothing; suspended stacks pass their suspension time).
** err: count them as exits by an error. */
void li_stack_close(li_prof *P, li_stack *S, uint32_t to, uint64_t t, int err);

/* Close every frame of every stack (stop, disable, reset). */
void li_prof_close_all(li_prof *P, uint64_t t);

/* Clear every figure. */
void li_prof_clear(li_prof *P);

/* A coroutine ran `ticks` with `pairs` probe pairs inside, resumed from
** the top frame of S: the pairs are S's frames' (their spans hold them),
** and so is the profiler's bookkeeping of its resumes and yields, `own`
** ticks measured (P->own_clock), which they leave out.  Its time is in its
** own calls, whose nodes hang under the call that resumed it
** (li_stack_rebase). */
void li_prof_charge(li_prof *P, li_stack *S, uint64_t ticks, uint64_t pairs,
                    uint64_t own);
/* Running stack S spent `own` ticks in the profiler's bookkeeping (a
** probe's, a resume's, a yield's): its frames, and those of every stack
** waiting in a resume below it (P->own_clock), leave them out.  A span
** longer than own_max held a preemption (a probe's work is well under a
** microsecond): it stays in the calls, as a step between two probes, where
** preempt.c takes out the wait (counting it both ways took it out twice:
** call-heavy phases read a tenth of their time under load). */
static inline void li_stack_own(li_prof *P, li_stack *S, uint64_t own) {
  if (LI_UNLIKELY(own > P->own_max)) return;
  P->own_clock += own;
  if (S != NULL) S->susp += own;
}
/* Do the C probes time their own work (LI_INBAND)?  With the TSC, and not
** beside the FFI probe (jit.c), which does not: the calibration measures
** one of the two, and its cost must be the same kind for every pair. */
#define li_inband(P) (LI_INBAND && LI_CLOCK_INLINE(&(P)->clock) && \
                      (P)->probe != LI_PROBE_FFI)
/* The same for an entry probe's work from t_in until it opened fr on S:
** out of the frames below, not fr's own. */
static inline void li_entry_own(li_prof *P, li_stack *S, li_frame *fr,
                                uint64_t t_in) {
  uint64_t own = fr->start - t_in;
  if (LI_UNLIKELY(own > P->own_max)) return;
  P->own_clock += own;
  S->susp += own;
  fr->susp0 += own;
}

/* Coroutine S, about to run, is resumed from node `root`: if its open
** calls hang elsewhere (another call resumed it before), the part of them
** run so far stays in their nodes and the rest goes to the same chain of
** functions under `root`, whose nodes count no call.  So the time of a
** coroutine resumed from two places is in each resumer's total, and every
** node's children fit in it (stacks.c). */
void li_stack_rebase(li_prof *P, li_stack *S, uint32_t root, uint64_t t);

/* Start, stop, enable, disable (status codes of luainstr.h). */
int li_prof_start(li_prof *P, lua_State *L);
int li_prof_stop(li_prof *P);
int li_prof_enable(li_prof *P);
int li_prof_disable(li_prof *P);
int li_prof_reset(li_prof *P);

/* x - sub, never below zero (ticks). */
static inline uint64_t li_minus(uint64_t x, uint64_t sub) {
  return x > sub ? x - sub : 0;
}

/* The raw inclusive ticks of frame fr of stack S if it ends at t: its span
** without the time S was suspended or preempted meanwhile; the probe pairs
** run inside it are S->pairs - fr->pairs0.  Closing a frame, a frame mark
** and the snapshot's virtual close share it. */
static inline int64_t li_frame_raw(const li_stack *S, const li_frame *fr,
                                   uint64_t t) {
  return (int64_t)(t - fr->start - (S->susp - fr->susp0));
}

/* Ticks stack S was preempted so far while not suspended: a preemption
** stops every thread of the state, and a running or resuming stack's open
** calls count that time (a suspended one's do not: li_stack_wake).  One
** clock for all, so that a preemption costs no walk over the stacks (a
** hundred thousand coroutines made every one a hundred thousand steps). */
static inline uint64_t li_stack_pre(const li_prof *P, const li_stack *S) {
  return (S->suspended ? S->susp_pre : P->pre_clock) - S->pre_skip;
}
/* The same for a stack that runs, or whose suspension li_stack_close has
** settled: the probes open and close frames only there (no branch). */
static inline uint64_t li_stack_pre_run(const li_prof *P, const li_stack *S) {
  return P->pre_clock - S->pre_skip;
}

/* Add the part of open frame fr of S that ran until t to its node, and
** start the frame again at t: its min and max stay the whole call's
** (done, done_pairs).  Frame marks (frames.c) and a coroutine resumed
** from another call (li_stack_rebase) split calls so. */
static inline void li_frame_settle(li_prof *P, const li_stack *S,
                                   li_frame *fr, uint64_t t) {
  li_node *nd = &P->node[fr->node];
  int64_t part = li_frame_raw(S, fr, t);
  uint64_t pairs = S->pairs - fr->pairs0;
  nd->total += part;
  nd->pairs += pairs;
  nd->pre += (int64_t)(li_stack_pre(P, S) - fr->pre0);
  fr->pre0 = li_stack_pre(P, S);
  fr->done += part;
  fr->done_pairs += pairs;
  fr->start = t;
  fr->susp0 = S->susp;
  fr->pairs0 = S->pairs;
}

/* A node's call of `raw` ticks with `pairs` inside: its shortest or longest
** so far?  Compared corrected with the start's figures; the report corrects
** the one kept with its own (figures.c). */
static inline void li_node_minmax(const li_prof *P, li_node *nd, int64_t raw,
                                  uint64_t pairs) {
  int64_t c = raw - (int64_t)(pairs * P->pair_cost + P->inside_cost);
  if (c < nd->min) nd->min = c, nd->min_pairs = pairs;
  if (c > nd->max) nd->max = c, nd->max_pairs = pairs;
}

/* frames.c: save node n's figures as they were when the running frame
** started, the first time the frame touches it (probes check the stamp
** inline: one compare when frame mode is off). */
void li_frames_touch(li_prof *P, uint32_t n);
static inline void li_node_touch(li_prof *P, uint32_t n) {
  if (LI_UNLIKELY(P->node[n].stamp != P->fstamp)) li_frames_touch(P, n);
}

/* Record a trace event (when trace mode is on). */
void li_trace_put(li_prof *P, const li_stack *S, char kind, uint32_t func,
                  uint64_t t);
static inline void li_trace(li_prof *P, const li_stack *S, char kind,
                            uint32_t func, uint64_t t) {
  if (LI_UNLIKELY(P->trace_cap != 0)) li_trace_put(P, S, kind, func, t);
}

/* Trace mode: a buffer of `cap` events (0: off) that keeps, once full,
** its first events (LI_KEEP_FIRST: later ones are dropped), the most
** recent ones (LI_KEEP_RECENT: a ring, the oldest overwritten), or
** (LI_KEEP_AUTO) the recent ones if frame mode is on when it first fills,
** else the first.  0 if out of memory. */
#define LI_KEEP_AUTO 0
#define LI_KEEP_FIRST 1
#define LI_KEEP_RECENT 2
int li_prof_set_trace(li_prof *P, uint64_t cap, int keep);
/* Does the trace keep the most recent events (as decided, or as it would
** be decided now)? */
int li_trace_recent(const li_prof *P);
/* Event i of the trace, oldest first (i < ntrace). */
static inline const li_pevent *li_trace_at(const li_prof *P, uint64_t i) {
  uint64_t k = P->trace_next + i;
  return &P->trace[k >= P->trace_cap ? k - P->trace_cap : k];
}

/* ---- frames.c: frame marks, the ring buffer, spike frames' trees ------- */

/* Frame mode with a ring buffer of cap frames (0: off).  0: no memory. */
int li_frames_set(li_prof *P, uint64_t cap);
/* The spike rule (P->spike_*) changed: keep at most spike_keep trees. */
#define LI_SPIKES_MAX 1024u
void li_frames_rule(li_prof *P);
/* End the running frame at t (S: the stack of the thread that marks it,
** L that thread: the live view's commands run there). */
void li_frames_mark(li_prof *P, lua_State *L, li_stack *S, uint64_t t);
/* The kept tree of spike frame `index` in the model's shape (k ns a
** tick): 1 (out->nodes malloc'd, the caller's), 0 none kept, -1 no
** memory (live.c's SPIKE records). */
int li_frames_spike(const li_prof *P, uint64_t index, li_pspike *out, double k);
/* Collection stops at t (stop, disable) and starts again at t: the time
** between is no frame's; the running frame goes on. */
void li_frames_pause(li_prof *P, uint64_t t);
void li_frames_resume(li_prof *P, uint64_t t);
/* Save the nodes of S's open calls for the running frame (S runs again,
** or its calls are closed while it is suspended). */
void li_frames_wake(li_prof *P, li_stack *S);
/* Forget every frame (reset); free everything (state closing). */
void li_frames_clear(li_prof *P);
void li_frames_free(li_prof *P);
/* Idle spans (the zone "idle", its time kept apart in frames): begin one
** in the running thread L (S its stack), end the open one; status codes
** (LUAINSTR_EORDER: one is open already / none is). */
int li_idle_begin(li_prof *P, lua_State *L, li_stack *S);
int li_idle_end(li_prof *P);
/* Its part of the model (frames, spikes): 0 or -1 (no memory). */
int li_frames_snapshot(const li_prof *P, li_profile *out, double ns_per_tick);
void li_frames_snapshot_free(li_profile *out);

/* ---- zones (profiler.c) ------------------------------------------------- */

/* Open zone `name` in the running thread L (S its stack): 0 if it could
** not (no memory); its serial otherwise. */
uint64_t li_zone_begin(li_prof *P, lua_State *L, li_stack *S,
                       const char *name, size_t len);
/* Close the innermost zone, if the top frame of S is one (1), else 0. */
int li_zone_end(li_prof *P, li_stack *S);
/* Close zone `serial` (and frames opened above it: unwound by an error),
** if it is still open in S. */
void li_zone_close(li_prof *P, li_stack *S, uint64_t serial, int err);

/* ---- memory.c: memory per function ------------------------------------- */

/* Memory mode on (wrap L's allocator) or off (give it back).  0: no
** memory for the block map. */
int li_mem_set(li_prof *P, lua_State *L, int on);
/* The state closes: give the allocator back, free the map. */
void li_mem_free(li_prof *P, lua_State *L);
/* Forget the figures (reset): blocks made so far are no longer tracked. */
void li_mem_clear(li_prof *P);
/* Its part of the model (map figures). */
void li_mem_snapshot(const li_prof *P, li_profile *out);
/* Is memory mode on (the block map tracking new blocks)? */
int li_mem_active(const li_prof *P);
/* The function (li_fn index) whose code allocated the block that starts
** at `block`, as the map knows it; LI_NONE: a block it does not track
** (made before memory mode, or not a block's start) or one made outside
** user code.  Reads only (heap snapshots: allocation sites). */
uint32_t li_mem_site(li_prof *P, const void *block);

/* The probe's variants (profiler.c): how it reads its call, through the C
** API or from Lua's structures (direct.h), and with or without its fast
** path for the common case; or (LuaJIT) FFI calls where the JIT is on when
** a chunk loads, else the C API (jit.c).  Their figures are the same. */
#define LI_PROBE_API 0
#define LI_PROBE_DIRECT 1
#define LI_PROBE_FAST 2
#define LI_PROBE_FFI 3
#define LI_PROBE_KINDS 4
/* "api", "direct", "fast", "ffi" */
extern const char *const li_probe_names[LI_PROBE_KINDS];
/* The probe that ran, for the report: the option's name, but on LuaJIT
** "ffi", "api" or "ffi+api" as the chunks loaded got them. */
const char *li_prof_probe_name(const li_prof *P);
/* The LI_PROBE_* named name, or -1. */
int li_probe_kind(const char *name);

/* Option "probe": the variant for the chunks loaded from now on; only
** before any chunk is loaded and before start (the calibration measures
** the probe chunks will have). */
int li_prof_set_probe(li_prof *P, int kind);

/* Option "extraspace": keep each thread's stack in the thread's extra
** space (on, the default) or never touch it (off: the host's own; a
** switch then finds the stack in the registry); before any chunk is
** loaded and before start. */
int li_prof_set_extraspace(li_prof *P, int on);

/* Include/exclude patterns on chunk names (0: out of memory). */
int li_prof_add_pattern(li_prof *P, int include, const char *pattern);
void li_prof_clear_patterns(li_prof *P);

/* boundary.c: replace pcall, xpcall and the coroutine functions of L;
** put the originals back. */
/* Its address is the registry key of the profiler's userdata, the one way
** to it for profiler.c and the replacements of boundary.c alike. */
extern const char li_prof_key;

void li_install_boundaries(lua_State *L);
void li_restore_boundaries(lua_State *L);
/* A protected call of running thread L begins: the depth of its shadow
** stack, and it returned false: the frames above that depth close as
** exits by an error (boundary.c; LuaJIT's Lua pcall and xpcall call them,
** through the C API or FFI). */
uint32_t li_pcall_depth(li_prof *P, lua_State *L);
void li_pcall_close(li_prof *P, lua_State *L, uint32_t depth);

/* The host's lua_resume and lua_pcall with the profiler told: a coroutine
** the host resumes (or a thread it calls a function on that is not the
** running one) nests under the top of the resumer's stack, as with
** coroutine.resume (luainstr_resume, luainstr_pcall). */
int li_host_resume(lua_State *co, lua_State *from, int narg, int *nres);
int li_host_pcall(lua_State *L, int nargs, int nresults, int msgh);

/* snapshot.c: build the profile model; free it. */
int li_snapshot(li_prof *P, li_profile *out);
void li_snapshot_free(li_profile *p);

/* A node's or a function's figures: what the probes kept, then what a
** report shows, in ticks (figures.c derives the second from the first). */
typedef struct li_tally {
  uint32_t parent;      /* nodes: the parent's index (tallies of a tree) */
  uint32_t func;        /* nodes: the function (LI_NONE: the root) */
  int outer;            /* nodes: no node of the same function above it */
  uint64_t calls, errors;
  int64_t ticks;        /* raw: the calls' spans */
  uint64_t pairs;       /* probe pairs inside them */
  uint64_t counts;      /* count probes inside them: derived, the calls
                           of the counted nodes below (li_derive_nodes) */
  int counted;          /* nodes: its function is counted (li_fn.counted):
                           its calls are count probes, it has no time */
  int64_t pre;          /* ticks of `ticks` the thread was preempted */
  int64_t min, max;     /* shortest and longest call as they closed
                           (INT64_MAX, INT64_MIN: none)... */
  uint64_t min_pairs, max_pairs;  /* ...and the pairs inside them */
  /* ---- derived (li_derive_nodes; functions: li_snapshot_tally) ---- */
  int64_t total, self;  /* >= 0, self <= total, children within total */
  int64_t mn, mx;       /* one call's: mn <= total/calls <= mx <= total */
  double total_err, self_err, min_err, max_err;  /* their uncertainty */
  int64_t kid;          /* (scratch: the children's totals...) */
  uint64_t kid_pairs, kid_calls;  /* (...their pairs and calls) */
  uint64_t kid_counts;  /* (...and count probes) */
  li_pmem mem;          /* nodes: alloc_*_total include the subtree */
} li_tally;

/* The probes' cost a report takes out (ticks), how well it is known, and
** the figures the probes compared calls with as they closed. */
typedef struct li_cost {
  double pair, inside;  /* one pair, and its part inside a call */
  double pair_err, inside_err;    /* their uncertainty */
  double start_pair, start_inside; /* pair_cost, inside_cost */
  double own;           /* what a pair timed of itself, on average (already
                           out of the spans: the dilation's wall time) */
  double count, count_err; /* one count probe (li_count), its uncertainty */
} li_cost;

/* The report's figures of nd[0..n) (a tree: nd[i].parent < i for i > 0,
** node 0 the root) from their raw ones (figures.c). */
void li_derive_nodes(li_tally *nd, uint32_t n, const li_cost *c);
/* A function's figures from its nodes' derived ones (nd: nn nodes, func
** and parent set): calls, errors and self time add up; min and max are
** over all its calls; its total counts only the nodes with no node of the
** same function above them (nd[i].outer).  fn holds nfn figures: function
** f's at fn[slot[f]], or fn[f] when slot is NULL.  0: no memory. */
int li_sum_functions(li_tally *nd, uint32_t nn, li_tally *fn,
                     const uint32_t *slot, uint32_t nfn);
/* The cost the reports of P take out now, in units of k ticks (figures.c;
** k = ns_per_tick: ns). */
void li_report_cost(const li_prof *P, double k, li_cost *c);
/* A tally's raw figures in units of k ticks. */
void li_tally_scale(li_tally *t, double k);

/* The figures of every node (nd: P->nnode of them) and every function
** (fn: P->nfn) at time now, in ns, the calls still open counted as if they ended
** then (a suspended coroutine's when it was suspended), *open how many
** they are: the one computation behind the reports' figures and the live
** view's function table.  0 when memory ran out. */
int li_snapshot_tally(const li_prof *P, uint64_t now, li_tally *nd,
                      li_tally *fn, uint32_t *open);

/* ---- what the runtime's parts share of the profiler --------------------
** profiler.c  the probe, the factory, zones, the profiler's life
** calltree.c  function records and call-tree nodes
** stacks.c    shadow stacks, thread switches, inferred resumes
** calibrate.c the probe pair's cost */

#define LI_MT_PROF "luainstr.profiler.mt"  /* its metatable */
#define LI_MT_CHUNK "luainstr.chunk.mt"    /* metatable of chunk maps */

/* What the probe of one chunk knows: its upvalue 1.  debug.setupvalue
** can put any value there; the probe reads a map only if it is a full
** userdata of at least this size holding LI_CHUNK_MAGIC (Lua code cannot
** write a userdata's bytes), and else measures nothing. */
typedef struct li_chunk {
  li_prof *P;           /* the profiler */
  uint32_t n;           /* functions in the chunk */
  uint32_t magic;       /* LI_CHUNK_MAGIC */
  uint32_t gid[1];      /* gid[id-1]: li_fn index of local id */
} li_chunk;

#define LI_CHUNK_MAGIC 0x6c69c3a5u

/* A chunk map of n functions for P on top of L (gid to fill). */
li_chunk *li_chunk_new(lua_State *L, li_prof *P, uint32_t n);
/* The probe chunks loaded now get (option "probe"). */
lua_CFunction li_probe_for(const li_prof *P);
/* P->fast: the probe's fast path may run (after on, clock or trace
** change). */
void li_prof_set_fast(li_prof *P);
/* Free what P holds outside the Lua heap. */
void li_prof_free_data(li_prof *P);
/* At the first start: measure the probe pair's cost (calibrate.c). */
void li_prof_calibrate(li_prof *P, lua_State *L);
/* The count probe's cost (option "count_small" turned on after the first
** calibration, which measures it with the pair's when it is on): measured
** now, unless it was. */
void li_prof_calibrate_count(li_prof *P, lua_State *L);
/* Entries since the last measurement a report needs to measure again
** (WebAssembly: any; its slow stretches cost every pair 30-65 %). */
#ifdef __EMSCRIPTEN__
#define LI_RECAL_MIN 1
#else
#define LI_RECAL_MIN 20000
#endif
/* At a report: measure it again on the main thread, under a protected
** call, and keep the least (pair_least, inside_least). */
void li_prof_recalibrate(li_prof *P);

/* calltree.c.  The record of a function (made if new): its index, or
** LI_NONE when memory ran out; _pre with a name made of prefix + name. */
uint32_t li_fn_find(li_prof *P, const char *chunkname, uint32_t id,
                    const char *name, size_t namelen, uint32_t line,
                    uint32_t lastline);
uint32_t li_fn_find_pre(li_prof *P, const char *chunkname, uint32_t id,
                        const char *prefix, size_t prelen, const char *name,
                        size_t namelen, uint32_t line, uint32_t lastline);
/* The functions of one chunk, registered together (li_push_probe): its
** name hashed and found once, room made once for the n it has. */
typedef struct li_fn_chunk {
  const char *chunkname; /* as given */
  const char *names;    /* the profiler's copy (li_prof.chunks) */
  const char *source;   /* ... and the source as Lua shows it, after it */
  uint64_t hc;          /* hash of the name */
  uint32_t n;           /* functions in the chunk, ids 1..n */
} li_fn_chunk;
/* 0 when memory ran out. */
int li_fn_chunk_begin(li_prof *P, li_fn_chunk *c, const char *chunkname,
                      uint32_t n);
/* li_fn_find for function id of chunk c. */
uint32_t li_fn_chunk_find(li_prof *P, const li_fn_chunk *c, uint32_t id,
                          const char *name, size_t namelen, uint32_t line,
                          uint32_t lastline);
/* The call tree emptied to its root (0: no memory for the root). */
int li_tree_init(li_prof *P);
/* The child node of parent for func, made if new (LI_NONE: no memory). */
LI_NOINLINE uint32_t li_node_child_slow(li_prof *P, uint32_t parent,
                                        uint32_t func);
/* A malloc'd NUL-terminated copy of s[0..n), or NULL. */
char *li_dup_bytes(const char *s, size_t n);

/* The node for func under parent, created on first sight.  LI_NONE: no
** memory (the frame then counts under the parent's node).  A call site
** calls the same function again and again: the node found last for the
** slot of (parent, func) is checked inline.  (The child found last of
** each node, as first written, missed at every call of a method that
** calls two others in turn, or of a call site that calls several: about a
** third of the calls of richards and oo_sim went to the hash, 51
** instructions each.) */
static LI_INLINE uint32_t li_node_child(li_prof *P, uint32_t parent, uint32_t func) {
  uint32_t k = P->kids[li_kid_slot(parent, func)];
  if (P->node[k].func == func && P->node[k].parent == parent) return k;
  return li_node_child_slow(P, parent, func);
}

/* stacks.c */
void li_stack_init(li_stack *S, li_prof *P, lua_State *L);
/* Put S in P's set of stacks; write S in thread T's extra space (over
** NULL or P's own pointers only). */
void li_xs_add(li_prof *P, li_stack *S);
void li_xs_put(li_prof *P, lua_State *T, li_stack *S);
/* Free the stacks of the coroutines collected since the last sweep (L
** any thread of P's state).  Also done as stacks are made. */
void li_stacks_sweep(li_prof *P, lua_State *L);
/* Free every stack but the main thread's: the state is closing. */
void li_stacks_free(li_prof *P);
/* The zones among the top frames of S down to depth `to`. */
uint32_t li_stack_zones(const li_stack *S, uint32_t to);

/* Close the top frame of S at time t: its figures to its node, its time
** to the frame below.  No call: the probe's fast path has it too. */
static LI_INLINE li_frame *li_frame_close(li_prof *P, li_stack *S, uint64_t t,
                                       int err) {
  li_frame *fr = &S->f[--S->n];
  li_node *nd = &P->node[fr->node];
  int64_t raw = li_frame_raw(S, fr, t);
  uint64_t pairs = S->pairs - fr->pairs0;
  nd->total += raw;
  nd->pairs += pairs;
  nd->pre += (int64_t)(li_stack_pre_run(P, S) - fr->pre0);
  li_node_minmax(P, nd, raw + fr->done, pairs + fr->done_pairs);
  if (err) nd->errors++;
  return fr;
}

static LI_INLINE void li_close_top(li_prof *P, li_stack *S, uint64_t t, int err) {
  li_frame *fr = li_frame_close(P, S, t, err);
  li_trace(P, S, err ? 'X' : 'E', fr->func, t);
}

/* ---- opening frames: the C probe (profiler.c) and the FFI probe (jit.c) */

/* Room for twice as many frames in S: 0 when there is no memory. */
LI_NOINLINE int li_grow_frames(li_stack *S);

/* Open a frame of func in node `node` on S (with room for it), identified
** by ci; its start is the caller's to set.  No call: the probe's fast path
** has it too. */
static LI_INLINE li_frame *li_frame_open(li_prof *P, li_stack *S, li_frame *fr,
                                         const void *ci, uint32_t func,
                                         uint32_t node) {
  S->n++;
  fr->ci = ci;
  fr->func = func;
  fr->node = node;
  S->pairs++;                   /* this pair, for the frames below */
  fr->pairs0 = S->pairs;
  fr->susp0 = S->susp;
  fr->pre0 = li_stack_pre_run(P, S);
  fr->done = 0;
  fr->done_pairs = 0;
  P->node[node].calls++;
  P->entries++;
  return fr;
}

/* preempt.c: the probe at t found the step since the last probe longer
** than gap_thr: the time the thread waited for a CPU meanwhile is counted
** against every open call of a stack not suspended (li_stack_pre); the
** ticks counted.  Asking starts at t (start, enable); stops. */
LI_NOINLINE uint64_t li_gap(li_prof *P, uint64_t t);
void li_gap_start(li_prof *P, uint64_t t);
void li_gap_free(li_prof *P);
/* The check at an exit probe's time t, and at an entry's (fr just opened:
** the wait is not its own). */
static LI_INLINE void li_gap_exit(li_prof *P, uint64_t t) {
  if (LI_UNLIKELY(t > P->gap_at)) li_gap(P, t);
  P->gap_at = t + P->gap_thr;
}
static LI_INLINE void li_gap_entry(li_prof *P, li_frame *fr) {
  if (LI_UNLIKELY(fr->start > P->gap_at)) fr->pre0 += li_gap(P, fr->start);
  P->gap_at = fr->start + P->gap_thr;
}

/* Open a frame of func (a function or a zone) on S, identified by ci, with
** room for it, and start its clock.  0: no memory for its node, nothing
** opened (its exit then finds no frame, as when the stack could not grow:
** a frame counted in its parent's node would have its time twice there). */
static LI_INLINE int li_push_frame(li_prof *P, li_stack *S, const void *ci,
                                   uint32_t func) {
  uint32_t parent = S->n > 0 ? S->f[S->n - 1].node : S->root;
  uint32_t node = li_node_child(P, parent, func);
  li_frame *fr;
  if (LI_UNLIKELY(node == LI_NONE)) return 0;
  li_node_touch(P, node);
  fr = li_frame_open(P, S, &S->f[S->n], ci, func, node);
  fr->start = li_clock_ticks(&P->clock);
  li_gap_entry(P, fr);
  li_trace(P, S, 'B', func, fr->start);
  return 1;
}

/* A call of counted function func (option "count_small": P(id, 1), no exit
** probe) on S: counted in its node under S's top frame, nothing timed; its
** time is the caller's, which the report corrects for the count probes
** inside it (the counted nodes below it, li_derive_nodes).  0: no memory
** for its node (not counted). */
static LI_INLINE int li_count(li_prof *P, li_stack *S, uint32_t func) {
  uint32_t parent = S->n > 0 ? S->f[S->n - 1].node : S->root;
  uint32_t node = li_node_child(P, parent, func);
  if (LI_UNLIKELY(node == LI_NONE)) return 0;
  li_node_touch(P, node);
  P->node[node].calls++;
  P->fn[func].counted = 1;
  P->counted++;
  return 1;
}

/* The stack of the running thread L for a probe, made current: a thread
** other than the last probe's is a switch (profiler.c); NULL: no memory. */
LI_NOINLINE li_stack *li_probe_switch(li_prof *P, lua_State *L);
static LI_INLINE li_stack *li_probe_stack(li_prof *P, lua_State *L) {
  return L == P->curL ? P->cur : li_probe_switch(P, L);
}

/* ---- FFI frames: no identity (jit.c, and its lua_CFunction slow path) -- */

/* An FFI entry of func on S: a frame with no identity. */
static LI_INLINE void li_ffi_enter(li_prof *P, li_stack *S, uint32_t func) {
  if (LI_UNLIKELY(S->n == S->cap || S->ffi_lost != 0) &&
      (S->ffi_lost != 0 || !li_grow_frames(S))) {
    S->ffi_lost++;
    return;
  }
  if (!li_push_frame(P, S, LI_FFI_CI, func)) S->ffi_lost++;
}

/* An FFI exit whose frame is not on top of S (profiler.c). */
LI_NOINLINE void li_ffi_leave_deep(li_prof *P, li_stack *S, uint64_t t);

/* An FFI exit at time t on S: the top function frame closes. */
static LI_INLINE void li_ffi_leave(li_prof *P, li_stack *S, uint64_t t) {
  P->exits++;
  li_gap_exit(P, t);
  if (LI_LIKELY(S->n > 0 && li_is_ffi(&S->f[S->n - 1]) && S->ffi_lost == 0))
    li_close_top(P, S, t, 0);
  else
    li_ffi_leave_deep(P, S, t);
  if (LI_UNLIKELY(S->n == 0 && S->waker != NULL)) li_infer_end(P, S, t);
}


#endif
