/*
** stacks.c -- the shadow stacks: one a coroutine (and the main thread's),
** found through the thread's extra space or the registry, made current as
** threads switch; closing their frames; the resumes the profiler infers
** when a host resumes a coroutine behind its back.
*/
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "profiler.h"

/* ======================================================================
** Stacks and frames
** ====================================================================== */

void li_stack_init(li_stack *S, li_prof *P, lua_State *L) {
  memset(S, 0, sizeof *S);
  S->P = P;
  S->L = L;
  S->pre_skip = P->pre_clock;
}

static void stack_link(li_prof *P, li_stack *S) {
  S->prev = &P->main;
  S->next = P->main.next;
  if (P->main.next) P->main.next->prev = S;
  P->main.next = S;
}

static void stack_unlink(li_stack *S) {
  if (S->prev) S->prev->next = S->next;
  if (S->next) S->next->prev = S->prev;
  S->prev = S->next = NULL;
}

/* ---- a thread's stack in its extra space ------------------------------
** Every thread has LUA_EXTRASPACE bytes (a pointer's) before its
** lua_State, a copy of the main thread's when it is made.  The profiler
** keeps a thread's stack there, so that a coroutine switch finds it with no
** registry lookup.  It reads the pointer only as a key of its own set of
** stacks (a host's value, or a thread's copy of another's, is never
** dereferenced or taken: it must be in the set and belong to that thread),
** and writes over nothing but its own pointers and NULL (a host's value
** stays). */

static uint32_t xs_home(const li_prof *P, const li_stack *S) {
  return (uint32_t)(((uint64_t)(uintptr_t)S * 0x9E3779B97F4A7C15u) >> 32) &
         (P->xcap - 1);
}

static int xs_has(const li_prof *P, const li_stack *S) {
  if (P->xcap == 0 || S == NULL) return 0;
  for (uint32_t k = xs_home(P, S); P->xset[k] != NULL; k = (k + 1) & (P->xcap - 1))
    if (P->xset[k] == S) return 1;
  return 0;
}

/* ---- stacks by thread, for the FFI probe -------------------------------
** The FFI probe (jit.c) runs where the Lua API cannot (inside a LuaJIT
** trace), so it finds a thread's stack by the thread's address in a table
** of its own: open addressing, a stack in the slot of its thread.  A new
** thread made at a collected one's address, before that one's stack is
** swept, takes the slot (stack_lookup puts every stack it finds); the old
** stack's sweep leaves a slot that is not its own. */

static uint32_t tm_home(const li_prof *P, const lua_State *T) {
  return (uint32_t)(((uint64_t)(uintptr_t)T * 0x9E3779B97F4A7C15u) >> 32) &
         (P->tcap - 1);
}

static li_stack *tmap_get(const li_prof *P, const lua_State *T) {
  if (P->tcap == 0) return NULL;
  for (uint32_t k = tm_home(P, T); P->tmap[k] != NULL; k = (k + 1) & (P->tcap - 1))
    if (P->tmap[k]->L == T) return P->tmap[k];
  return NULL;
}

/* Put S in the slot of its thread (nothing when memory is short: the FFI
** probe then counts the thread's events as unseen). */
static void tmap_put(li_prof *P, li_stack *S) {
  uint32_t k;
  if ((P->tn + 1) * 2 > P->tcap) {
    uint32_t cap = P->tcap ? P->tcap * 2 : 64, old = P->tcap;
    li_stack **t = calloc(cap, sizeof *t), **o = P->tmap;
    if (t == NULL) return;
    P->tmap = t;
    P->tcap = cap;
    for (uint32_t i = 0; i < old; i++)
      if (o[i] != NULL) {
        for (k = tm_home(P, o[i]->L); t[k] != NULL; k = (k + 1) & (cap - 1)) {}
        t[k] = o[i];
      }
    free(o);
  }
  for (k = tm_home(P, S->L); P->tmap[k] != NULL; k = (k + 1) & (P->tcap - 1))
    if (P->tmap[k]->L == S->L) {
      P->tmap[k] = S;
      return;
    }
  P->tmap[k] = S;
  P->tn++;
}

void li_tmap_del(li_prof *P, li_stack *S) {
  uint32_t k, j, mask = P->tcap - 1;
  if (P->tcap == 0) return;
  for (k = tm_home(P, S->L); P->tmap[k] != S; k = (k + 1) & mask)
    if (P->tmap[k] == NULL) return;
  P->tn--;
  for (j = (k + 1) & mask; P->tmap[j] != NULL; j = (j + 1) & mask) {
    uint32_t h = tm_home(P, P->tmap[j]->L);
    if (((j - h) & mask) >= ((j - k) & mask)) {   /* it may fill the hole */
      P->tmap[k] = P->tmap[j];
      k = j;
    }
  }
  P->tmap[k] = NULL;
}

void li_tmap_forget(li_prof *P, const lua_State *T) {
  li_stack *S = tmap_get(P, T);
  if (S != NULL) li_tmap_del(P, S);
}

/* Add S to the set (nothing when memory is short: S is then found the
** slow way), and to the map by thread. */
void li_xs_add(li_prof *P, li_stack *S) {
  uint32_t k;
  tmap_put(P, S);
  if ((P->xn + 1) * 2 > P->xcap) {
    uint32_t cap = P->xcap ? P->xcap * 2 : 64, old = P->xcap;
    li_stack **t = calloc(cap, sizeof *t), **o = P->xset;
    if (t == NULL) return;
    P->xset = t;
    P->xcap = cap;
    for (uint32_t i = 0; i < old; i++)
      if (o[i] != NULL) {
        for (k = xs_home(P, o[i]); t[k] != NULL; k = (k + 1) & (cap - 1)) {}
        t[k] = o[i];
      }
    free(o);
  }
  for (k = xs_home(P, S); P->xset[k] != NULL; k = (k + 1) & (P->xcap - 1))
    if (P->xset[k] == S) return;
  P->xset[k] = S;
  P->xn++;
}

static void xs_del(li_prof *P, li_stack *S) {
  uint32_t k, j, mask = P->xcap - 1;
  if (P->xcap == 0) return;
  for (k = xs_home(P, S); P->xset[k] != S; k = (k + 1) & mask)
    if (P->xset[k] == NULL) return;
  P->xn--;
  for (j = (k + 1) & mask; P->xset[j] != NULL; j = (j + 1) & mask) {
    uint32_t h = xs_home(P, P->xset[j]);
    if (((j - h) & mask) >= ((j - k) & mask)) {   /* it may fill the hole */
      P->xset[k] = P->xset[j];
      k = j;
    }
  }
  P->xset[k] = NULL;
}

/* The stack of thread T kept in its extra space, or NULL (also when the
** host keeps the extra space for itself: option "extraspace" off). */
static li_stack *xs_get(const li_prof *P, lua_State *T) {
  li_stack *S;
  if (!LI_HAVE_EXTRASPACE || P->xs_off) return NULL;
  memcpy(&S, lua_getextraspace(T), sizeof S);
  return xs_has(P, S) && S->L == T && S->P == P ? S : NULL;
}

void li_xs_put(li_prof *P, lua_State *T, li_stack *S) {
  li_stack *old;
  if (!LI_HAVE_EXTRASPACE || P->xs_off) return;
  memcpy(&old, lua_getextraspace(T), sizeof old);
  if (old == NULL || xs_has(P, old)) memcpy(lua_getextraspace(T), &S, sizeof S);
}

/* S is going: no stack may keep it as its waker (inferred resumes, which
** are rare: the list is walked only while there are any). */
static void forget_waker(li_prof *P, li_stack *S) {
  if (S->waker != NULL) {
    S->waker = NULL;
    P->inferring--;
  }
  for (li_stack *T = &P->main; P->inferring > 0 && T != NULL; T = T->next)
    if (T->waker == S) {
      T->waker = NULL;
      P->inferring--;
    }
}

/* ---- coroutines' stacks and their lifetime ------------------------------
** A coroutine's stack is malloc'd and linked in P's list; the table in P's
** first user value (weak keys and values) maps the thread to its stack (a
** light userdata) and the stack to the thread.  When the collector frees
** the thread both entries go, and a sweep frees the stacks whose entry is
** gone.  No finalizer: a finalizer is a C call, and one run near the
** C-call limit raises "C stack overflow" in the program (Lua 5.1), or in
** the finalizer, which then never runs (5.2-5.4: the stack would be freed
** with the userdata while still linked).  Sweeps run as stacks are made
** (when their number has doubled since the last: amortized constant) and
** before every report.  A stack freed late closes its frames as a
** finalizer would have: a suspended coroutine's calls end when it was
** suspended. */

/* The coroutine of S is gone: close its calls, free it. */
static void stack_free(li_prof *P, li_stack *S) {
  uint64_t t = S->suspended ? S->susp_since : li_clock_ticks(&P->clock);
  li_stack_close(P, S, 0, t, 0);
  forget_waker(P, S);
  stack_unlink(S);
  xs_del(P, S);
  li_tmap_del(P, S);
  if (P->cur == S) li_set_cur(P, NULL, NULL);
  P->nstacks--;
  free(S->f);
  free(S);
}

/* Push P's table of threads and stacks (0, nothing pushed: none). */
static int push_threads(li_prof *P, lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &li_prof_key);
  if (lua_touserdata(L, -1) != P || lua_getiuservalue(L, -1, 1) != LUA_TTABLE) {
    lua_pop(L, 2);
    return 0;
  }
  lua_remove(L, -2);
  return 1;
}

/* Free the stacks whose thread is gone from table t (an index of L). */
static void sweep(li_prof *P, lua_State *L, int t) {
  li_stack *S = P->main.next, *next;
  for (; S != NULL; S = next) {
    next = S->next;
    lua_rawgetp(L, t, S);
    if (lua_isnil(L, -1)) stack_free(P, S);
    lua_pop(L, 1);
  }
  P->sweep_at = P->nstacks < 32 ? 64 : P->nstacks * 2;
}

void li_stacks_sweep(li_prof *P, lua_State *L) {
  int top = lua_gettop(L);
  if (P->closed || P->nstacks == 0 || !lua_checkstack(L, 3)) return;
  if (push_threads(P, L)) sweep(P, L, lua_gettop(L));
  lua_settop(L, top);
}

void li_stacks_free(li_prof *P) {
  li_stack *S = P->main.next, *next;
  for (; S != NULL; S = next) {
    next = S->next;
    free(S->f);
    free(S);
  }
  P->main.next = NULL;
  P->nstacks = 0;
}

/* The stack of thread T, whose thread object is at index `idx` of the
** running thread L (idx 0: T is L); made if T has none.  All Lua work is
** done on L: T may be suspended. */
static li_stack *stack_lookup(li_prof *P, lua_State *L, int idx, lua_State *T) {
  li_stack *S;
  int top = lua_gettop(L), t;
  if (T == P->mainL) return &P->main;
  if (P->closed) return NULL;
  if (idx != 0) idx = lua_absindex(L, idx);
  if (!lua_checkstack(L, 5) || !push_threads(P, L)) return NULL;
  t = lua_gettop(L);
  if (idx == 0) lua_pushthread(L); else lua_pushvalue(L, idx);
  lua_rawget(L, t);
  S = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (S == NULL) {
    if (P->nstacks >= P->sweep_at) sweep(P, L, t);
    if ((S = malloc(sizeof *S)) == NULL) {
      lua_settop(L, top);
      return NULL;
    }
    li_stack_init(S, P, T);
    S->tid = ++P->next_tid;
    stack_link(P, S);            /* P's from here: freed by a sweep... */
    P->nstacks++;
    if (idx == 0) lua_pushthread(L); else lua_pushvalue(L, idx);
    lua_rawsetp(L, t, S);        /* ...once this is gone (or never set: an
                                 ** error here, out of memory) */
    if (idx == 0) lua_pushthread(L); else lua_pushvalue(L, idx);
    lua_pushlightuserdata(L, S);
    lua_rawset(L, t);
    li_xs_add(P, S);
  }
  lua_settop(L, top);
  li_xs_put(P, T, S);
  tmap_put(P, S);
  return S;
}

/* The thread of the last probe (curL) is trusted by its address alone: the
** probe's fast path compares nothing else.  A coroutine collected while it
** is curL would leave its address there, and one made at that address
** before the dead one's stack is swept (any allocation after the
** collector freed it can make it) would run on the dead one's stack, under
** its frames.  So a coroutine becomes curL here only held by the profiler
** (the registry's key &pin_key), until another one takes its place: at most one thread is kept
** alive longer.  A resume sets curL to the coroutine it holds, and back to
** the resumer when it returns; the main thread lives as long as P.  0 when
** it cannot be held (no stack space): then it does not become curL
** (tests/test_runtime.c, thread_at_a_collected_threads_address_*). */
static const char pin_key;

static int xs_pin(li_prof *P, lua_State *L) {
  if (L == P->mainL) return 1;
  if (P->closed || !lua_checkstack(L, 2)) return 0;
  lua_pushthread(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &pin_key);
  return 1;
}

li_stack *li_stack_switch(li_prof *P, lua_State *L) {
  li_stack *S = xs_get(P, L);
  if (S == NULL) S = stack_lookup(P, L, 0, L);
  if (S != NULL && xs_pin(P, L)) li_set_cur(P, L, S);
  return S;
}

lua_State *li_running_thread(li_prof *P) {
  lua_Debug ar;
  lua_State *T = P->curL;
  if (T != NULL && T != P->mainL && P->cur != NULL && !P->cur->suspended &&
      lua_status(T) == LUA_OK && lua_getstack(T, 0, &ar))
    return T;
  return P->mainL;
}

/* ---- resumes the profiler was not told of ------------------------------
** A host that resumes a coroutine with Lua's own lua_resume (C code that
** does not include luainstr_wrap.h) runs it behind the boundaries' back:
** the first the profiler sees of it is a probe, or the end of a yield, in
** a thread other than the current one.  It infers the resume then: the
** resumer is the thread it saw run last, if that one still runs, else the
** main thread; the coroutine's new calls hang under the resumer's top
** frame, whose time waits from now (as resume_begin's does) until the
** coroutine yields, returns from its last call, or is found dead (by an
** error) at a later switch, where its calls close.  What it cannot know:
** when the error happened (its calls end at the next switch), and what
** was allocated before the coroutine's first probe (the resumer's). */

/* T is running or waiting in a resume (not suspended, finished or dead). */
static int thread_runs(lua_State *T) {
  lua_Debug ar;
  return lua_status(T) == LUA_OK && lua_getstack(T, 0, &ar);
}

static void infer_end(li_prof *P, li_stack *S, uint64_t t, int current) {
  li_stack *R = S->waker;
  if (R == NULL) return;
  S->waker = NULL;
  P->inferring--;
  if (R->resuming) {
    li_prof_charge(P, R, t - R->res_t0, P->entries - R->res_pairs0,
                   P->own_clock - R->res_own0);
    R->resuming = 0;
  }
  if (current) li_set_cur(P, R->L, R);
}

void li_infer_end(li_prof *P, li_stack *S, uint64_t t) {
  infer_end(P, S, t, 1);
}

/* The inferred resumes that ended unseen, from X up its wakers to `to`:
** a coroutine that died by an error closes its calls at t, one that
** yielded from C is suspended since t. */
static li_stack *infer_settle(li_prof *P, li_stack *X, li_stack *to,
                              uint64_t t) {
  while (X != NULL && X != to && X->waker != NULL && !thread_runs(X->L)) {
    li_stack *R = X->waker;
    int st = lua_status(X->L);
    if (st != LUA_OK && st != LUA_YIELD)
      li_stack_close(P, X, 0, t, 1);
    else if (st == LUA_YIELD && !X->suspended) {
      X->suspended = 1;
      X->susp_since = t;
      X->susp_pre = P->pre_clock;
    }
    infer_end(P, X, t, 0);
    X = R;
  }
  return X;
}

void li_infer_settle(li_prof *P) {
  li_stack *X;
  if (P->inferring == 0 || !P->on || P->cur == NULL) return;
  X = infer_settle(P, P->cur, NULL, li_clock_ticks(&P->clock));
  if (X != NULL && X != P->cur) li_set_cur(P, X->L, X);
}

/* The switch to S (running now; X the stack current before) that nobody
** told the profiler of: S resumed by the thread seen last, or back. */
static li_stack *infer_to(li_prof *P, li_stack *X, li_stack *S) {
  li_stack *R;
  uint64_t t = li_clock_ticks(&P->clock);
  X = infer_settle(P, X, S, t);
  /* L runs again where it waited (it is X or one of its wakers), or the
  ** main thread runs: nothing was resumed */
  /* no continuation woke it at its resume (Lua 5.1): now */
  if (!LI_HAVE_CONTINUATIONS && S->suspended) li_stack_wake(P, S, t);
  if (S == &P->main || S->waker != NULL || X == S) return S;
  R = X != NULL && X != &P->main && thread_runs(X->L) ? X : &P->main;
  li_stack_rebase(P, S, R->n > 0 ? R->f[R->n - 1].node : R->root, t);
  R->resuming = 1;
  R->res_t0 = t;
  R->res_pairs0 = P->entries;
  R->res_own0 = P->own_clock;
  S->waker = R;
  P->inferring++;
  return S;
}

li_stack *li_infer_switch(li_prof *P, lua_State *L) {
  li_stack *X = P->cur, *S;
  P->unseen++;
  if ((S = li_stack_switch(P, L)) == NULL) return NULL;
  return infer_to(P, X, S);
}

li_stack *li_stack_switch_c(li_prof *P, lua_State *T) {
  li_stack *S = T == P->mainL ? &P->main : tmap_get(P, T);
  if (S == NULL) {                       /* never seen: nothing to push on */
    P->unseen++;
    return NULL;
  }
  /* (a thread whose inferred resume goes on, or with no thread before it
  ** to infer from: nothing more to learn) */
  if (P->curL != NULL && S->waker == NULL) {
    P->unseen++;
    S = infer_to(P, P->cur, S);
  }
  if (S == &P->main) li_set_cur(P, T, S);
  return S;
}

li_stack *li_stack_of_thread(li_prof *P, lua_State *L, int idx) {
  lua_State *T = lua_tothread(L, idx);
  li_stack *S;
  if (T == NULL || P->closed) return NULL;
  if (T == P->curL && P->cur != NULL) return P->cur;
  if ((S = xs_get(P, T)) != NULL) return S;
  return stack_lookup(P, L, idx, T);
}

void li_stack_wake(li_prof *P, li_stack *S, uint64_t t) {
  S->susp += t - S->susp_since;
  S->pre_skip += P->pre_clock - S->susp_pre;
  S->suspended = 0;
  if (P->frames != NULL) li_frames_wake(P, S);  /* (frames.c) */
  if (P->on) li_trace(P, S, 'R', 0, t);
}

void li_stack_close(li_prof *P, li_stack *S, uint32_t to, uint64_t t, int err) {
  /* (a suspended coroutine's nodes are saved for the frame when it runs
  ** again: these calls close without its running) */
  if (P->frames != NULL && S->suspended) li_frames_wake(P, S);
  if (S->suspended) {   /* (its preempted ticks stay as they were then) */
    S->pre_skip += P->pre_clock - S->susp_pre;
    S->susp_pre = P->pre_clock;
  }
  while (S->n > to) li_close_top(P, S, t, err);
}

/* The zones among the top frames of S down to depth `to`. */
uint32_t li_stack_zones(const li_stack *S, uint32_t to) {
  uint32_t n = 0;
  for (uint32_t i = to; i < S->n; i++) n += li_is_zone(&S->f[i]);
  return n;
}

void li_prof_close_all(li_prof *P, uint64_t t) {
  for (li_stack *S = &P->main; S != NULL; S = S->next) {
    S->zones_lost += li_stack_zones(S, 0);
    li_stack_close(P, S, 0, S->suspended ? S->susp_since : t, 0);
    if (S->waker != NULL) {          /* (its waker's frames closed too) */
      S->waker->resuming = 0;
      S->waker = NULL;
    }
  }
  P->inferring = 0;
}

void li_stack_rebase(li_prof *P, li_stack *S, uint32_t root, uint64_t t) {
  uint32_t parent = root;
  if (S->root == root) return;
  S->root = root;
  /* (a suspended stack's calls stopped at its suspension) */
  if (S->suspended) t = S->susp_since;
  for (uint32_t i = 0; i < S->n; i++) {
    li_frame *fr = &S->f[i];
    uint32_t node;
    li_frame_settle(P, S, fr, t);
    node = li_node_child(P, parent, fr->func);
    if (node == LI_NONE) node = parent;      /* (no memory: the resumer's) */
    li_node_touch(P, node);
    fr->node = parent = node;
  }
}

void li_prof_charge(li_prof *P, li_stack *S, uint64_t ticks, uint64_t pairs,
                    uint64_t own) {
  (void)P; (void)ticks;
  if (S == NULL || S->n == 0) return;
  S->pairs += pairs;
  S->susp += own;
}
