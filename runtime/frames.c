/*
** frames.c -- frame mode: the frames a game marks (luainstr_frame,
** p.frame), a ring buffer of their summaries, and the call trees of the
** slowest spike frames.
**
** A frame's own tree is the difference of the call tree's figures between
** its start and its end.  To have them complete at a mark, every open
** frame of every stack is split there: the part of the call that ran so
** far is added to its node (frames keep in `done` what was added, so min
** and max still see whole calls).  The first time a frame touches a node
** (an entry, a close of a call split at the last mark, an allocation), the
** node's figures are saved in the dirty list; at the end of a spike frame
** the tree is the saved nodes' differences, their ancestors added.  So a
** mark costs the open frames (split and saved again), never the size of
** the tree, and a frame that is not kept costs nothing more.
**
** Spikes: a frame is one when it is busy longer than spike_factor times
** the median busy time of the LI_WINDOW frames before it (once there are
** LI_HISTORY of them) and longer than spike_ms.  Busy: the frame less its
** idle spans (luainstr_idle_begin/end: the host's sleep or vsync wait),
** which would otherwise hide a spike inside the frame budget.  The trees
** of the `keep` slowest spikes are kept: a slower one replaces the
** fastest kept, whose summary loses its mark.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profiler.h"
#include "live.h"

#define LI_WINDOW 63            /* frames of the running median */
#define LI_HISTORY 4            /* frames before any can be a spike */

static uint64_t ns(int64_t ticks, double k);

/* One frame's summary (ticks). */
typedef struct fsum {
  uint64_t index;       /* 1-based */
  uint64_t start;       /* ticks at its start */
  int64_t dur;          /* ticks, the probes' cost taken out */
  int64_t idle;         /* ticks of it in idle spans */
  uint64_t calls;       /* entries in it */
  uint64_t alloc;       /* bytes allocated in it */
  int spike;            /* its tree is kept */
  int64_t raw;          /* dur before it was clamped at 0, and idle */
  int64_t idle_raw;     /* before it was clamped at dur (the report's
                           pair cost may be less than pair_cost) */
} fsum;

/* A node's figures, saved at the first touch of a frame, or a spike
** tree's node with the frame's differences. */
typedef struct nfig {
  uint32_t node;        /* in P->node */
  uint32_t parent;      /* a spike tree's: local index of the parent */
  uint64_t calls, errors;
  int64_t total;        /* raw ticks (li_node.total) */
  uint64_t pairs;       /* (li_node.pairs) */
  int64_t pre;          /* (li_node.pre) */
  li_nmem mem;
} nfig;

typedef struct spike {
  uint64_t frame;       /* index of its frame */
  int64_t dur;          /* its duration, ticks */
  int64_t busy;         /* the part not idle: spikes are ranked by it */
  int64_t raw, idle_raw; /* its frame's (fsum) */
  uint64_t calls;       /* entries in its frame */
  nfig *nodes;          /* its tree, nodes[0] the root (malloc'd) */
  uint32_t n;
} spike;

struct li_frames {
  fsum *ring;           /* summaries: frame i at ring[(i - 1) % cap] */
  uint64_t cap;
  uint64_t marked;      /* frames ended */
  uint64_t t0;          /* start of the running frame, moved on by the
                           pauses of collection since */
  uint64_t start;       /* start of the running frame, as it was */
  uint64_t entries0;    /* P->entries then */
  uint64_t counted0;    /* P->counted then */
  uint64_t alloc0;      /* P->alloc_total then */
  int64_t sorted[LI_WINDOW];  /* the last frames' durations, sorted */
  int64_t fifo[LI_WINDOW];    /* the same in order, oldest at head */
  uint32_t nwin, head;
  spike *spikes;        /* kept, in no order (malloc'd, keep slots) */
  uint32_t nspikes;
  uint64_t seen;        /* spike frames, kept or not */
  nfig *dirty;          /* nodes the running frame touched, as they were */
  uint32_t ndirty, capdirty;
  int incomplete;       /* the dirty list could not grow: not a tree */
  int paused;           /* collection is not running: the frame waits... */
  uint64_t paused_at;   /* ...since then (none of it is the frame's) */
  uint32_t build;       /* tree builds so far (node marks) */
  uint64_t idle_since;  /* an idle span is open: since then (or the last
                           mark, or the end of a pause); 0: none */
  int64_t idle;         /* ticks of the running frame in closed spans */
};


/* ======================================================================
** Saving the nodes a frame touches
** ====================================================================== */

static void save(nfig *b, const li_node *nd, uint32_t n) {
  b->node = n;
  b->parent = 0;
  b->calls = nd->calls;
  b->errors = nd->errors;
  b->total = nd->total;
  b->pairs = nd->pairs;
  b->pre = nd->pre;
  b->mem = nd->mem;
}

void li_frames_touch(li_prof *P, uint32_t n) {
  li_frames *F = P->frames;
  li_node *nd = &P->node[n];
  nd->stamp = P->fstamp;
  if (F == NULL) return;
  if (F->ndirty == F->capdirty) {
    uint32_t cap = F->capdirty ? F->capdirty * 2 : 256;
    nfig *d = realloc(F->dirty, (size_t)cap * sizeof *d);
    if (d == NULL) { F->incomplete = 1; return; }
    F->dirty = d;
    F->capdirty = cap;
  }
  save(&F->dirty[F->ndirty++], nd, n);
}

/* The running frame starts at t: a new stamp, and the nodes of the open
** frames saved (they are touched when their calls end).  A suspended
** coroutine's are saved when it is resumed (li_frames_wake) or its frames
** are closed (li_stack_close): a mark costs the stacks that run, not the
** coroutines that wait. */
static void begin_frame(li_prof *P, uint64_t t) {
  li_frames *F = P->frames;
  F->t0 = F->start = t;
  F->entries0 = P->entries;
  F->counted0 = P->counted;
  F->alloc0 = P->alloc_total;
  F->ndirty = 0;
  F->incomplete = 0;
  F->idle = 0;
  if (F->idle_since != 0) F->idle_since = t;
  if (++P->fstamp_last == 0) P->fstamp_last = 1;
  P->fstamp = P->fstamp_last;
  for (li_stack *S = &P->main; S != NULL; S = S->next)
    if (!S->suspended) li_frames_wake(P, S);
}

void li_frames_wake(li_prof *P, li_stack *S) {
  for (uint32_t i = 0; i < S->n; i++) li_node_touch(P, S->f[i].node);
}

/* Add the part of every open call of S that ran until t to its node.  A
** stack waiting in coroutine.resume has its top call's child time charged
** first: the coroutine's part so far (resume charges the rest). */
static void split(li_prof *P, li_stack *S, uint64_t t) {
  if (S->resuming) {
    li_prof_charge(P, S, t - S->res_t0, P->entries - S->res_pairs0,
                   P->own_clock - S->res_own0);
    S->res_t0 = t;
    S->res_pairs0 = P->entries;
    S->res_own0 = P->own_clock;
  }
  /* (the probes' work inside the call is taken out by the report, once
  ** a call) */
  for (uint32_t i = S->n; i-- > 0;) li_frame_settle(P, S, &S->f[i], t);
}


/* ======================================================================
** Spike trees
** ====================================================================== */

static int cmp_fig(const void *a, const void *b) {
  uint32_t x = ((const nfig *)a)->node, y = ((const nfig *)b)->node;
  return (x > y) - (x < y);
}

/* Index of node n in t[0..k) sorted by node (it is there). */
static uint32_t find_fig(const nfig *t, uint32_t k, uint32_t n) {
  uint32_t lo = 0, hi = k;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (t[mid].node < n) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* The running frame's tree: the touched nodes' differences and their
** ancestors (whose own figures did not change in the frame: zero). */
static int build_tree(li_prof *P, spike *sp) {
  li_frames *F = P->frames;
  uint32_t k = 0, build = ++F->build ? F->build : ++F->build;
  nfig *t;
  /* every node of the tree once: the touched ones and their ancestors
  ** (a node's parent has a smaller index, so sorting puts parents first) */
  for (uint32_t i = 0; i < F->ndirty; i++)
    for (uint32_t n = F->dirty[i].node; n != LI_NONE && P->node[n].mark != build;
         n = P->node[n].parent) {
      P->node[n].mark = build;
      k++;
    }
  if (P->node[0].mark != build) { P->node[0].mark = build; k++; }
  t = malloc((size_t)k * sizeof *t);
  if (t == NULL) return 0;
  k = 0;
  for (uint32_t i = 0; i < F->ndirty; i++)
    for (uint32_t n = F->dirty[i].node; n != LI_NONE && P->node[n].mark == build;
         n = P->node[n].parent) {
      P->node[n].mark = build - 1;       /* listed */
      memset(&t[k], 0, sizeof t[k]);
      t[k++].node = n;
    }
  if (P->node[0].mark == build) { memset(&t[k], 0, sizeof t[k]); t[k++].node = 0; }
  qsort(t, k, sizeof *t, cmp_fig);
  for (uint32_t i = 0; i < F->ndirty; i++) {
    const nfig *b = &F->dirty[i];
    const li_node *nd = &P->node[b->node];
    nfig *o = &t[find_fig(t, k, b->node)];
    o->calls = nd->calls - b->calls;
    o->errors = nd->errors - b->errors;
    o->total = nd->total - b->total;
    o->pairs = nd->pairs - b->pairs;
    o->pre = nd->pre - b->pre;
    o->mem.alloc_bytes = nd->mem.alloc_bytes - b->mem.alloc_bytes;
    o->mem.alloc_count = nd->mem.alloc_count - b->mem.alloc_count;
    o->mem.free_bytes = nd->mem.free_bytes - b->mem.free_bytes;
    o->mem.live = nd->mem.live - b->mem.live;
    o->mem.max_alloc = 0;
  }
  for (uint32_t i = 1; i < k; i++)
    t[i].parent = find_fig(t, k, P->node[t[i].node].parent);
  sp->nodes = t;
  sp->n = k;
  return 1;
}

/* The kept spike that lasted least (there is one). */
static uint32_t fastest_spike(const li_frames *F) {
  uint32_t low = 0;
  for (uint32_t i = 1; i < F->nspikes; i++)
    if (F->spikes[i].busy < F->spikes[low].busy) low = i;
  return low;
}

/* Keep the tree of the frame that just ended (index, dur) if it is among
** the slowest spikes. */
static void keep_spike(li_prof *P, fsum *s) {
  li_frames *F = P->frames;
  spike *sp;
  if (P->spike_keep == 0 || F->incomplete) return;
  if (F->nspikes < P->spike_keep) {
    sp = &F->spikes[F->nspikes];
    if (!build_tree(P, sp)) return;
    F->nspikes++;
  } else {
    spike tmp;
    sp = &F->spikes[fastest_spike(F)];
    if (s->dur - s->idle <= sp->busy || !build_tree(P, &tmp)) return;
    if (sp->frame + F->cap > F->marked) {          /* still in the ring */
      fsum *old = &F->ring[(sp->frame - 1) % F->cap];
      if (old->index == sp->frame) old->spike = 0;
    }
    free(sp->nodes);
    *sp = tmp;
  }
  sp->frame = s->index;
  sp->dur = s->dur;
  sp->raw = s->raw;
  sp->idle_raw = s->idle_raw;
  sp->calls = s->calls;
  sp->busy = s->dur - s->idle;
  s->spike = 1;
}


/* ======================================================================
** The running median
** ====================================================================== */

static void window_add(li_frames *F, int64_t d) {
  uint32_t i;
  if (F->nwin == LI_WINDOW) {                 /* drop the oldest */
    int64_t old = F->fifo[F->head];
    for (i = 0; F->sorted[i] != old; i++) {}
    memmove(&F->sorted[i], &F->sorted[i + 1],
            (F->nwin - i - 1) * sizeof F->sorted[0]);
    F->nwin--;
    F->fifo[F->head] = d;
    F->head = (F->head + 1) % LI_WINDOW;
  } else {
    F->fifo[(F->head + F->nwin) % LI_WINDOW] = d;
  }
  for (i = F->nwin; i > 0 && F->sorted[i - 1] > d; i--)
    F->sorted[i] = F->sorted[i - 1];
  F->sorted[i] = d;
  F->nwin++;
}

static int is_spike(const li_prof *P, const li_frames *F, int64_t d) {
  if (F->nwin < LI_HISTORY ||
      (double)d <= P->spike_factor * (double)F->sorted[F->nwin / 2])
    return 0;
  /* the floor in ns: the tick length as known now (a TSC's is measured
  ** as the run goes) */
  return P->spike_min_ns == 0 ||
         (double)d * li_clock_ns_per_tick_now(&P->clock) > (double)P->spike_min_ns;
}


/* ======================================================================
** Marks
** ====================================================================== */

/* The live view's record of the frame that just ended (ns: the tick's
** length as known now, without the wait of a calibration). */
static void live_record(li_prof *P, const fsum *s, int is_sp, uint64_t t,
                        li_lrec_frame *o) {
  double k = li_clock_ns_per_tick_now(&P->clock);
  memset(o, 0, sizeof *o);
  o->index = s->index;
  o->t_ns = t;                  /* (ticks: li_live_frame makes it ns) */
  o->duration_ns = ns(s->dur, k);
  o->idle_ns = ns(s->idle, k);
  o->busy_ns = ns(s->dur - s->idle, k);
  o->calls = s->calls;
  o->alloc_bytes = s->alloc;
  o->spike = (uint32_t)is_sp;
}

void li_frames_mark(li_prof *P, lua_State *L, li_stack *S, uint64_t t) {
  li_frames *F = P->frames;
  fsum *s;
  int64_t dur, busy, raw;
  int spiked = 0;
  li_lrec_frame rec;
  if (F == NULL) return;
  /* a coroutine suspended since before the frame began ran nothing in it:
  ** its calls were split when it stopped, at the mark after that */
  for (li_stack *T = &P->main; T != NULL; T = T->next)
    if (!T->suspended) split(P, T, t);
    else if (T->susp_since >= F->t0) split(P, T, T->susp_since);
  dur = raw = (int64_t)(t - F->t0) -
        (int64_t)((P->entries - F->entries0) * P->pair_cost +
                  (P->counted - F->counted0) * P->count_cost);
  if (dur < 0) dur = 0;
  if (F->idle_since != 0) F->idle += (int64_t)(t - F->idle_since);
  s = &F->ring[F->marked % F->cap];
  s->raw = raw;
  s->idle_raw = F->idle;
  if (F->idle > dur) F->idle = dur;
  busy = dur - F->idle;
  s->index = ++F->marked;
  s->start = F->start;
  s->dur = dur;
  s->idle = F->idle;
  s->calls = P->entries - F->entries0 + (P->counted - F->counted0);
  s->alloc = P->alloc_total - F->alloc0;
  s->spike = 0;
  if (is_spike(P, F, busy)) {
    F->seen++;
    keep_spike(P, s);
    spiked = 1;
  }
  window_add(F, busy);
  li_trace(P, S, 'F', LI_NONE, t);
  if (P->live != NULL) live_record(P, s, spiked, t, &rec);
  begin_frame(P, t);
  /* (last: the view's commands may stop, reset or dump the profiler) */
  if (P->live != NULL) li_live_frame(P, L, &rec);
}

void li_frames_pause(li_prof *P, uint64_t t) {
  li_frames *F = P->frames;
  if (F == NULL || F->paused) return;
  F->paused = 1;
  F->paused_at = t;
}

void li_frames_resume(li_prof *P, uint64_t t) {
  li_frames *F = P->frames;
  if (F == NULL || !F->paused) return;
  F->t0 += t - F->paused_at;    /* the running frame goes on */
  if (F->idle_since != 0) F->idle_since += t - F->paused_at;
  F->paused = 0;
}

void li_frames_rule(li_prof *P) {
  li_frames *F = P->frames;
  if (P->spike_keep > LI_SPIKES_MAX) P->spike_keep = LI_SPIKES_MAX;
  if (F == NULL) return;
  while (F->nspikes > P->spike_keep) {       /* drop the fastest */
    uint32_t low = fastest_spike(F);
    free(F->spikes[low].nodes);
    F->spikes[low] = F->spikes[--F->nspikes];
  }
}

static void free_spikes(li_frames *F) {
  for (uint32_t i = 0; i < F->nspikes; i++) free(F->spikes[i].nodes);
  F->nspikes = 0;
}

void li_frames_clear(li_prof *P) {
  li_frames *F = P->frames;
  if (F == NULL) return;
  free_spikes(F);
  F->marked = 0;
  F->seen = 0;
  F->nwin = F->head = 0;
  begin_frame(P, li_clock_ticks(&P->clock));
  F->paused = !P->on;
  F->paused_at = F->t0;
}

void li_frames_free(li_prof *P) {
  li_frames *F = P->frames;
  if (F == NULL) return;
  free_spikes(F);
  free(F->spikes);
  free(F->ring);
  free(F->dirty);
  free(F);
  P->frames = NULL;
  P->fstamp = 0;
}

int li_frames_set(li_prof *P, uint64_t cap) {
  li_frames *F = P->frames;
  if (cap == 0) {
    li_frames_free(P);
    return 1;
  }
  if (F != NULL && F->cap == cap) return 1;
  F = calloc(1, sizeof *F);
  if (F == NULL) return 0;
  F->ring = calloc((size_t)cap, sizeof *F->ring);
  F->spikes = calloc(LI_SPIKES_MAX, sizeof *F->spikes);
  if (F->ring == NULL || F->spikes == NULL) {
    free(F->ring); free(F->spikes); free(F);
    return 0;
  }
  li_frames_free(P);            /* a new size starts again */
  F->cap = cap;
  P->frames = F;
  begin_frame(P, li_clock_ticks(&P->clock));
  F->paused = !P->on;           /* (the first frame starts with collection) */
  F->paused_at = F->t0;
  return 1;
}


/* ======================================================================
** Idle spans
** ====================================================================== */

/* An idle span is the zone "idle" (so the function that waits is not
** charged for the wait as self time, and the tree shows where it waits);
** frame mode also counts its time in the running frame apart. */
int li_idle_begin(li_prof *P, lua_State *L, li_stack *S) {
  uint64_t serial;
  if (P->idle_serial != 0) return LUAINSTR_EORDER;
  serial = li_zone_begin(P, L, S, "idle", 4);
  if (serial == 0) return LUAINSTR_EMEM;
  P->idle_serial = serial;
  if (P->frames != NULL)
    P->frames->idle_since = S->n > 0 ? S->f[S->n - 1].start : li_clock_ticks(&P->clock);
  return LUAINSTR_OK;
}

/* The zone ends in whichever stack holds it (none: closed already, by a
** return of the function that began it, a stop or a reset). */
int li_idle_end(li_prof *P) {
  li_frames *F = P->frames;
  uint64_t t = li_clock_ticks(&P->clock);
  if (P->idle_serial == 0) return LUAINSTR_EORDER;
  if (F != NULL && F->idle_since != 0) {
    if (!F->paused) F->idle += (int64_t)(t - F->idle_since);
    F->idle_since = 0;
  }
  for (li_stack *S = &P->main; S != NULL; S = S->next)
    li_zone_close(P, S, P->idle_serial, 0);
  P->idle_serial = 0;
  return LUAINSTR_OK;
}


/* ======================================================================
** The model
** ====================================================================== */

static uint64_t ns(int64_t ticks, double k) {
  return ticks > 0 ? (uint64_t)((double)ticks * k + 0.5) : 0;
}

static int cmp_spike(const void *a, const void *b) {
  uint64_t x = ((const spike *)a)->frame, y = ((const spike *)b)->frame;
  return (x > y) - (x < y);
}

/* A frame's duration and idle time as the report gives them: the mark
** took out the pairs of its calls at pair_cost; the report's figure
** replaces it (figures.c), clamped as the mark clamped them. */
static void report_dur(const li_prof *P, int64_t raw, int64_t idle_raw,
                       uint64_t calls, int64_t *dur, int64_t *idle) {
  int64_t d = raw + (int64_t)calls * ((int64_t)P->pair_cost - (int64_t)P->pair_least);
  if (d < 0) d = 0;
  *dur = d;
  *idle = idle_raw > d ? d : idle_raw;
}

/* The tree of a kept spike in the model's shape: its figures derived as
** the whole run's are (figures.c), inclusive bytes summed up from the
** leaves (children come after their parents). */
static int spike_model(const li_prof *P, const spike *sp, li_pspike *o, double k) {
  li_pnode *nd = calloc(sp->n ? sp->n : 1, sizeof *nd);
  li_tally *t = calloc(sp->n ? sp->n : 1, sizeof *t);
  li_cost cost;
  int64_t dur, idle;
  if (nd == NULL || t == NULL) { free(nd); free(t); return 0; }
  for (uint32_t i = 0; i < sp->n; i++) {
    const nfig *g = &sp->nodes[i];
    t[i].parent = i == 0 ? 0 : g->parent;
    t[i].calls = g->calls;
    t[i].ticks = g->total;
    t[i].pairs = g->pairs;
    t[i].counted = i > 0 && P->node[g->node].func != LI_NONE &&
                   P->fn[P->node[g->node].func].counted;
    t[i].pre = g->pre;
    t[i].min = INT64_MAX;
    t[i].max = INT64_MIN;
    li_tally_scale(&t[i], k);
  }
  li_report_cost(P, k, &cost);
  li_derive_nodes(t, sp->n, &cost);
  for (uint32_t i = 0; i < sp->n; i++) {
    const nfig *g = &sp->nodes[i];
    uint32_t func = P->node[g->node].func;
    nd[i].func = func == LI_NONE ? UINT32_MAX : func;
    nd[i].parent = i == 0 ? 0 : g->parent;
    nd[i].calls = g->calls;
    nd[i].errors = g->errors;
    nd[i].total_ns = (uint64_t)t[i].total;
    nd[i].self_ns = (uint64_t)t[i].self;
    nd[i].total_err_ns = (uint64_t)ceil(t[i].total_err);
    nd[i].self_err_ns = (uint64_t)ceil(t[i].self_err);
    nd[i].mem.alloc_bytes = g->mem.alloc_bytes;
    nd[i].mem.alloc_count = g->mem.alloc_count;
    nd[i].mem.free_bytes = g->mem.free_bytes;
    nd[i].mem.live_bytes = g->mem.live > 0 ? (uint64_t)g->mem.live : 0;
    nd[i].mem.alloc_bytes_total = g->mem.alloc_bytes;
    nd[i].mem.alloc_count_total = g->mem.alloc_count;
  }
  free(t);
  for (uint32_t i = sp->n; i-- > 1;) {
    nd[nd[i].parent].mem.alloc_bytes_total += nd[i].mem.alloc_bytes_total;
    nd[nd[i].parent].mem.alloc_count_total += nd[i].mem.alloc_count_total;
  }
  o->frame = sp->frame;
  report_dur(P, sp->raw, sp->idle_raw, sp->calls, &dur, &idle);
  o->duration_ns = ns(dur, k);
  o->nodes = nd;
  o->nnodes = sp->n;
  return 1;
}

int li_frames_snapshot(const li_prof *P, li_profile *out, double k) {
  const li_frames *F = P->frames;
  uint64_t first, n;
  li_pframe *fr;
  li_pspike *sp;
  spike *order;
  if (F == NULL) return 0;
  out->framing = 1;
  out->frames_marked = F->marked;
  out->frame_capacity = F->cap;
  out->spike_factor = P->spike_factor;
  out->spike_min_ns = P->spike_min_ns;
  out->spike_keep = P->spike_keep;
  out->spikes_seen = F->seen;
  n = F->marked < F->cap ? F->marked : F->cap;
  first = F->marked - n + 1;
  fr = calloc((size_t)(n ? n : 1), sizeof *fr);
  sp = calloc(F->nspikes ? F->nspikes : 1, sizeof *sp);
  order = malloc((F->nspikes ? F->nspikes : 1) * sizeof *order);
  if (fr == NULL || sp == NULL || order == NULL) {
    free(fr); free(sp); free(order);
    return -1;
  }
  out->frames = fr;
  out->nframes = n;
  out->spikes = sp;
  memcpy(order, F->spikes, F->nspikes * sizeof *order);
  qsort(order, F->nspikes, sizeof *order, cmp_spike);
  for (uint32_t i = 0; i < F->nspikes; i++) {
    if (!spike_model(P, &order[i], &sp[i], k)) { free(order); return -1; }
    out->nspikes = i + 1;
  }
  for (uint64_t i = 0, s = 0; i < n; i++) {
    const fsum *f = &F->ring[(first + i - 1) % F->cap];
    int64_t dur, idle;
    report_dur(P, f->raw, f->idle_raw, f->calls, &dur, &idle);
    fr[i].index = f->index;
    fr[i].start_ns = ns((int64_t)li_minus(f->start, P->trace_t0), k);
    fr[i].duration_ns = ns(dur, k);
    fr[i].idle_ns = ns(idle, k);
    fr[i].calls = f->calls;
    fr[i].alloc_bytes = f->alloc;
    while (s < F->nspikes && order[s].frame < f->index) s++;
    if (f->spike && s < F->nspikes && order[s].frame == f->index)
      fr[i].spike = (uint32_t)s + 1;
  }
  free(order);
  return 0;
}

int li_frames_spike(const li_prof *P, uint64_t index, li_pspike *out, double k) {
  const li_frames *F = P->frames;
  for (uint32_t i = 0; F != NULL && i < F->nspikes; i++)
    if (F->spikes[i].frame == index)
      return spike_model(P, &F->spikes[i], out, k) ? 1 : -1;
  return 0;
}

void li_frames_snapshot_free(li_profile *out) {
  for (uint32_t i = 0; i < out->nspikes; i++) free(out->spikes[i].nodes);
  free((void *)out->spikes);
  free((void *)out->frames);
  out->spikes = NULL;
  out->frames = NULL;
  out->nspikes = 0;
  out->nframes = 0;
}
