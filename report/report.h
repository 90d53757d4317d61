/*
** report.h -- the one profile model every report writer reads, and the
** writers' entry points.  A li_profile is a snapshot: plain data with times
** in nanoseconds, already corrected for the probes' own cost.  The runtime
** builds it (runtime/snapshot.c); writers only read it.
*/
#ifndef LI_REPORT_H
#define LI_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Memory figures (memory mode, luainstr_set_option "memory"; all 0
** otherwise).  Every allocation of the state is charged to the function
** or zone on top of the running coroutine's stack (the tree's root when
** none is: code outside user code).  A block belongs to whoever allocated
** it: its growth and its free (by the collector, whenever) are charged to
** that owner, so live bytes stay with the code that made them. */
typedef struct li_pmem {
  uint64_t alloc_bytes; /* bytes allocated while it ran (self): new blocks
                           and the growth of blocks by realloc */
  uint64_t alloc_count; /* allocations (self): new blocks, growing reallocs */
  uint64_t alloc_bytes_total; /* alloc_bytes including its callees' */
  uint64_t alloc_count_total; /* alloc_count including its callees' */
  uint64_t free_bytes;  /* bytes of its blocks freed since (by anyone) */
  uint64_t live_bytes;  /* bytes of its blocks still allocated */
  uint64_t peak_live_bytes; /* the most live_bytes it held at one time
                           (functions; nodes and frames: 0) */
  uint64_t max_alloc_bytes; /* largest single allocation (self) */
} li_pmem;

/* One function of user code (by chunk and definition), or one zone. */
typedef struct li_pfunc {
  const char *name;     /* "M.a.b:m", "local f", "anonymous", "main chunk";
                           a zone: "zone NAME" */
  const char *source;   /* chunk as Lua shows it: "f.lua", "[string \"x\"]";
                           a zone: "zone" */
  int zone;             /* a zone (luainstr_zone_begin, p.zone): a named span
                           that nests with functions like a call */
  uint32_t line;        /* Lua's linedefined (0: main chunk) */
  uint32_t lastline;    /* line of its `end` (0: main chunk) */
  uint64_t calls;       /* entries */
  uint64_t errors;      /* exits by an error */
  uint64_t total_ns;    /* inclusive, once per outermost activation */
  uint64_t self_ns;     /* exclusive */
  uint64_t min_ns;      /* shortest inclusive time of one call (0 if none) */
  uint64_t max_ns;      /* longest */
  li_pmem mem;          /* memory mode */
  /* How far each time may be off: the probes' cost taken out of it times
  ** the uncertainty of that cost (runtime/figures.c).  A time no larger
  ** than a few times its uncertainty is an estimate (li_estimate). */
  uint64_t total_err_ns, self_err_ns, min_err_ns, max_err_ns;
  int counted;          /* counted, not timed (option "count_small"): its
                           calls are exact, its times 0 and not known (they
                           are in its callers' self times), and the reports
                           say "counted" where its times would be */
} li_pfunc;

/* One node of the call tree: a function in one calling context.  Node 0 is
** the root (func = UINT32_MAX); parents come before their children. */
typedef struct li_pnode {
  uint32_t func;        /* index in li_profile.funcs */
  uint32_t parent;      /* index of the parent node */
  uint64_t calls;       /* entries in this context */
  uint64_t errors;      /* exits by an error */
  uint64_t total_ns;    /* inclusive */
  uint64_t self_ns;     /* exclusive */
  li_pmem mem;          /* memory mode (peak_live_bytes 0) */
  uint64_t total_err_ns, self_err_ns;  /* their uncertainty (li_pfunc's) */
} li_pnode;

/* Is a time of `ns` with uncertainty `err_ns` an estimate, not a
** measurement: could it be off by more than a quarter of itself?  The
** reports mark such figures (text and html with "~", json and csv by
** their *_err_ns fields), and show one no larger than its uncertainty as
** a bound ("<err") rather than a number. */
static inline int li_estimate(uint64_t ns, uint64_t err_ns) {
  return err_ns > 0 && err_ns * 4 > ns;
}

/* A frame (luainstr_frame, p.frame): the span between two frame marks.
** Its duration is corrected for the probes' cost as function times are. */
typedef struct li_pframe {
  uint64_t index;       /* 1-based, in order (the first kept one may be
                           later than 1 when the ring buffer wrapped) */
  uint64_t start_ns;    /* since collection started (as trace events) */
  uint64_t duration_ns; /* from the previous mark (or the start) to its own */
  uint64_t calls;       /* entries of functions (and zones) in it */
  uint64_t alloc_bytes; /* memory mode: bytes allocated in it */
  uint32_t spike;       /* index in li_profile.spikes + 1 when its call tree
                           was kept (a spike), else 0 */
  uint64_t idle_ns;     /* of its duration, in idle spans (luainstr_idle_begin:
                           the host's sleep, vsync); the rest is its busy
                           time (li_frame_busy), what the spike rule reads */
} li_pframe;

/* A frame's busy time: its duration less its idle spans. */
static inline uint64_t li_frame_busy(const li_pframe *fr) {
  return fr->duration_ns > fr->idle_ns ? fr->duration_ns - fr->idle_ns : 0;
}

/* A spike frame's own call tree: what ran in it, in the shape of the whole
** run's tree (nodes[0] is the root, parents before children, func indexes
** li_profile.funcs); figures are those of this frame only. */
typedef struct li_pspike {
  uint64_t frame;       /* its li_pframe.index */
  uint64_t duration_ns; /* the frame's */
  li_pnode *nodes;      /* its tree; parent indexes are into this array */
  uint32_t nnodes;
} li_pspike;

/* One event of the trace (trace mode, see luainstr_set_option "trace"):
** 24 bytes (its sizeof on 64-bit targets and in WebAssembly).  Per thread, 'B'
** and 'E' pair up like calls and returns, except that a trace may end (or
** have been cut when its buffer filled) with calls still open, and a ring
** (trace_recent) or a trace turned on inside calls may begin with ends
** whose begins it does not hold. */
typedef struct li_pevent {
  uint64_t ts_ns;       /* since the trace started */
  uint32_t func;        /* li_profile.funcs index ('B', 'E', 'X') */
  uint32_t thread;      /* the coroutine: 0 main thread, then 1, 2, ... in
                           the order they were first seen */
  char kind;            /* 'B' entry, 'E' exit, 'X' exit by an error,
                           'Y' the thread yields, 'R' it is resumed,
                           'F' a frame ends (func: UINT32_MAX; thread: the
                           thread that marked it) */
} li_pevent;

/* The whole profile. */
typedef struct li_profile {
  li_pfunc *funcs;      /* functions, in no particular order */
  uint32_t nfuncs;
  li_pnode *nodes;      /* call tree, nodes[0] = root */
  uint32_t nnodes;
  uint64_t wall_ns;     /* time the profiler collected */
  uint64_t probes;      /* probe calls counted (entries + exits) */
  uint64_t overhead_ns; /* probe cost subtracted from the figures */
  uint64_t preempted_ns; /* time the thread waited for a CPU, taken out of
                           the figures (runtime/preempt.c) */
  double probe_pair_ns; /* calibrated cost of one entry+exit pair */
  double probe_inside_ns; /* the part of it inside the measured call */
  uint32_t count_small; /* option "count_small" (0: off): functions of at
                           most this many tokens with no call or loop were
                           counted, not timed (li_pfunc.counted) */
  double count_probe_ns; /* calibrated cost of one count probe, taken out
                           of its callers' times (0: none) */
  const char *clock;    /* "tsc", "clock_gettime(CLOCK_MONOTONIC)" or the
                           name the host gave its clock */
  double clock_resolution_ns; /* smallest step the clock showed at start
                           (0: unknown); one call's time below it (min,
                           max) is not meaningful, sums over many are */
  uint32_t open_calls;  /* calls not yet returned at the snapshot (a
                           suspended coroutine's, or the dump's callers),
                           counted as if they ended then */
  const char *warnings; /* rewriter warnings and what the profiler noticed
                           of the host (chunks it never saw, threads run
                           behind its back), "line\n" each, or NULL */
  char *warnings_own;   /* warnings when the snapshot made them (malloc'd,
                           freed with it), else NULL */
  int tracing;          /* trace mode was on */
  const li_pevent *events;  /* the trace, in time order (NULL: none) */
  uint64_t nevents;
  uint64_t events_dropped;  /* events lost because the buffer was full:
                               the later ones, or with trace_recent the
                               older ones (overwritten) */
  uint64_t trace_capacity;  /* the buffer's size, in events */
  int trace_recent;     /* the buffer is a ring that keeps the most recent
                           events (0: it keeps the first ones) */
  /* frames (luainstr_set_option "frames") */
  int framing;          /* frame marking was on */
  const li_pframe *frames;  /* the frames kept, in order (NULL: none) */
  uint64_t nframes;
  uint64_t frames_marked;   /* frames ended in all (nframes + the ones the
                               ring buffer dropped, oldest first) */
  uint64_t frame_capacity;  /* the ring buffer's size, in frames */
  double spike_factor;  /* a spike lasts longer than this many times the
                           running median of recent frames... */
  uint64_t spike_min_ns;    /* ...and longer than this (0: no floor) */
  uint32_t spike_keep;  /* call trees kept: the slowest spikes */
  const li_pspike *spikes;  /* kept spike frames, in frame order */
  uint32_t nspikes;
  uint64_t spikes_seen; /* frames over the threshold, kept or not */
  /* memory (luainstr_set_option "memory") */
  int memory;           /* memory mode was on */
  li_pmem mem_outside;  /* allocations outside any function of user code */
  uint64_t mem_blocks;  /* blocks the map tracks now */
  uint64_t mem_map_bytes;   /* the block map's own memory (malloc'd) */
  uint64_t mem_untracked_frees; /* frees of blocks made before memory mode */
  const char *version;  /* luainstr's version (LUAINSTR_VERSION) of the
                           program that took it, e.g. "0.1.0"; NULL unknown */
  uint64_t time_ns;     /* when it was taken, ns since the Unix epoch
                           (CLOCK_REALTIME; 0 unknown): collection began
                           wall_ns before it, give or take pauses */
  const char *probe;    /* how the probe read its calls (option "probe"):
                           "fast", "direct" or "api"; NULL unknown */
  /* heap snapshots (docs/heap.md) */
  const char *const *heap_files;  /* .heapsnapshot files the run wrote,
                           oldest first (the html report's heap view) */
  uint32_t nheap_files;
} li_profile;

/* Do p's figures agree with each other (report/check.c)?  For every node
** of the tree and of every spike's: errors <= calls, self <= total, and
** total is self plus the children's totals; for every function: errors
** <= calls, self <= total, min <= the mean call <= max <= total (min =
** max = total for one call; min and max both 0: not known, as from
** pprof), and with a tree, calls, errors and self the sums of its nodes',
** total the sum of its outermost ones'; no root's total above wall_ns
** (when known); no frame idle longer than it lasted.  A sum of n figures
** may be n ns off (each was rounded once).  0 when they agree (also when
** memory ran out to tell), else -1 with the first contradiction, names
** and numbers, in why. */
int li_profile_check(const li_profile *p, char *why, size_t len);

/* Is format a known report format? */
int li_report_known(const char *format);

/* NULL when format is a format of this build; else buf, holding why not:
** "pprof: this build has no protobuf-c" for a format other builds have,
** "unknown format 'x' (formats: text, csv, ...)" for any other (NULL
** included).  Every caller that takes a format from its user says this. */
const char *li_report_format_error(const char *format, char *buf,
                                   size_t len);

/* The formats, comma separated, for messages. */
const char *li_report_formats(void);

/* Write p in format to f.  Returns 0, or -1 with errno set by stdio. */
int li_report_write(const li_profile *p, const char *format, FILE *f);

/* Write p in format to path: a regular file (or a new one) is written to a
** temporary file beside it and renamed into place, so it is never left half
** written; anything else (/dev/stderr, a pipe, a tty) is opened and written
** directly, never replaced.  Returns 0, or -1 with a message in err. */
int li_report_to_path(const li_profile *p, const char *format,
                      const char *path, char *err, size_t errlen);

/* The report path a program gave at start, made absolute against the
** current directory now, so that a report written at exit lands where the
** user meant even if the program changed directory (a relative path is
** otherwise resolved when the file is opened).  Returns a malloc'd copy
** (of path itself if it is absolute), or NULL if path is NULL or empty or
** the current directory cannot be read (the caller keeps path). */
char *li_report_abspath(const char *path);

/* Is format binary (pprof) and f a terminal, where it would only garble
** the screen?  luaprof and luainstr.run write to stderr unless given a
** file: li_report_to_path and luainstr_dump refuse then, with the message
** LI_REPORT_BINARY_TTY (its %s: the format). */
int li_report_binary_tty(const char *format, FILE *f);
#define LI_REPORT_BINARY_TTY \
  "the %s report is binary (gzip) and is not written to a terminal: give it a file"

/* Write p in format to a malloc'd string (*out, *outlen).  0 or -1. */
int li_report_to_string(const li_profile *p, const char *format,
                        char **out, size_t *outlen);

#endif
