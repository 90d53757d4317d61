/*
** profiler.c -- one profiler per lua_State: the probe, the probe factory,
** zones, and the profiler's life (attach, start, stop, reset, finalize).
** The function records and call tree are in calltree.c, the shadow stacks
** in stacks.c, the probe's calibration in calibrate.c (profiler.h).
**
** The probe of a chunk is a C closure: upvalue 1 is the chunk's map from
** its local ids to function records, upvalue 2 the profiler's userdata
** (which keeps the profiler alive as long as instrumented code exists).
**   probe(id)        entry of function id: push a frame
**   probe(), probe(0, ...)  exit: pop it, return the arguments after the 0
** A frame is identified by Lua's CallInfo of the activation (lua_getstack
** level 1 from inside the probe), so an exit matches its own entry even in
** recursion, and frames whose activation is gone (an error caught outside
** any pcall we see) are recognised when Lua reuses their CallInfo.
*/
#define _POSIX_C_SOURCE 200809L

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "profiler.h"
#include "rewrite.h"
#include "direct.h"
#include "jit.h"
#include "heapwalk.h"
#include "live.h"


/* Its address is the registry key of the profiler ud (profiler.h): a
** light-userdata key makes no string, so looking the profiler up never
** allocates (li_prof_get cannot raise an error on a state without profiler
** when memory runs out). */
const char li_prof_key;

const uint64_t li_ffi_ci_tag;

/* The probe indexes nodes and frames by a shift (checked here, where the
** sizes are known). */
typedef char li_node_is_128_bytes[sizeof(li_node) == 128 ? 1 : -1];
typedef char li_frame_is_64_bytes[sizeof(li_frame) == 64 ? 1 : -1];


/* A chunk map of n functions for P on top of L (gid to fill). */
li_chunk *li_chunk_new(lua_State *L, li_prof *P, uint32_t n) {
  li_chunk *c = lua_newuserdatauv(L, sizeof *c + (size_t)n * sizeof c->gid[0], 0);
  c->P = P;
  c->n = n;
  c->magic = LI_CHUNK_MAGIC;
  return c;
}

/* The chunk map of the running probe, or NULL when upvalue 1 is not one. */
static LI_INLINE li_chunk *chunk_of(lua_State *L, int direct) {
  li_chunk *c = direct ? li_d_udata1(L, sizeof *c) : li_api_udata1(L, sizeof *c);
  return c != NULL && c->magic == LI_CHUNK_MAGIC ? c : NULL;
}


/* ======================================================================
** The probe
** ====================================================================== */

/* P->fast: the probe's fast path may run (probe_fast). */
void li_prof_set_fast(li_prof *P) {
  P->gate = P->on && !P->live_probe && !P->signal;
  P->fast = P->gate && LI_CLOCK_INLINE(&P->clock) && P->trace_cap == 0;
  li_set_cur(P, P->curL, P->cur);
}

void li_prof_signal(li_prof *P) {
  P->signal = 1;
  P->gate = 0;
  P->fast = 0;
  P->fastL = NULL;
}

/* The frames on top of S that an error unwound without our seeing it (it
** was caught by C code other than the pcalls we replace): close them as
** exits by an error.  Called on entry of a call running in CallInfo ci. */
static LI_NOINLINE void close_dead(li_prof *P, lua_State *L, li_stack *S,
                                   const void *ci) {
  lua_Debug ar;
  uint64_t t = li_clock_ticks(&P->clock);
  /* The call is the first of its thread (it runs where the thread's base
  ** calls ran before, checked again as CallInfos are freed and reused):
  ** every frame is dead but the zones a host opened below them all. */
  if (ci == S->base_ci && !lua_getstack(L, 2, &ar)) {
    uint32_t base = 0;
    while (base < S->n && li_is_zone(&S->f[base])) base++;
    li_stack_close(P, S, base, t, 1);
  }
  /* Lua gave this call the CallInfo of a frame we still hold: that frame
  ** and the ones above it are dead. */
  while (S->n > 0 && S->f[S->n - 1].ci == ci) li_close_top(P, S, t, 1);
}

/* Learn where the base calls of S's thread run (its first level). */
static LI_NOINLINE void learn_base(lua_State *L, li_stack *S, const void *ci) {
  lua_Debug ar;
  if (!lua_getstack(L, 2, &ar)) S->base_ci = ci;
}

LI_NOINLINE int li_grow_frames(li_stack *S) {
  uint32_t cap = S->cap ? S->cap * 2 : 64;
  li_frame *nf = realloc(S->f, (size_t)cap * sizeof *nf);
  if (nf == NULL) return 0;
  S->f = nf;
  S->cap = cap;
  return 1;
}

/* A probe in a thread other than the last probe's.  coroutine.resume,
** yield and the host's wrapped lua_resume and lua_pcall keep curL in step
** with the thread that runs, and a collected thread's stack clears it: a
** switch they did not make was made by the host behind their back. */
LI_NOINLINE li_stack *li_probe_switch(li_prof *P, lua_State *L) {
  return P->curL != NULL ? li_infer_switch(P, L) : li_stack_switch(P, L);
}

/* Entry of function `func` in thread L, called from the activation whose
** CallInfo is ci. */
static LI_INLINE int enter(li_prof *P, lua_State *L, const void *ci,
                           uint32_t func, uint64_t t_in) {
  li_stack *S = li_probe_stack(P, L);
  if (LI_UNLIKELY(S == NULL)) return 0;
  if (S->n > 0) {
    if (LI_UNLIKELY(S->f[S->n - 1].ci == ci || ci == S->base_ci))
      close_dead(P, L, S, ci);
  } else if (ci != S->base_ci) {
    learn_base(L, S, ci);
  }
  if (LI_UNLIKELY(S->n == S->cap) && !li_grow_frames(S)) return 0;
  if (li_push_frame(P, S, ci, func) && li_inband(P))
    li_entry_own(P, S, &S->f[S->n - 1], t_in);
  return 0;
}

/* A counted function's entry (P(id, 1)), the activation ci: li_count,
** after the checks an entry makes of the frames below it. */
static LI_NOINLINE int count(li_prof *P, lua_State *L, const void *ci,
                             uint32_t func) {
  li_stack *S = li_probe_stack(P, L);
  if (LI_UNLIKELY(S == NULL)) return 0;
  if (S->n > 0) {
    if (LI_UNLIKELY(S->f[S->n - 1].ci == ci || ci == S->base_ci))
      close_dead(P, L, S, ci);
  } else if (ci != S->base_ci) {
    learn_base(L, S, ci);
  }
  li_count(P, S, func);
  return 0;
}

/* Is fr the frame of the exiting activation: identified by ci, or (LuaJIT,
** an exit probe called in a tail call) by alt? */
static LI_INLINE int exiting(const li_frame *fr, const void *ci, const void *alt) {
  return fr->ci == ci || (LI_IS_LUAJIT && alt != NULL && fr->ci == alt);
}

/* An exit whose frame is not on top of S: zones the function left open
** end with it (a `<close>` zone's own end comes after the exit probe: it
** finds its zone gone); other frames above it were unwound by an error
** caught where we could not see it.  No frame at all: the call was entered
** before collection started; nothing to close.  (The topmost frame that
** can be the exiting one is: on LuaJIT, a tail-called exit's own frame
** lies above its caller's.) */
static LI_NOINLINE void leave_deep(li_prof *P, li_stack *S, const void *ci,
                                   const void *alt, uint64_t t) {
  uint32_t z = S->n;
  while (z > 0 && li_is_zone(&S->f[z - 1])) z--;
  if (z > 0 && z < S->n && exiting(&S->f[z - 1], ci, alt)) {
    li_stack_close(P, S, z, t, 0);
    li_close_top(P, S, t, 0);
    return;
  }
  for (uint32_t i = S->n; i-- > 0;) {
    if (exiting(&S->f[i], ci, alt)) {
      li_stack_close(P, S, i + 1, t, 1);
      li_close_top(P, S, t, 0);
      return;
    }
  }
}

/* An FFI exit (jit.c) whose frame is not on top of S, or whose entry found
** no room.  Its frame is the topmost FFI frame (frames have no identity: a
** function's exit is its latest open entry): zones above it are ones the
** function left open, and end with it as leave_deep ends them; frames of
** the C probe above it (a chunk loaded with the JIT off, called from it)
** were unwound by an error caught where no boundary saw it, and then so
** were the zones.  No FFI frame: the call was entered before collection
** started; nothing closes. */
LI_NOINLINE void li_ffi_leave_deep(li_prof *P, li_stack *S, uint64_t t) {
  uint32_t i = S->n;
  int err = 0;
  if (S->ffi_lost > 0) {                /* its entry pushed nothing */
    S->ffi_lost--;
    return;
  }
  while (i > 0 && !li_is_ffi(&S->f[i - 1])) i--;
  if (i == 0) return;
  for (uint32_t j = i; j < S->n; j++) err |= !li_is_zone(&S->f[j]);
  li_stack_close(P, S, i, t, err);
  li_close_top(P, S, t, 0);
}

/* Exit of the activation whose CallInfo is ci (or alt, leave_deep), in
** thread L; returns nret, the probe's count of results. */
static LI_INLINE int leave(li_prof *P, lua_State *L, const void *ci,
                           const void *alt, int nret) {
  uint64_t t = li_clock_ticks(&P->clock);
  li_stack *S = li_probe_stack(P, L);
  if (LI_UNLIKELY(S == NULL)) return nret;
  P->exits++;
  li_gap_exit(P, t);
  if (LI_LIKELY(S->n > 0 && exiting(&S->f[S->n - 1], ci, alt)))
    li_close_top(P, S, t, 0);
  else
    leave_deep(P, S, ci, alt, t);
  if (LI_UNLIKELY(S->n == 0 && S->waker != NULL)) li_infer_end(P, S, t);
  if (li_inband(P)) li_stack_own(P, S, li_clock_ticks(&P->clock) - t);
  return nret;
}

/* The probe's gate is closed: collection is off, or the live view with
** frame mode off waits to be polled (its commands and tables come at
** probes then: live.c).  Is the profiler collecting (after the poll)? */
static LI_NOINLINE int gate_closed(li_prof *P, lua_State *L) {
  /* (a SIGTERM or SIGHUP: the report now, then the signal's own end) */
  if (LI_UNLIKELY(P->signal)) li_run_signal_act(L);
  /* (a command is seen at the next probe, an atomic load; the table's
  ** time, a clock read, every 64 probes) */
  if (P->live_probe && (__atomic_load_n(P->live_flag, __ATOMIC_RELAXED) != 0 ||
                        --P->live_count == 0)) {
    P->live_count = 64;
    if (li_live_due(P)) li_live_poll(P, L);
  }
  return P->on;
}

/* The identity of the probe's own activation when it may have been
** tail-called.  Only on LuaJIT, whose tail call replaces the caller's
** frame even with a C function (PUC Luas keep the caller below it): in
** `return P(0, ...)` the probe's caller is the exiting function's caller,
** and the probe's own frame sits in the exiting function's slot, which is
** that function's identity (LI_AR_CI).  The pass-through form is the only
** one the rewriter puts in a tail call. */
static LI_INLINE const void *tail_exit(lua_State *L, int nargs) {
  lua_Debug ar;
  if (!LI_IS_LUAJIT || nargs == 0 || !lua_getstack(L, 0, &ar)) return NULL;
  return LI_AR_CI(ar);
}

/*   P(id)       entry of function id (id > 0): push a frame
**   P(id, 1)    entry of counted function id: count it (li_count)
**   P()         exit: pop the frame of the calling activation
**   P(0, ...)   exit, returning the values after the 0
** (Chunks rewritten for exits of the form P(-id, ...) run unchanged: any
** first argument that is not a positive integer marks an exit.)
** The same code reads the call's facts from Lua's structures (`direct`,
** direct.h: chosen only after direct_check) or through the C API. */
static LI_INLINE int probe_run(lua_State *L, int direct) {
  li_chunk *c = chunk_of(L, direct);
  li_prof *P = c != NULL ? c->P : NULL;
  int n = direct ? li_d_nargs(L) : li_api_nargs(L);
  lua_Integer id = 0;
  if (n > 0 && !(direct && li_d_arg1_int(L, &id))) id = lua_tointegerx(L, 1, NULL);
  if (P == NULL) return n > 0 ? n - 1 : 0;  /* not a map: as probe_nothing */
  if (id <= 0) {                        /* an exit */
    if (LI_UNLIKELY(!P->gate) && !gate_closed(P, L)) return n > 0 ? n - 1 : 0;
    return leave(P, L, direct ? li_d_caller(L) : li_api_caller(L),
                 tail_exit(L, n), n > 0 ? n - 1 : 0);
  }
  if ((P->gate || gate_closed(P, L)) && (lua_Unsigned)id <= c->n) {
    if (n > 1)
      return count(P, L, direct ? li_d_caller(L) : li_api_caller(L), c->gid[id - 1]);
    return enter(P, L, direct ? li_d_caller(L) : li_api_caller(L), c->gid[id - 1],
                 li_inband(P) ? li_clock_ticks(&P->clock) : 0);
  }
  return 0;
}

/* The probe through the C API. */
static int probe_api(lua_State *L) {
  return probe_run(L, 0);
}

#if LI_HAVE_DIRECT
/* The probe with Lua's structures read directly, any case. */
static LI_NOINLINE int probe_direct(lua_State *L) {
  return probe_run(L, 1);
}

/* The probe with Lua's structures read directly, and a fast path for the
** common case: collecting, the thread of the last probe, the TSC clock, no
** trace; an entry with a frame below it in the stack, room for it, its
** call-tree node the one found last for its slot, and touched in
** this frame; an exit of the top frame.  Anything else goes to
** probe_direct before anything is changed.  The fast path makes no
** call that returns to it, so it saves no registers: 54 instructions a
** pair fewer (fib under callgrind: 820.5 -> 766.5 a call; bench/README.md,
** issue 13).  Its figures are those of the general path: it shares
** li_frame_open and li_frame_close (tests/probe/compare.sh). */
static int probe_fast(lua_State *L) {
  uint64_t t_in = LI_INBAND ? li_clock_inline_ticks() : 0;
  li_chunk *c = chunk_of(L, 1);
  li_prof *P;
  int n = li_d_nargs(L);
  lua_Integer id = 0;
  li_stack *S;
  li_frame *top;
  const void *ci;
  if (LI_UNLIKELY(c == NULL) || (n > 0 && !li_d_arg1_int(L, &id)))
    return probe_direct(L);
  P = c->P;
  if (LI_UNLIKELY(L != P->fastL)) return probe_direct(L);   /* !fast: NULL */
  S = P->cur;
  ci = li_d_caller(L);
  if (id <= 0) {                        /* an exit */
    uint64_t t = LI_INBAND ? t_in : li_clock_inline_ticks();
    /* (the base call's exit takes the general path: it may end a resume
    ** the profiler inferred) */
    if (LI_UNLIKELY(S->n <= 1 || S->f[S->n - 1].ci != ci))
      return probe_direct(L);
    P->exits++;
    li_gap_exit(P, t);
    li_frame_close(P, S, t, 0);
    if (LI_INBAND) li_stack_own(P, S, li_clock_inline_ticks() - t);
    return n > 0 ? n - 1 : 0;
  } else {                              /* an entry */
    uint32_t func, parent, node;
    li_frame *fr;
    if (LI_UNLIKELY((lua_Unsigned)id > c->n || S->n == 0 || S->n == S->cap))
      return probe_direct(L);
    top = &S->f[S->n - 1];
    func = c->gid[id - 1];
    parent = top->node;
    node = P->kids[li_kid_slot(parent, func)];
    /* (a counted function's entry, P(id, 1), takes the general path:
    ** counting it here cost every timed pair 5 instructions, fib 809.4 ->
    ** 815.3 a call) */
    if (LI_UNLIKELY(top->ci == ci || ci == S->base_ci || n > 1 ||
                    P->node[node].func != func || P->node[node].parent != parent ||
                    P->node[node].stamp != P->fstamp))
      return probe_direct(L);
    fr = li_frame_open(P, S, top + 1, ci, func, node);
    fr->start = li_clock_inline_ticks();
    li_gap_entry(P, fr);
    if (LI_INBAND) li_entry_own(P, S, fr, t_in);
    return 0;
  }
}
#else
#define probe_direct probe_api
#define probe_fast probe_api
#endif

/* The probe chunks loaded now get (option "probe"; the fast path only
** where the clock is read with no call, else it would never run). */
lua_CFunction li_probe_for(const li_prof *P) {
  /* (the FFI probe's chunks loaded with the JIT off get the C API's) */
  if (P->probe == LI_PROBE_API || P->probe == LI_PROBE_FFI) return probe_api;
  if (P->probe == LI_PROBE_FAST && LI_CLOCK_INLINE(&P->clock)) return probe_fast;
  return probe_direct;
}

/* The probe of a chunk nobody profiles: exits return their values. */
static int probe_nothing(lua_State *L) {
  int n = lua_gettop(L);
  return n > 0 ? n - 1 : 0;
}


/* ======================================================================
** Zones: frames of a named span, opened and closed by the program
** ====================================================================== */

/* The record of zone `name`: a zone opens in every frame of a game, so the
** record found last for the same name pointer is checked first (by
** content: about a quarter of a zone pair's instructions was hashing the
** name again). */
static uint32_t zone_find(li_prof *P, const char *name, size_t len) {
  unsigned k = (unsigned)((uintptr_t)name >> 3) & 15u;
  uint32_t func;
  if (P->zcache[k].name == name) {
    const li_fn *f = &P->fn[P->zcache[k].func];
    if (f->zone && strlen(f->name) == 5 + len && memcmp(f->name + 5, name, len) == 0)
      return P->zcache[k].func;
  }
  func = li_fn_find_pre(P, "=zone", 0, "zone ", 5, name, len, 0, 0);
  if (func != LI_NONE) {
    P->zcache[k].name = name;
    P->zcache[k].func = func;
  }
  return func;
}

uint64_t li_zone_begin(li_prof *P, lua_State *L, li_stack *S,
                       const char *name, size_t len) {
  uint32_t func;
  (void)L;
  if (S->n == S->cap && !li_grow_frames(S)) return 0;
  func = zone_find(P, name, len);
  if (func == LI_NONE) return 0;
  /* (a zone costs its caller about what a probe pair does) */
  if (!li_push_frame(P, S, LI_ZONE_CI(P->zone_serial + 1), func)) return 0;
  return ++P->zone_serial;
}

int li_zone_end(li_prof *P, li_stack *S) {
  uint64_t t = li_clock_ticks(&P->clock);
  if (S->n > 0 && li_is_zone(&S->f[S->n - 1])) {
    P->exits++;
    li_close_top(P, S, t, 0);
    return 1;
  }
  if (S->zones_lost > 0) {      /* closed by a stop, pause or reset */
    S->zones_lost--;
    return 1;
  }
  return 0;
}

void li_zone_close(li_prof *P, li_stack *S, uint64_t serial, int err) {
  uint64_t t = li_clock_ticks(&P->clock);
  const void *ci = LI_ZONE_CI(serial);
  for (uint32_t i = S->n; i-- > 0;) {
    if (S->f[i].ci == ci) {
      /* above it: calls an error unwound, or zones opened after it */
      while (S->n > i + 1) li_close_top(P, S, t, err || !li_is_zone(&S->f[S->n - 1]));
      P->exits++;
      li_close_top(P, S, t, err);
      return;
    }
  }
}


/* ======================================================================
** The factory: ("").__luainstr(descriptors) -> probe
** ====================================================================== */

/* Read one NUL-terminated field of the descriptor string. */
static const char *field(const char **p, const char *end, size_t *len) {
  const char *s = *p;
  const char *z = memchr(s, '\0', (size_t)(end - s));
  if (z == NULL) return NULL;
  *len = (size_t)(z - s);
  *p = z + 1;
  return s;
}

static int field_num(const char **p, const char *end, uint32_t *v) {
  size_t n;
  const char *s = field(p, end, &n);
  uint64_t x = 0;
  if (s == NULL || n == 0 || n > 9) return 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    x = x * 10 + (uint64_t)(s[i] - '0');
  }
  *v = (uint32_t)x;
  return 1;
}

/* The map of a chunk of n functions, pushed: the FFI probe's where chunks
** loaded now get it (jit.c), else a userdata for a lua_CFunction probe
** (*ffi tells which); its gid to fill. */
static li_chunk *chunk_map(lua_State *L, li_prof *P, uint32_t n, int *ffi) {
  li_chunk *c = li_jit_chunk_new(L, P, P, n);
  *ffi = c != NULL;
  return c != NULL ? c : li_chunk_new(L, P, n);
}

/* The map on top becomes its chunk's probe (the profiler's userdata at
** pidx): an FFI probe is its map itself. */
static void chunk_probe(lua_State *L, li_prof *P, int ffi, int pidx) {
  if (ffi) {
    P->chunks_ffi++;
    return;
  }
  P->chunks_api++;
  lua_pushvalue(L, pidx);
  lua_pushcclosure(L, li_probe_for(P), 2);
}

/* Descriptor: "LI1" NUL chunkname NUL nfuncs NUL {name NUL line NUL
** lastline NUL}.  Registers the functions; pushes the probe. */
static int factory(lua_State *L) {
  li_prof *P = lua_touserdata(L, lua_upvalueindex(1));
  size_t len, n;
  const char *d = lua_tolstring(L, 1, &len);
  const char *p, *end, *chunkname;
  uint32_t nf, i;
  li_chunk *c;
  li_fn_chunk ck;
  int ffi;
  if (P == NULL || P->closed || d == NULL || len < 4 || memcmp(d, "LI1", 4) != 0)
    goto nothing;
  p = d + 4;
  end = d + len;
  /* the whole chunk name, NUL-terminated inside the descriptor */
  if ((chunkname = field(&p, end, &n)) == NULL) goto nothing;
  if (!field_num(&p, end, &nf) || nf == 0 || (size_t)nf > (size_t)(end - p) / 3) goto nothing;
  c = chunk_map(L, P, nf, &ffi);
  if (!li_fn_chunk_begin(P, &ck, chunkname, nf)) goto nothing;
  for (i = 0; i < nf; i++) {
    uint32_t line, lastline;
    const char *name = field(&p, end, &n);
    if (name == NULL || !field_num(&p, end, &line) || !field_num(&p, end, &lastline))
      goto nothing;
    c->gid[i] = li_fn_chunk_find(P, &ck, i + 1, name, n, line, lastline);
    if (c->gid[i] == LI_NONE) goto nothing;
  }
  chunk_probe(L, P, ffi, lua_upvalueindex(1));
  return 1;
nothing:
  lua_pushcfunction(L, probe_nothing);
  return 1;
}

void li_push_probe(lua_State *L, const char *chunkname,
                   const li_funcdesc *funcs, uint32_t nfuncs) {
  li_prof *P;
  li_chunk *c;
  li_fn_chunk ck;
  int ffi;
  luaL_checkstack(L, 3, NULL);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &li_prof_key);
  P = lua_touserdata(L, -1);
  if (P == NULL || P->closed || nfuncs == 0) goto nothing;
  c = chunk_map(L, P, nfuncs, &ffi);
  if (!li_fn_chunk_begin(P, &ck, chunkname, nfuncs)) { lua_pop(L, 1); goto nothing; }
  for (uint32_t i = 0; i < nfuncs; i++) {
    const li_funcdesc *d = &funcs[i];
    c->gid[i] = li_fn_chunk_find(P, &ck, i + 1, d->name, strlen(d->name),
                                 d->line, d->lastline);
    if (c->gid[i] == LI_NONE) { lua_pop(L, 1); goto nothing; }
    /* (known before its first call: the live view describes it so) */
    if (d->counted) P->fn[c->gid[i]].counted = 1;
  }
  chunk_probe(L, P, ffi, lua_gettop(L) - 1);
  lua_remove(L, -2);                 /* the profiler */
  return;
nothing:
  lua_pop(L, 1);
  lua_pushcfunction(L, probe_nothing);
}

int li_is_probe(lua_State *L, int idx) {
  lua_CFunction f = lua_tocfunction(L, idx);
  if (f == NULL) return li_jit_is_probe(L, idx);
  return f == probe_api || f == probe_direct || f == probe_fast ||
         f == probe_nothing;
}


/* ======================================================================
** The direct probe's check: Lua's structures as compiled (direct.h) against
** the API's answers on the library this program runs with
** ====================================================================== */

#if LI_HAVE_DIRECT
/* Called as the probe is (a C closure whose upvalue 1 is a userdata with
** no user values, an int), with the arguments (7, "x"): every read of
** direct.h must give what the API gives (li_d_selfcheck).  The first call
** calls itself once more, so both kinds of caller are compared: the thread's
** base (or whatever called direct_check) and a C call.  Counts the calls
** that agree in the int. */
static int direct_probe_check(lua_State *L) {
  int *ok = lua_touserdata(L, lua_upvalueindex(1));
  lua_Debug ar;
  if (ok == NULL || !li_d_selfcheck(L, ok, sizeof *ok)) return 0;
  if (++*ok == 1 && lua_getstack(L, 0, &ar) && lua_getinfo(L, "f", &ar)) {
    lua_pushinteger(L, 7);
    lua_pushliteral(L, "x");
    lua_call(L, 2, 0);
  }
  return 0;
}
#endif

/* 1 if the probe's direct variant reads right on L's library; else 0 and
** why (a static string). */
static int direct_check(lua_State *L, const char **why) {
#if LI_HAVE_DIRECT
  int *ok;
  int top = lua_gettop(L);
  /* the release as compiled first: no structure is read on another one */
  if (!li_d_release_ok()) {
    *why = "the Lua library is not the release luainstr was built with (" LUA_RELEASE ")";
    return 0;
  }
  *why = "Lua's structures do not read as luainstr was built to read them";
  if (!lua_checkstack(L, 4)) return 0;
  ok = lua_newuserdatauv(L, sizeof *ok, 0);
  *ok = 0;
  lua_pushcclosure(L, direct_probe_check, 1);
  lua_pushinteger(L, 7);
  lua_pushliteral(L, "x");
  if (lua_pcall(L, 2, 0, 0) != LUA_OK || *ok != 2) {
    lua_settop(L, top);
    return 0;
  }
  lua_settop(L, top);
  *why = NULL;
  return 1;
#else
  (void)L;
  *why = "luainstr was built without Lua's headers (LUAINSTR_LUA_INTERNALS)";
  return 0;
#endif
}

const char *const li_probe_names[LI_PROBE_KINDS] = {"api", "direct", "fast", "ffi"};

int li_probe_kind(const char *name) {
  for (int k = 0; name != NULL && k < LI_PROBE_KINDS; k++)
    if (strcmp(name, li_probe_names[k]) == 0) return k;
  return -1;
}

/* The options that shape what probes do: only before the first start (the
** calibration measures the probe chunks get) and before any chunk is
** loaded or coroutine seen.  0 and a message when it is too late. */
static int before_probes(li_prof *P, const char *option) {
  if (P->nfn == 0 && !P->calibrated && P->main.next == NULL) return 1;
  snprintf(P->errmsg, sizeof P->errmsg, "%s: set it before luainstr_open (or "
           "the first start) and before any chunk is loaded", option);
  return 0;
}

int li_prof_set_extraspace(li_prof *P, int on) {
  li_stack *S;
  if (!before_probes(P, "extraspace")) return LUAINSTR_EORDER;
  if (!LI_HAVE_EXTRASPACE) {                 /* (Lua 5.1 and 5.2) */
    if (!on) return LUAINSTR_OK;
    snprintf(P->errmsg, sizeof P->errmsg, "extraspace: Lua " LI_LUA_VERSION
             " has no extra space (lua_getextraspace is Lua 5.3's)");
    return LUAINSTR_EARG;
  }
  /* Only the main thread's can hold our pointer yet (no coroutine has a
  ** stack): give it back as it was, NULL. */
  memcpy(&S, lua_getextraspace(P->mainL), sizeof S);
  if (!on && S == &P->main) {
    S = NULL;
    memcpy(lua_getextraspace(P->mainL), &S, sizeof S);
  }
  P->xs_off = !on;
  if (on) li_xs_put(P, P->mainL, &P->main);
  return LUAINSTR_OK;
}

/* Can P's chunks get probes of this kind? 0 with the message when not. */
static int probe_possible(li_prof *P, int kind) {
  if (kind == LI_PROBE_FFI && P->jit_g == NULL) {
    snprintf(P->errmsg, sizeof P->errmsg, "probe: ffi needs LuaJIT's "
             "structures, and %s", P->jit_why);
    return 0;
  }
  if (kind != LI_PROBE_API && kind != LI_PROBE_FFI && !P->direct_ok) {
    snprintf(P->errmsg, sizeof P->errmsg, "probe: %s needs Lua's structures, "
             "and %s", kind == LI_PROBE_FAST ? "fast" : "direct", P->direct_why);
    return 0;
  }
  return 1;
}

const char *li_prof_probe_name(const li_prof *P) {
  if (P->chunks_ffi > 0) return P->chunks_api > 0 ? "ffi+api" : "ffi";
  if (P->probe == LI_PROBE_FFI) return li_probe_names[LI_PROBE_API];
  return li_probe_names[P->probe];
}

int li_prof_set_probe(li_prof *P, int kind) {
  if (!before_probes(P, "probe")) return LUAINSTR_EORDER;
  if (!probe_possible(P, kind)) return LUAINSTR_EARG;
  P->probe = kind;
  return LUAINSTR_OK;
}


/* ======================================================================
** The profiler's life
** ====================================================================== */

static void free_patterns(char **v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

void li_prof_free_data(li_prof *P) {
  for (uint32_t i = 0; i < P->nnames; i++) free(P->names[i]);
  free(P->names); P->names = NULL; P->nnames = P->capnames = 0;
  P->names_next = NULL; P->names_left = 0;
  for (uint32_t i = 0; i < P->nchunks; i++) free(P->chunks[i]);
  free(P->chunks); P->chunks = NULL; P->nchunks = P->capchunks = 0;
  free(P->chunkhash); P->chunkhash = NULL; P->chunkhcap = 0;
  free(P->fn); P->fn = NULL; P->nfn = P->capfn = 0;
  free(P->fnhash); P->fnhash = NULL; P->fnhcap = 0;
  free(P->node); P->node = NULL; P->nnode = P->capnode = 0;
  li_gap_free(P);
  free(P->nodehash); P->nodehash = NULL; P->nodehcap = 0;
  free(P->main.f); P->main.f = NULL; P->main.n = P->main.cap = 0;
  free(P->warnings); P->warnings = NULL;
  free(P->trace); P->trace = NULL; P->trace_cap = P->ntrace = 0;
  free(P->xset); P->xset = NULL; P->xcap = P->xn = 0;
  free(P->tmap); P->tmap = NULL; P->tcap = P->tn = 0;
  free_patterns(P->include, P->ninclude); P->include = NULL; P->ninclude = 0;
  free_patterns(P->exclude, P->nexclude); P->exclude = NULL; P->nexclude = 0;
  li_heap_files_free(P);
}

/* __gc of the profiler: the state is closing (its finalizer runs after
** those of objects made later, so instrumented finalizers have run). */
static int prof_gc(lua_State *L) {
  li_prof *P = lua_touserdata(L, 1);
  if (P->closed) return 0;
  if (P->on_close != NULL) {
    void (*fn)(lua_State *, void *) = P->on_close;
    P->on_close = NULL;
    fn(L, P->on_close_ud);
  }
  li_live_close(P);             /* END to the page, the files removed */
  P->closed = 1;
  P->on = 0;
  li_prof_set_fast(P);
  li_mem_free(P, L);            /* the allocator back before P goes */
  li_frames_free(P);
  li_set_cur(P, NULL, NULL);
  li_stacks_free(P);            /* (threads may outlive P in lua_close) */
  li_prof_free_data(P);
  li_lsan_unroot(P, sizeof *P);
  return 0;
}

/* The buffer is full: keep the recent events (overwrite the oldest)? The
** automatic choice is made once, at the first overflow, so a trace is
** always one span of the run: its start, or its end. */
int li_trace_recent(const li_prof *P) {
  if (P->trace_wrap >= 0) return P->trace_wrap;
  return P->trace_keep == LI_KEEP_RECENT ||
         (P->trace_keep == LI_KEEP_AUTO && P->frames != NULL);
}

void li_trace_put(li_prof *P, const li_stack *S, char kind, uint32_t func,
                  uint64_t t) {
  li_pevent *e;
  if (P->ntrace < P->trace_cap) {
    e = &P->trace[P->ntrace++];
  } else {
    if (P->trace_wrap < 0) P->trace_wrap = li_trace_recent(P);
    P->trace_dropped++;
    if (!P->trace_wrap) return;
    e = &P->trace[P->trace_next];             /* the oldest goes */
    if (++P->trace_next == P->trace_cap) P->trace_next = 0;
  }
  e->ts_ns = t;
  e->func = func;
  e->thread = S->tid;
  e->kind = kind;
}

int li_prof_set_trace(li_prof *P, uint64_t cap, int keep) {
  li_pevent *t = NULL;
  if (cap > 0) {
    t = malloc((size_t)cap * sizeof *t);
    if (t == NULL) return 0;
  }
  free(P->trace);
  P->trace = t;
  P->trace_cap = cap;
  li_prof_set_fast(P);
  P->trace_keep = keep;
  P->trace_wrap = -1;
  P->ntrace = P->trace_next = 0;
  P->trace_dropped = 0;
  P->trace_t0 = li_clock_ticks(&P->clock);
  return 1;
}

li_prof *li_prof_get(lua_State *L) {
  li_prof *P;
  if (!lua_checkstack(L, 1)) return NULL;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &li_prof_key);
  P = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return P != NULL && !P->closed ? P : NULL;
}

/* Push the table in field "__index" of the table on top, made if it is
** not a table. */
static void push_index_table(lua_State *L) {
  if (lua_getfield(L, -1, "__index") != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "__index");
  }
}

/* The factory where the offline form's prologue looks, ("").__luainstr,
** but out of the program's sight: not a field of the string metatable's
** __index table (the string library, whose fields programs list: LuaJIT's
** test suite checks them) but of the __index table of that table's own
** metatable, which the lookup reaches next.  A library table that has a
** metatable whose __index is not a table (a program's) keeps it, and the
** factory is then a field of the library table. */
void li_set_factory(lua_State *L) {
  int factory_idx = lua_gettop(L);
  lua_pushliteral(L, "");
  if (!lua_getmetatable(L, -1)) {
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setmetatable(L, -3);
  }
  push_index_table(L);
  if (!lua_getmetatable(L, -1)) {
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setmetatable(L, -3);
  }
  if (lua_getfield(L, -1, "__index") > LUA_TNIL && !lua_istable(L, -1)) {
    lua_pop(L, 2);                     /* the library table itself */
  } else {
    lua_pop(L, 1);
    push_index_table(L);
  }
  lua_pushvalue(L, factory_idx);
  lua_setfield(L, -2, LI_PROBE_KEY);
  lua_settop(L, factory_idx - 1);
}

li_prof *li_prof_attach(lua_State *L) {
  li_prof *P = li_prof_get(L);
  int top = lua_gettop(L);
  if (P != NULL) return P;
  if (!lua_checkstack(L, 8)) return NULL;
  /* A finalized profiler means the state is closing: never make another
  ** (its own finalizer would not run, and it would leak). */
  lua_rawgetp(L, LUA_REGISTRYINDEX, &li_prof_key);
  if (lua_touserdata(L, -1) != NULL) { lua_pop(L, 1); return NULL; }
  lua_pop(L, 1);
  P = lua_newuserdatauv(L, sizeof *P, 1);
  memset(P, 0, sizeof *P);
  /* The finalizer before the first malloc: any Lua call below may raise
  ** an error (out of memory), and then the collector frees P's blocks.
  ** Set on every attach, not only when the metatable is new: an error
  ** between making it and setting __gc would leave it without one. */
  luaL_newmetatable(L, LI_MT_PROF);
  lua_pushcfunction(L, prof_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  li_lsan_root(P, sizeof *P);           /* (prof_gc takes it back) */
  li_clock_init(&P->clock);
  P->gap_fd = -1;
  P->gap_at = UINT64_MAX;
  P->gap_thr = (uint64_t)1 << 62;
  P->direct_ok = direct_check(L, &P->direct_why);
  P->probe = P->direct_ok ? LI_PROBE_FAST : LI_PROBE_API;
  if (li_jit_check(L, P, &P->jit_why)) P->probe = LI_PROBE_FFI;
  {  /* LUAINSTR_PROBE: the option's default, for comparisons (tests) */
    const char *e = getenv("LUAINSTR_PROBE");
    int k = li_probe_kind(e);
    if (k >= 0 && probe_possible(P, k)) P->probe = k;
    P->errmsg[0] = '\0';
  }
  {  /* LUAINSTR_PREEMPT=off: option "preempt"'s default (luaprof
     ** --no-preempt; a program whose seccomp filter kills on a read) */
    const char *e = getenv("LUAINSTR_PREEMPT");
    P->gap_off = e != NULL && strcmp(e, "off") == 0;
  }
  P->enabled = 1;
  P->spike_factor = 2.0;
  P->spike_keep = 16;
  P->recal_min = LI_RECAL_MIN;
  if ((P->mainL = li_push_mainthread(L)) == NULL) {
    lua_settop(L, top);        /* (Lua 5.1 without Lua's headers) */
    return NULL;
  }
  lua_pop(L, 1);
  P->xs_off = !LI_HAVE_EXTRASPACE;
  li_stack_init(&P->main, P, P->mainL);
  if (!li_tree_init(P)) { lua_settop(L, top); return NULL; }
  li_xs_add(P, &P->main);
  li_xs_put(P, P->mainL, &P->main);
  lua_newtable(L);              /* thread <-> stack, weak keys and values */
  lua_newtable(L);
  lua_pushliteral(L, "kv");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, -1);
  lua_pushcclosure(L, factory, 1);     /* the factory keeps the profiler */
  li_set_factory(L);
  /* registered last: a profiler is attached only once it is complete (an
  ** error above leaves none, and the next attach starts again) */
  lua_rawsetp(L, LUA_REGISTRYINDEX, &li_prof_key);
  lua_settop(L, top);
  return P;
}

void li_prof_on_close(lua_State *L, void (*fn)(lua_State *L, void *ud), void *ud) {
  li_prof *P = li_prof_get(L);
  if (P == NULL) return;
  P->on_close = fn;
  P->on_close_ud = ud;
}

int li_prof_wants(li_prof *P, const char *chunkname) {
  const char *name;
  uint32_t i;
  if (chunkname == NULL) chunkname = "?";
  name = (chunkname[0] == '@' || chunkname[0] == '=') ? chunkname + 1 : chunkname;
  if (P->ninclude > 0) {
    for (i = 0; i < P->ninclude; i++)
      if (fnmatch(P->include[i], name, 0) == 0) break;
    if (i == P->ninclude) return 0;
  }
  for (i = 0; i < P->nexclude; i++)
    if (fnmatch(P->exclude[i], name, 0) == 0) return 0;
  return 1;
}

int li_prof_add_pattern(li_prof *P, int include, const char *pattern) {
  char ***v = include ? &P->include : &P->exclude;
  uint32_t *n = include ? &P->ninclude : &P->nexclude;
  char **nv = realloc(*v, (*n + 1) * sizeof *nv);
  char *c = li_dup_bytes(pattern, strlen(pattern));
  if (nv == NULL || c == NULL) { free(c); if (nv) *v = nv; return 0; }
  nv[(*n)++] = c;
  *v = nv;
  return 1;
}

void li_prof_clear_patterns(li_prof *P) {
  free_patterns(P->include, P->ninclude); P->include = NULL; P->ninclude = 0;
  free_patterns(P->exclude, P->nexclude); P->exclude = NULL; P->nexclude = 0;
}

void li_prof_warn(li_prof *P, const char *text) {
  size_t old = P->warnings ? strlen(P->warnings) : 0, add = strlen(text);
  char *w;
  if (old + add > (1u << 20)) return;        /* enough to read */
  w = realloc(P->warnings, old + add + 1);
  if (w == NULL) return;
  memcpy(w + old, text, add + 1);
  P->warnings = w;
}

static void set_on(li_prof *P) {
  int on = P->started && P->enabled && !P->closed;
  uint64_t t = li_clock_ticks(&P->clock);
  if (on && !P->on) {
    P->wall_since = t;
    li_gap_start(P, t);
    li_frames_resume(P, t);
  }
  if (!on && P->on) {
    li_prof_close_all(P, t);
    P->wall += t - P->wall_since;
    li_frames_pause(P, t);
  }
  /* curL is trusted only while collecting: a coroutine that ran when the
  ** profiler went off may be gone (xs_pin), so the next probe finds its
  ** thread again */
  if (on != P->on) li_set_cur(P, NULL, NULL);
  P->on = on;
  li_prof_set_fast(P);
}

static int order_error(li_prof *P, const char *msg) {
  snprintf(P->errmsg, sizeof P->errmsg, "%s", msg);
  return LUAINSTR_EORDER;
}

int li_prof_start(li_prof *P, lua_State *L) {
  if (P->started) return order_error(P, "start: the profiler is already running");
  if (!P->calibrated) {
    unsigned shift = P->clock.shift;
    li_clock_start(&P->clock);
    P->trace_t0 <<= P->clock.shift - shift;   /* (set before, in old ticks) */
    li_prof_calibrate(P, L);
    /* frames are timed from here, as trace events are */
    if (P->trace_cap == 0) P->trace_t0 = li_clock_ticks(&P->clock);
  }
  P->started = 1;
  P->ever_started = 1;
  set_on(P);
  return LUAINSTR_OK;
}

int li_prof_stop(li_prof *P) {
  if (!P->started) return order_error(P, "stop: the profiler is not running");
  P->started = 0;
  set_on(P);
  return LUAINSTR_OK;
}

int li_prof_enable(li_prof *P) {
  if (P->enabled) return order_error(P, "enable: collection is not paused");
  P->enabled = 1;
  set_on(P);
  return LUAINSTR_OK;
}

int li_prof_disable(li_prof *P) {
  if (!P->enabled) return order_error(P, "disable: collection is already paused");
  P->enabled = 0;
  set_on(P);
  return LUAINSTR_OK;
}

void li_prof_clear(li_prof *P) {
  for (li_stack *S = &P->main; S != NULL; S = S->next) {
    S->zones_lost += li_stack_zones(S, 0);
    S->n = 0;
    S->root = 0;
  }
  li_tree_init(P);
  li_mem_clear(P);
  P->entries = P->exits = P->counted = 0;
  P->own_base = P->own_clock;
  P->unseen = 0;
  P->ntrace = P->trace_next = P->trace_dropped = 0;
  P->trace_wrap = -1;
  P->trace_t0 = li_clock_ticks(&P->clock);
  P->wall = 0;
  P->wall_since = li_clock_ticks(&P->clock);
  P->alloc_total = 0;
  li_frames_clear(P);
}

int li_prof_reset(li_prof *P) {
  li_prof_clear(P);
  return LUAINSTR_OK;
}
