/*
** snapshot.c -- the profile model (report/report.h) from a profiler.
** Calls still open (a dump from inside the program, suspended coroutines
** that were never finished) count as if they ended now, or where their
** coroutine was suspended; the profiler itself is not changed.
*/
#include <stdlib.h>
#include <string.h>

#include "profiler.h"

/* Close a copy of S's frames into the node tallies, as close_top would.  A
** stack waiting in coroutine.resume (a dump from inside a coroutine) has
** the coroutine's time so far charged to its top call first, as the
** resume will when it returns. */
static int close_virtually(const li_prof *P, const li_stack *S, uint64_t t,
                           li_tally *nd) {
  li_frame *f;
  li_stack c = *S;
  uint32_t n = S->n;
  if (n == 0) return 1;
  f = malloc((size_t)n * sizeof *f);
  if (f == NULL) return 0;
  memcpy(f, S->f, (size_t)n * sizeof *f);
  c.f = f;                      /* the copy, with the copied frames */
  if (c.resuming) li_prof_charge(P, &c, t - c.res_t0, P->entries - c.res_pairs0);
  while (n > 0) {
    li_frame *fr = &f[--n];
    int64_t incl = li_frame_incl(P, &c, fr, t), whole = incl + fr->done;
    li_tally *b = &nd[fr->node];
    b->total += incl;
    b->self += incl - fr->child;
    if (whole < b->min) b->min = whole;
    if (whole > b->max) b->max = whole;
    if (n > 0) f[n - 1].child += incl;
  }
  free(f);
  return 1;
}

/* Add node v's figures to its function's; `outer`: no node of the same
** function above it. */
static void add_node(li_tally *a, const li_tally *b, int outer) {
  a->calls += b->calls;
  a->errors += b->errors;
  a->self += b->self;
  if (b->min < a->min) a->min = b->min;
  if (b->max > a->max) a->max = b->max;
  a->mem.alloc_bytes += b->mem.alloc_bytes;
  a->mem.alloc_count += b->mem.alloc_count;
  a->mem.free_bytes += b->mem.free_bytes;
  if (b->mem.max_alloc_bytes > a->mem.max_alloc_bytes)
    a->mem.max_alloc_bytes = b->mem.max_alloc_bytes;
  if (outer) {
    a->total += b->total;
    a->mem.alloc_bytes_total += b->mem.alloc_bytes_total;
    a->mem.alloc_count_total += b->mem.alloc_count_total;
  }
}

/* Where function f's figures are (sum_functions). */
static uint32_t slot_of(const uint32_t *slot, uint32_t f) {
  return slot != NULL ? slot[f] : f;
}

/* A function's figures from its nodes: calls, errors and self time add
** up; min and max are over all its calls; its inclusive time counts only
** the nodes with no node of the same function above them (in a recursion
** the outermost activation already includes the inner ones).  A depth-first
** walk of the tree keeps, for every function, how many of its nodes are on
** the path from the root.  fn holds nfn figures: function f's at
** fn[slot[f]], or at fn[f] when slot is NULL (the report gives figures only
** to the functions that have nodes, not to every one a chunk defined). */
static int sum_functions(const li_prof *P, const li_tally *nd, li_tally *fn,
                         const uint32_t *slot, uint32_t nfn) {
  uint32_t nn = P->nnode, *first, *kids, *onpath, *stack, *next, sp = 0;
  first = calloc((size_t)nn + 1, sizeof *first);
  kids = malloc((size_t)nn * sizeof *kids);
  next = malloc((size_t)nn * sizeof *next);
  stack = malloc((size_t)nn * sizeof *stack);
  onpath = calloc(nfn ? nfn : 1, sizeof *onpath);
  if (first == NULL || kids == NULL || next == NULL || stack == NULL || onpath == NULL) {
    free(first); free(kids); free(next); free(stack); free(onpath);
    return 0;
  }
  for (uint32_t i = 0; i < nfn; i++) fn[i].min = INT64_MAX;
  /* children of node p: kids[first[p] .. first[p+1]) */
  for (uint32_t i = 1; i < nn; i++) first[P->node[i].parent + 1]++;
  for (uint32_t i = 0; i < nn; i++) first[i + 1] += first[i];
  for (uint32_t i = 0; i < nn; i++) next[i] = first[i];
  for (uint32_t i = 1; i < nn; i++) kids[next[P->node[i].parent]++] = i;
  for (uint32_t i = 0; i < nn; i++) next[i] = first[i];
  stack[sp++] = 0;                  /* the root: no function */
  while (sp > 0) {
    uint32_t v = stack[sp - 1], fv = P->node[v].func;
    if (fv != LI_NONE) fv = slot_of(slot, fv);
    if (next[v] == first[v] && fv != LI_NONE)       /* first visit */
      add_node(&fn[fv], &nd[v], onpath[fv]++ == 0);
    if (next[v] < first[v + 1]) {
      uint32_t c = kids[next[v]++], fc = slot_of(slot, P->node[c].func);
      if (first[c] == first[c + 1])                  /* a leaf: no push */
        add_node(&fn[fc], &nd[c], onpath[fc] == 0);
      else
        stack[sp++] = c;
    } else {
      if (fv != LI_NONE) onpath[fv]--;
      sp--;
    }
  }
  free(first); free(kids); free(next); free(stack); free(onpath);
  return 1;
}

/* ns from ticks; a sum below zero (calls shorter than the probes' cost)
** shows as 0. */
static uint64_t to_ns(int64_t ticks, double k) {
  return ticks > 0 ? (uint64_t)((double)ticks * k + 0.5) : 0;
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

/* The probes' cost the exits subtracted (pair_cost, inside_cost) less the
** least measured since (calibrate.c), added back: a node's inclusive time
** lost a pair for every call of its subtree below it and the inside cost
** once a call; its self time lost a pair for every call of its children,
** and the inside cost of its own calls less its children's (theirs is out
** of the time it subtracts for them).  Its shortest and longest call get
** the inside cost back; a leaf's, which counted no pair, is then exact
** (a caller's holds the pairs of one call: not known here, left).  Not
** exact for a coroutine resumed under another call than the one it
** started under, nor for the first call of a coroutine, whose pair the
** resume's charge, not its resumer's self time, took.  0: no memory. */
static int add_back(const li_prof *P, li_tally *nd) {
  int64_t dp = (int64_t)li_minus(P->pair_cost, P->pair_least);
  int64_t di = (int64_t)li_minus(P->inside_cost, P->inside_least);
  uint64_t *kid, *sub;
  uint32_t i;
  if ((dp == 0 && di == 0) || P->nnode == 0) return 1;
  kid = calloc(P->nnode, sizeof *kid);
  sub = calloc(P->nnode, sizeof *sub);
  if (kid == NULL || sub == NULL) { free(kid); free(sub); return 0; }
  /* (a node's parent has a smaller index) */
  for (i = P->nnode; i-- > 1;) {
    uint32_t up = P->node[i].parent;
    kid[up] += nd[i].calls;
    sub[up] += sub[i] + nd[i].calls;
  }
  for (i = 1; i < P->nnode; i++) {
    li_tally *t = &nd[i];
    t->total += dp * (int64_t)sub[i] + di * (int64_t)t->calls;
    t->self += dp * (int64_t)kid[i] + di * ((int64_t)t->calls - (int64_t)kid[i]);
    if (t->calls == 0) continue;
    if (t->min != INT64_MAX) t->min += di;
    t->max += di;
  }
  free(kid);
  free(sub);
  return 1;
}

/* The nodes' figures at time now (li_snapshot_tally's first half). */
static int tally_nodes(const li_prof *P, uint64_t now, li_tally *nd,
                       uint32_t *open) {
  uint32_t i;
  *open = 0;
  memset(nd, 0, (size_t)P->nnode * sizeof *nd);
  for (i = 0; i < P->nnode; i++) {
    const li_node *n = &P->node[i];
    nd[i].calls = n->calls; nd[i].errors = n->errors;
    nd[i].total = n->total; nd[i].self = n->self;
    nd[i].min = n->min; nd[i].max = n->max;
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
  return add_back(P, nd);
}

int li_snapshot_tally(const li_prof *P, uint64_t now, li_tally *nd,
                      li_tally *fn, uint32_t *open) {
  memset(fn, 0, (size_t)P->nfn * sizeof *fn);
  return tally_nodes(P, now, nd, open) && sum_functions(P, nd, fn, NULL, P->nfn);
}

/* A function's self time is the sum of its nodes' (li_snapshot_tally),
** some of which can be a little below zero (calls shorter than the probes'
** calibrated cost), where the node shows 0.  So that the nodes' self
** times, which every report of call paths sums (folded, pprof, callgrind,
** the flame graphs), add up to the function's as the text and csv reports
** give it, what those zeros add is taken back from the function's other
** nodes in proportion to their self times, and the rounding to whole ns is
** settled on its largest node.  0, or -1 when memory ran out. */
static int settle_self(li_profile *out) {
  uint64_t *have = calloc(out->nfuncs ? out->nfuncs : 1, sizeof *have);
  uint32_t *big = malloc((out->nfuncs ? out->nfuncs : 1) * sizeof *big);
  double *ratio = malloc((out->nfuncs ? out->nfuncs : 1) * sizeof *ratio);
  uint32_t i;
  if (have == NULL || big == NULL || ratio == NULL) {
    free(have); free(big); free(ratio);
    return -1;
  }
  for (i = 0; i < out->nfuncs; i++) big[i] = UINT32_MAX;
  for (i = 1; i < out->nnodes; i++) {
    const li_pnode *n = &out->nodes[i];
    if (n->func >= out->nfuncs) continue;
    have[n->func] += n->self_ns;
    if (big[n->func] == UINT32_MAX || n->self_ns > out->nodes[big[n->func]].self_ns)
      big[n->func] = i;
  }
  for (i = 0; i < out->nfuncs; i++)
    ratio[i] = have[i] > 0 ? (double)out->funcs[i].self_ns / (double)have[i] : 0;
  for (i = 1; i < out->nnodes; i++) {
    li_pnode *n = &out->nodes[i];
    uint32_t f = n->func;
    if (f >= out->nfuncs || have[f] == out->funcs[f].self_ns) continue;
    n->self_ns = ratio[f] < 1 ? (uint64_t)((double)n->self_ns * ratio[f]) : n->self_ns;
  }
  /* what is left (the rounding, or all of it when no node had any) goes
  ** to the largest node */
  memset(have, 0, out->nfuncs * sizeof *have);
  for (i = 1; i < out->nnodes; i++)
    if (out->nodes[i].func < out->nfuncs)
      have[out->nodes[i].func] += out->nodes[i].self_ns;
  for (i = 0; i < out->nfuncs; i++) {
    uint64_t want = out->funcs[i].self_ns;
    li_pnode *n;
    if (big[i] == UINT32_MAX || have[i] == want) continue;
    n = &out->nodes[big[i]];
    if (have[i] < want) n->self_ns += want - have[i];
    else n->self_ns -= have[i] - want < n->self_ns ? have[i] - want : n->self_ns;
  }
  free(have); free(big); free(ratio);
  return 0;
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
  if (!tally_nodes(P, now, nd, &out->open_calls) ||
      !sum_functions(P, nd, fn, slot, nused))
    goto nomem;
  memset(&none, 0, sizeof none);            /* a function without nodes */
  none.min = INT64_MAX;
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
    o->total_ns = to_ns(t->total, k);
    o->self_ns = to_ns(t->self, k);
    o->min_ns = t->min == INT64_MAX ? 0 : to_ns(t->min, k);
    o->max_ns = to_ns(t->max, k);
    o->zone = f->zone;
    o->mem = t->mem;
    o->mem.live_bytes = f->live > 0 ? (uint64_t)f->live : 0;
    o->mem.peak_live_bytes = f->peak > 0 ? (uint64_t)f->peak : 0;
  }
  out->nfuncs = P->nfn;
  for (i = 0; i < P->nnode; i++) {
    li_pnode *o = &out->nodes[i];
    o->func = P->node[i].func == LI_NONE ? UINT32_MAX : P->node[i].func;
    o->parent = P->node[i].parent == LI_NONE ? 0 : P->node[i].parent;
    o->calls = nd[i].calls;
    o->errors = nd[i].errors;
    o->total_ns = to_ns(nd[i].total, k);
    o->self_ns = to_ns(nd[i].self, k);
    o->mem = nd[i].mem;
  }
  out->nnodes = P->nnode;
  if (settle_self(out) != 0) goto nomem;
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
  out->overhead_ns = to_ns((int64_t)(P->entries * P->pair_least), k);
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
