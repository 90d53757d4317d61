/*
** snapshot.c -- the profile model (report/report.h) from a profiler.
** Calls still open (a dump from inside the program, suspended coroutines
** that were never finished) count as if they ended now, or where their
** coroutine was suspended; the profiler itself is not changed.
*/
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "profiler.h"

/* Close a copy of S's frames into the node tallies, as li_frame_close
** would.  A stack waiting in coroutine.resume (a dump from inside a
** coroutine) has the coroutine's time so far charged to its top call
** first, as the resume will when it returns. */
static int close_virtually(const li_prof *P, const li_stack *S, uint64_t t,
                           li_tally *nd) {
  li_stack c = *S;
  uint32_t n = S->n;
  if (n == 0) return 1;
  if (c.resuming) {                                     /* (li_prof_charge) */
    c.pairs += P->entries - c.res_pairs0;
    c.susp += P->own_clock - c.res_own0;
  }
  while (n > 0) {
    const li_frame *fr = &S->f[--n];
    li_tally *b = &nd[fr->node];
    int64_t raw = li_frame_raw(&c, fr, t), whole = raw + fr->done;
    uint64_t pairs = c.pairs - fr->pairs0, wp = pairs + fr->done_pairs;
    int64_t v = whole - (int64_t)(wp * P->pair_cost + P->inside_cost);
    b->ticks += raw;
    b->pairs += pairs;
    b->pre += (int64_t)(li_stack_pre(P, S) - fr->pre0);
    if (v < b->min) b->min = v, b->min_pairs = wp;
    if (v > b->max) b->max = v, b->max_pairs = wp;
  }
  return 1;
}

/* A double as whole ns, saturated (beyond 2^64 ns, 584 years, the
** conversion is undefined: fuzz_figures found an uncertainty of 2e19). */
static uint64_t sat_ns(double x) {
  return x >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)x;
}

/* An uncertainty in whole ns, rounded up. */
static uint64_t err_ns(double e) {
  return e > 0 ? sat_ns(ceil(e)) : 0;
}

/* ns from ticks; a sum below zero (calls shorter than the probes' cost)
** shows as 0. */
static uint64_t to_ns(int64_t ticks, double k) {
  return ticks > 0 ? sat_ns((double)ticks * k + 0.5) : 0;
}

/* The header a host includes so that its loads and resumes reach the
** profiler: every note below names it. */
#define WRAP_HOW "include luainstr_wrap.h after lauxlib.h where the host " \
  "loads chunks and resumes coroutines, and call luainstr_install_hooks()"

/* out->warnings: the rewriter's, then what the profiler noticed of the
** host.  0, or -1 when memory ran out. */
static int notes(const li_prof *P, li_profile *out) {
  char buf[3][1024];
  int n = 0;
  size_t len = P->warnings != NULL ? strlen(P->warnings) : 0;
  char *w;
  if (P->loads == 0)
    snprintf(buf[n++], sizeof buf[0], "no chunk went through the "
             "profiler's loader: chunks that C code loads with luaL_dofile, "
             "luaL_loadfile, luaL_dostring, luaL_loadstring or lua_load "
             "reach the profiler only through its wrappers: " WRAP_HOW "\n");
  else if (P->outside > 0)
    snprintf(buf[n++], sizeof buf[0], "%llu function%s reachable from the "
             "globals and package.loaded come from chunks compiled without "
             "the profiler's loader (such as %s), not measured: loaded "
             "before the profiler started, or by C code that does not route "
             "its loads; for the latter, " WRAP_HOW "\n",
             (unsigned long long)P->outside, P->outside == 1 ? " is" : "s are",
             P->outside_chunk);
  if (P->unseen > 0)
    snprintf(buf[n++], sizeof buf[0], "Lua ran %llu time%s on a thread the "
             "profiler was not told of (a coroutine resumed with Lua's own "
             "lua_resume, or a function called on another thread with "
             "lua_pcall, from C code without luainstr_wrap.h): it took the "
             "resumer to be the thread it saw run last (else the main "
             "thread) and nested the coroutine's calls there; an error in "
             "such a coroutine ends its calls only at the next probe or "
             "luainstr_ call, and what it allocates before its first probe "
             "is the resumer's. For exact figures, " WRAP_HOW "\n",
             (unsigned long long)P->unseen, P->unseen == 1 ? "" : "s");
  out->warnings = P->warnings;
  out->warnings_own = NULL;
  if (n == 0) return 0;
  for (int i = 0; i < n; i++) len += strlen(buf[i]);
  if ((w = malloc(len + 1)) == NULL) return -1;
  w[0] = '\0';
  if (P->warnings != NULL) strcpy(w, P->warnings);
  for (int i = 0; i < n; i++) strcat(w, buf[i]);
  out->warnings = out->warnings_own = w;
  return 0;
}

/* The nodes' figures at time now (li_snapshot_tally's first half). */
static int tally_nodes(const li_prof *P, uint64_t now, double k, li_tally *nd,
                       uint32_t *open) {
  li_cost cost;
  uint32_t i;
  *open = 0;
  memset(nd, 0, (size_t)P->nnode * sizeof *nd);
  for (i = 0; i < P->nnode; i++) {
    const li_node *n = &P->node[i];
    nd[i].parent = i == 0 ? 0 : n->parent;
    nd[i].func = n->func;
    nd[i].calls = n->calls; nd[i].errors = n->errors;
    nd[i].ticks = n->total; nd[i].pairs = n->pairs; nd[i].pre = n->pre;
    nd[i].counted = i > 0 && n->func != LI_NONE && P->fn[n->func].counted;
    nd[i].min = n->min; nd[i].max = n->max;
    nd[i].min_pairs = n->min_pairs; nd[i].max_pairs = n->max_pairs;
    nd[i].mem.alloc_bytes = nd[i].mem.alloc_bytes_total = n->mem.alloc_bytes;
    nd[i].mem.alloc_count = nd[i].mem.alloc_count_total = n->mem.alloc_count;
    nd[i].mem.free_bytes = n->mem.free_bytes;
    nd[i].mem.live_bytes = n->mem.live > 0 ? (uint64_t)n->mem.live : 0;
    nd[i].mem.max_alloc_bytes = n->mem.max_alloc;
  }
  /* inclusive allocations: children come after their parents */
  for (i = P->nnode; i-- > 1;) {
    li_tally *up = &nd[P->node[i].parent];
    up->mem.alloc_bytes_total += nd[i].mem.alloc_bytes_total;
    up->mem.alloc_count_total += nd[i].mem.alloc_count_total;
  }
  for (const li_stack *S = &P->main; S != NULL; S = S->next) {
    if (!close_virtually(P, S, S->suspended ? S->susp_since : now, nd))
      return 0;
    *open += S->n;
  }
  li_report_cost(P, k, &cost);
  for (i = 0; i < P->nnode; i++) li_tally_scale(&nd[i], k);
  li_derive_nodes(nd, P->nnode, &cost);
  return 1;
}

int li_snapshot_tally(const li_prof *P, uint64_t now, li_tally *nd,
                      li_tally *fn, uint32_t *open) {
  memset(fn, 0, (size_t)P->nfn * sizeof *fn);
  return tally_nodes(P, now, P->clock.ns_per_tick, nd, open) &&
         li_sum_functions(nd, P->nnode, fn, NULL, P->nfn);
}

/* Which functions have nodes: slot[f], their index among them, or
** UINT32_MAX for a function never called (of 100,000 a chunk defines,
** perhaps a few); *n how many have one.  NULL when memory ran out. */
static uint32_t *node_slots(const li_prof *P, uint32_t *n) {
  uint32_t *slot = malloc((P->nfn ? P->nfn : 1) * sizeof *slot);
  *n = 0;
  if (slot == NULL) return NULL;
  memset(slot, 0xFF, (size_t)P->nfn * sizeof *slot);
  for (uint32_t i = 1; i < P->nnode; i++) {
    uint32_t f = P->node[i].func;
    if (slot[f] == UINT32_MAX) slot[f] = (*n)++;
  }
  return slot;
}

int li_snapshot(li_prof *P, li_profile *out) {
  li_tally *fn = NULL, *nd, none;
  uint32_t *slot, nused = 0;
  uint64_t now;
  double k;
  uint32_t i;
  memset(out, 0, sizeof *out);
  /* (memory mode would count the measurement's blocks) */
  if (!li_mem_active(P)) li_prof_recalibrate(P);
  li_clock_calibrate(&P->clock);
  k = P->clock.ns_per_tick;
  now = li_clock_ticks(&P->clock);
  slot = node_slots(P, &nused);
  if (slot != NULL) fn = calloc(nused ? nused : 1, sizeof *fn);
  nd = calloc(P->nnode ? P->nnode : 1, sizeof *nd);
  out->funcs = calloc(P->nfn ? P->nfn : 1, sizeof *out->funcs);
  out->nodes = calloc(P->nnode ? P->nnode : 1, sizeof *out->nodes);
  if (fn == NULL || nd == NULL || out->funcs == NULL || out->nodes == NULL)
    goto nomem;
  if (!tally_nodes(P, now, k, nd, &out->open_calls) ||
      !li_sum_functions(nd, P->nnode, fn, slot, nused))
    goto nomem;
  for (i = 0; i < P->nnode; i++) {
    li_pnode *o = &out->nodes[i];
    o->func = P->node[i].func == LI_NONE ? UINT32_MAX : P->node[i].func;
    o->parent = P->node[i].parent == LI_NONE ? 0 : P->node[i].parent;
    o->calls = nd[i].calls;
    o->errors = nd[i].errors;
    o->total_ns = (uint64_t)nd[i].total;
    o->self_ns = (uint64_t)nd[i].self;
    o->total_err_ns = err_ns(nd[i].total_err);
    o->self_err_ns = err_ns(nd[i].self_err);
    o->mem = nd[i].mem;
  }
  out->nnodes = P->nnode;
  memset(&none, 0, sizeof none);            /* a function without nodes */
  for (i = 0; i < P->nfn; i++) {
    li_pfunc *o = &out->funcs[i];
    const li_fn *f = &P->fn[i];
    const li_tally *t = slot[i] != UINT32_MAX ? &fn[slot[i]] : &none;
    o->name = f->name;
    o->source = f->source;
    o->line = f->line;
    o->lastline = f->lastline;
    o->calls = t->calls;
    o->errors = t->errors;
    o->total_ns = (uint64_t)t->total;
    o->self_ns = (uint64_t)t->self;
    o->min_ns = (uint64_t)t->mn;
    o->max_ns = (uint64_t)t->mx;
    o->total_err_ns = err_ns(t->total_err);
    o->self_err_ns = err_ns(t->self_err);
    o->min_err_ns = err_ns(t->min_err);
    o->max_err_ns = err_ns(t->max_err);
    o->zone = f->zone;
    o->counted = f->counted;
    o->mem = t->mem;
    o->mem.live_bytes = f->live > 0 ? (uint64_t)f->live : 0;
    o->mem.peak_live_bytes = f->peak > 0 ? (uint64_t)f->peak : 0;
  }
  out->nfuncs = P->nfn;
  if (li_frames_snapshot(P, out, k) != 0) goto nomem;
  li_mem_snapshot(P, out);
  if (out->memory) {
    uint64_t peak = out->mem_outside.peak_live_bytes;
    out->mem_outside = nd[0].mem;
    out->mem_outside.peak_live_bytes = peak;
  }
  out->wall_ns = to_ns((int64_t)(P->wall + (P->on ? now - P->wall_since : 0)), k);
  out->probes = P->entries + P->exits;
  out->probe_pair_ns = (double)P->pair_least * k;
  out->probe_inside_ns = (double)P->inside_least * k;
  out->count_small = P->count_small;
  out->count_probe_ns = (double)P->count_cost * k;
  /* (what the probes timed of themselves, and the calibrated rest) */
  out->overhead_ns = to_ns((int64_t)(P->entries * P->pair_least +
                                     (P->own_clock - P->own_base) +
                                     P->counted * P->count_cost), k);
  out->preempted_ns = to_ns((int64_t)P->preempted, k);
  out->clock = li_clock_name(&P->clock);
  out->probe = li_prof_probe_name(P);
  out->version = LUAINSTR_VERSION;
  out->time_ns = li_clock_epoch_ns();
  out->clock_resolution_ns = (double)P->clock.resolution * k;
  if (notes(P, out) != 0) goto nomem;
  out->heap_files = (const char *const *)P->heap_files;
  out->nheap_files = P->nheap_files;
  out->tracing = P->trace_cap > 0;
  out->trace_capacity = P->trace_cap;
  out->events_dropped = P->trace_dropped;
  out->trace_recent = P->trace_cap > 0 && li_trace_recent(P);
  if (P->ntrace > 0) {
    li_pevent *ev = malloc((size_t)P->ntrace * sizeof *ev);
    if (ev == NULL) goto nomem;
    for (uint64_t e = 0; e < P->ntrace; e++) {     /* (a ring: oldest first) */
      ev[e] = *li_trace_at(P, e);
      ev[e].ts_ns = to_ns((int64_t)li_minus(ev[e].ts_ns, P->trace_t0), k);
    }
    out->events = ev;
    out->nevents = P->ntrace;
  }
  free(slot);
  free(fn);
  free(nd);
  return 0;
nomem:
  free(slot);
  free(fn);
  free(nd);
  li_snapshot_free(out);
  return -1;
}

void li_snapshot_free(li_profile *p) {
  li_frames_snapshot_free(p);
  free(p->warnings_own);
  p->warnings_own = NULL;
  p->warnings = NULL;
  free((void *)p->events);
  p->events = NULL;
  p->nevents = 0;
  free(p->funcs);
  free(p->nodes);
  p->funcs = NULL;
  p->nodes = NULL;
  p->nfuncs = p->nnodes = 0;
}
