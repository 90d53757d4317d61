/*
** profiler.c -- one profiler per lua_State: the functions, the call tree,
** the shadow stacks, the probe, and the calibration of the probe's cost.
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

#define LI_MT_PROF "luainstr.profiler.mt"  /* its metatable */
#define LI_MT_STACK "luainstr.stack.mt"    /* metatable of coroutine stacks */
#define LI_MT_CHUNK "luainstr.chunk.mt"    /* metatable of chunk maps */

/* Its address is the registry key of the profiler ud (profiler.h): a
** light-userdata key makes no string, so looking the profiler up never
** allocates (li_prof_get cannot raise an error on a state without profiler
** when memory runs out). */
const char li_prof_key;

/* The probe indexes nodes and frames by a shift (checked here, where the
** sizes are known). */
typedef char li_node_is_128_bytes[sizeof(li_node) == 128 ? 1 : -1];
typedef char li_frame_is_64_bytes[sizeof(li_frame) == 64 ? 1 : -1];

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
static li_chunk *chunk_new(lua_State *L, li_prof *P, uint32_t n) {
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
** Functions and call-tree nodes
** ====================================================================== */

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) { h ^= s[i]; h *= 1099511628211u; }
  return h;
}

static char *dup_bytes(const char *s, size_t n) {
  char *c = malloc(n + 1);
  if (c == NULL) return NULL;
  memcpy(c, s, n);
  c[n] = '\0';
  return c;
}

/* The chunk name as Lua shows it in messages. */
static char *display_source(const char *chunkname) {
  size_t n = strlen(chunkname), line;
  char *out;
  if (chunkname[0] == '@' || chunkname[0] == '=')
    return dup_bytes(chunkname + 1, n - 1);
  line = strcspn(chunkname, "\r\n");
  if (line > 40) line = 40;
  out = malloc(line + 16);
  if (out == NULL) return NULL;
  memcpy(out, "[string \"", 9);
  memcpy(out + 9, chunkname, line);
  strcpy(out + 9 + line, line < n ? "...\"]" : "\"]");
  return out;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size) {
  uint32_t c = *cap ? *cap : 16;
  void *np;
  if (need <= *cap) return 1;
  while (c < need) c *= 2;
  np = realloc(*p, (size_t)c * size);
  if (np == NULL) return 0;
  *p = np;
  *cap = c;
  return 1;
}

/* Rebuild an open-addressing table of indexes + 1 with keys from hashes. */
static int rehash_fns(li_prof *P) {
  uint32_t cap = P->fnhcap ? P->fnhcap * 2 : 64;
  uint32_t *h = calloc(cap, sizeof *h);
  if (h == NULL) return 0;
  for (uint32_t i = 0; i < P->nfn; i++) {
    uint32_t k = (uint32_t)P->fn[i].hash & (cap - 1);
    while (h[k]) k = (k + 1) & (cap - 1);
    h[k] = i + 1;
  }
  free(P->fnhash);
  P->fnhash = h;
  P->fnhcap = cap;
  return 1;
}

/* The record of a function, created on first sight; its name is pre (of
** prelen bytes: "zone " for zones, else "") followed by name.  LI_NONE: no
** memory. */
static uint32_t fn_find_pre(li_prof *P, const char *chunkname, uint32_t id,
                            const char *pre, size_t prelen,
                            const char *name, size_t namelen, uint32_t line,
                            uint32_t lastline) {
  uint64_t h = 14695981039346656037u;
  uint32_t k, i;
  li_fn *f;
  h = hash_bytes(h, chunkname, strlen(chunkname) + 1);
  h = hash_bytes(h, pre, prelen);
  h = hash_bytes(h, name, namelen);
  h = hash_bytes(h, &id, sizeof id);
  h = hash_bytes(h, &line, sizeof line);
  h = hash_bytes(h, &lastline, sizeof lastline);
  if (P->fnhcap) {
    for (k = (uint32_t)h & (P->fnhcap - 1); P->fnhash[k]; k = (k + 1) & (P->fnhcap - 1)) {
      f = &P->fn[P->fnhash[k] - 1];
      if (f->hash == h && f->id == id && f->line == line &&
          f->lastline == lastline && strcmp(f->chunkname, chunkname) == 0 &&
          strlen(f->name) == prelen + namelen &&
          memcmp(f->name, pre, prelen) == 0 &&
          memcmp(f->name + prelen, name, namelen) == 0)
        return P->fnhash[k] - 1;
    }
  }
  if ((P->nfn + 1) * 2 > P->fnhcap && !rehash_fns(P)) return LI_NONE;
  if (!grow((void **)&P->fn, &P->capfn, P->nfn + 1, sizeof *P->fn)) return LI_NONE;
  f = &P->fn[P->nfn];
  memset(f, 0, sizeof *f);
  f->name = malloc(prelen + namelen + 1);
  f->chunkname = dup_bytes(chunkname, strlen(chunkname));
  f->source = display_source(chunkname);
  if (f->name == NULL || f->chunkname == NULL || f->source == NULL) {
    free(f->name); free(f->chunkname); free(f->source);
    return LI_NONE;
  }
  memcpy(f->name, pre, prelen);
  memcpy(f->name + prelen, name, namelen);
  f->name[prelen + namelen] = '\0';
  f->id = id; f->line = line; f->lastline = lastline; f->hash = h;
  f->zone = prelen > 0;
  i = P->nfn++;
  for (k = (uint32_t)h & (P->fnhcap - 1); P->fnhash[k]; k = (k + 1) & (P->fnhcap - 1)) {}
  P->fnhash[k] = i + 1;
  return i;
}

static uint32_t fn_find(li_prof *P, const char *chunkname, uint32_t id,
                        const char *name, size_t namelen, uint32_t line,
                        uint32_t lastline) {
  return fn_find_pre(P, chunkname, id, "", 0, name, namelen, line, lastline);
}

static uint32_t node_hash(uint32_t parent, uint32_t func) {
  uint64_t x = ((uint64_t)parent << 32 | func) * 0x9E3779B97F4A7C15u;
  return (uint32_t)(x >> 32);
}

static int rehash_nodes(li_prof *P) {
  uint32_t cap = P->nodehcap ? P->nodehcap * 2 : 256;
  uint32_t *h = calloc(cap, sizeof *h);
  if (h == NULL) return 0;
  for (uint32_t i = 1; i < P->nnode; i++) {
    uint32_t k = node_hash(P->node[i].parent, P->node[i].func) & (cap - 1);
    while (h[k]) k = (k + 1) & (cap - 1);
    h[k] = i;
  }
  free(P->nodehash);
  P->nodehash = h;
  P->nodehcap = cap;
  return 1;
}

/* node_child's search when the node found last in its slot is not the
** one. */
static LI_NOINLINE uint32_t node_child_slow(li_prof *P, uint32_t parent,
                                            uint32_t func) {
  uint32_t k, i;
  for (k = node_hash(parent, func) & (P->nodehcap - 1); P->nodehash[k];
       k = (k + 1) & (P->nodehcap - 1)) {
    i = P->nodehash[k];
    if (P->node[i].parent == parent && P->node[i].func == func) {
      P->kids[li_kid_slot(parent, func)] = i;
      return i;
    }
  }
  if ((P->nnode + 1) * 2 > P->nodehcap && !rehash_nodes(P)) return LI_NONE;
  if (!grow((void **)&P->node, &P->capnode, P->nnode + 1, sizeof *P->node))
    return LI_NONE;
  i = P->nnode++;
  memset(&P->node[i], 0, sizeof P->node[i]);
  P->node[i].func = func;
  P->node[i].parent = parent;
  P->node[i].min = INT64_MAX;
  P->kids[li_kid_slot(parent, func)] = i;
  for (k = node_hash(parent, func) & (P->nodehcap - 1); P->nodehash[k];
       k = (k + 1) & (P->nodehcap - 1)) {}
  P->nodehash[k] = i;
  return i;
}

/* The node for func under parent, created on first sight.  LI_NONE: no
** memory (the frame then counts under the parent's node).  A call site
** calls the same function again and again: the node found last for the
** slot of (parent, func) is checked inline.  (The child found last of
** each node, as first written, missed at every call of a method that
** calls two others in turn, or of a call site that calls several: about a
** third of the calls of richards and oo_sim went to the hash, 51
** instructions each.) */
static inline uint32_t node_child(li_prof *P, uint32_t parent, uint32_t func) {
  uint32_t k = P->kids[li_kid_slot(parent, func)];
  if (P->node[k].func == func && P->node[k].parent == parent) return k;
  return node_child_slow(P, parent, func);
}

/* Node 0, the root: there is always one. */
static int init_tree(li_prof *P) {
  P->nnode = 0;
  if (!grow((void **)&P->node, &P->capnode, 1, sizeof *P->node)) return 0;
  memset(&P->node[0], 0, sizeof P->node[0]);
  P->node[0].func = LI_NONE;
  P->node[0].parent = LI_NONE;
  P->node[0].min = INT64_MAX;
  P->nnode = 1;
  memset(P->kids, 0, sizeof P->kids);
  /* a table there already is emptied, not made again: a reset needs no
  ** memory, so it cannot leave the profiler without one */
  if (P->nodehash != NULL) {
    memset(P->nodehash, 0, (size_t)P->nodehcap * sizeof *P->nodehash);
    return 1;
  }
  return rehash_nodes(P);
}


/* ======================================================================
** Stacks and frames
** ====================================================================== */

static void stack_init(li_stack *S, li_prof *P, lua_State *L) {
  memset(S, 0, sizeof *S);
  S->P = P;
  S->L = L;
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

/* Add S to the set (nothing when memory is short: S is then found the
** slow way). */
static void xs_add(li_prof *P, li_stack *S) {
  uint32_t k;
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
  if (P->xs_off) return NULL;
  memcpy(&S, lua_getextraspace(T), sizeof S);
  return xs_has(P, S) && S->L == T && S->P == P ? S : NULL;
}

static void xs_put(li_prof *P, lua_State *T, li_stack *S) {
  li_stack *old;
  if (P->xs_off) return;
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

/* __gc of a coroutine's stack: the coroutine is gone.  Its open frames ran
** until it was last suspended; they end there, not by an error. */
static int stack_gc(lua_State *L) {
  li_stack *S = lua_touserdata(L, 1);
  li_prof *P = S->P;
  if (P != NULL && !P->closed) {
    uint64_t t = S->suspended ? S->susp_since : li_clock_ticks(&P->clock);
    li_stack_close(P, S, 0, t, 0);
    forget_waker(P, S);
    stack_unlink(S);
    xs_del(P, S);
    if (P->cur == S) li_set_cur(P, NULL, NULL);
  }
  free(S->f);
  S->f = NULL;
  S->n = S->cap = 0;
  S->P = NULL;
  return 0;
}

/* The stack of thread T, whose thread object is at index `idx` of the
** running thread L (idx 0: T is L).  All Lua work is done on L: T may be
** suspended, and a GC step run on it could call finalizers there. */
static li_stack *stack_lookup(li_prof *P, lua_State *L, int idx, lua_State *T) {
  li_stack *S;
  int top = lua_gettop(L);
  if (T == P->mainL) return &P->main;
  if (idx != 0) idx = lua_absindex(L, idx);
  if (!lua_checkstack(L, 5)) return NULL;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &li_prof_key);
  if (lua_touserdata(L, -1) != P || lua_getiuservalue(L, -1, 1) != LUA_TTABLE) {
    lua_settop(L, top);
    return NULL;
  }
  if (idx == 0) lua_pushthread(L); else lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  S = lua_touserdata(L, -1);
  if (S == NULL || S->P != P) {
    lua_pop(L, 1);
    S = lua_newuserdatauv(L, sizeof *S, 0);
    stack_init(S, P, T);
    S->tid = ++P->next_tid;
    luaL_setmetatable(L, LI_MT_STACK);
    if (idx == 0) lua_pushthread(L); else lua_pushvalue(L, idx);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
    stack_link(P, S);
    xs_add(P, S);
  }
  lua_settop(L, top);
  if (S != NULL) xs_put(P, T, S);
  return S;
}

/* The thread of the last probe (curL) is trusted by its address alone: the
** probe's fast path compares nothing else.  A coroutine collected while it
** is curL would leave its address there, and one made at that address
** before the dead one's stack is finalized (stack_gc runs after the sweep
** that freed the thread: a finalizer, or any allocation between, can make
** it) would run on the dead one's stack, under its frames.  So a coroutine
** becomes curL here only held by the profiler (key &pin_key of its thread
** table), until another one takes its place: at most one thread is kept
** alive longer.  A resume sets curL to the coroutine it holds, and back to
** the resumer when it returns; the main thread lives as long as P.  0 when
** it cannot be held (no stack space): then it does not become curL
** (tests/test_runtime.c, thread_at_a_collected_threads_address_*). */
static const char pin_key;

static int xs_pin(li_prof *P, lua_State *L) {
  int top = lua_gettop(L), ok;
  if (L == P->mainL) return 1;
  if (!lua_checkstack(L, 3)) return 0;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &li_prof_key);
  ok = lua_touserdata(L, -1) == P && lua_getiuservalue(L, -1, 1) == LUA_TTABLE;
  if (ok) {
    lua_pushthread(L);
    lua_rawsetp(L, -2, &pin_key);   /* (a light key: weak keys keep it) */
  }
  lua_settop(L, top);
  return ok;
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
    li_prof_charge(P, R, t - R->res_t0, P->entries - R->res_pairs0);
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

li_stack *li_infer_switch(li_prof *P, lua_State *L) {
  li_stack *X = P->cur, *S, *R;
  uint64_t t;
  P->unseen++;
  if ((S = li_stack_switch(P, L)) == NULL) return NULL;
  t = li_clock_ticks(&P->clock);
  X = infer_settle(P, X, S, t);
  /* L runs again where it waited (it is X or one of its wakers), or the
  ** main thread runs: nothing was resumed */
  if (S == &P->main || S->waker != NULL || X == S) return S;
  R = X != NULL && X != &P->main && thread_runs(X->L) ? X : &P->main;
  if (S->n == 0)
    S->root = R->n > 0 ? R->f[R->n - 1].node : R->root;
  R->resuming = 1;
  R->res_t0 = t;
  R->res_pairs0 = P->entries;
  S->waker = R;
  P->inferring++;
  return S;
}

li_stack *li_stack_of_thread(li_prof *P, lua_State *L, int idx) {
  lua_State *T = lua_tothread(L, idx);
  li_stack *S;
  if (T == NULL) return NULL;
  if (T == P->curL && P->cur != NULL) return P->cur;
  if ((S = xs_get(P, T)) != NULL) return S;
  return stack_lookup(P, L, idx, T);
}

/* Close the top frame of S at time t: its figures to its node, its time
** to the frame below.  No call: the probe's fast path has it too. */
static LI_INLINE li_frame *frame_close(li_prof *P, li_stack *S, uint64_t t,
                                       int err) {
  li_frame *fr = &S->f[--S->n];
  li_node *nd = &P->node[fr->node];
  int64_t incl = li_frame_incl(P, S, fr, t), whole = incl + fr->done;
  nd->total += incl;
  nd->self += incl - fr->child;
  if (whole < nd->min) nd->min = whole;
  if (whole > nd->max) nd->max = whole;
  if (err) nd->errors++;
  if (S->n > 0) fr[-1].child += incl;
  return fr;
}

static inline void close_top(li_prof *P, li_stack *S, uint64_t t, int err) {
  li_frame *fr = frame_close(P, S, t, err);
  li_trace(P, S, err ? 'X' : 'E', fr->func, t);
}

void li_stack_close(li_prof *P, li_stack *S, uint32_t to, uint64_t t, int err) {
  /* (a suspended coroutine's nodes are saved for the frame when it runs
  ** again: these calls close without its running) */
  if (P->frames != NULL && S->suspended) li_frames_wake(P, S);
  while (S->n > to) close_top(P, S, t, err);
}

/* The zones among the top frames of S down to depth `to`. */
static uint32_t count_zones(const li_stack *S, uint32_t to) {
  uint32_t n = 0;
  for (uint32_t i = to; i < S->n; i++) n += li_is_zone(&S->f[i]);
  return n;
}

void li_prof_close_all(li_prof *P, uint64_t t) {
  for (li_stack *S = &P->main; S != NULL; S = S->next) {
    S->zones_lost += count_zones(S, 0);
    li_stack_close(P, S, 0, S->suspended ? S->susp_since : t, 0);
    if (S->waker != NULL) {          /* (its waker's frames closed too) */
      S->waker->resuming = 0;
      S->waker = NULL;
    }
  }
  P->inferring = 0;
}

void li_prof_charge(const li_prof *P, li_stack *S, uint64_t ticks, uint64_t pairs) {
  li_frame *fr;
  if (S == NULL || S->n == 0) return;
  fr = &S->f[S->n - 1];
  fr->child += (int64_t)(ticks - pairs * P->pair_cost);
  S->excl += pairs * P->pair_cost;
}

/* ======================================================================
** The probe
** ====================================================================== */

/* P->fast: the probe's fast path may run (probe_fast). */
static void set_fast(li_prof *P) {
  P->fast = P->on && LI_CLOCK_INLINE(&P->clock) && P->trace_cap == 0;
  li_set_cur(P, P->curL, P->cur);
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
  while (S->n > 0 && S->f[S->n - 1].ci == ci) close_top(P, S, t, 1);
}

/* Learn where the base calls of S's thread run (its first level). */
static LI_NOINLINE void learn_base(lua_State *L, li_stack *S, const void *ci) {
  lua_Debug ar;
  if (!lua_getstack(L, 2, &ar)) S->base_ci = ci;
}

static LI_NOINLINE int grow_frames(li_stack *S) {
  uint32_t cap = S->cap ? S->cap * 2 : 64;
  li_frame *nf = realloc(S->f, (size_t)cap * sizeof *nf);
  if (nf == NULL) return 0;
  S->f = nf;
  S->cap = cap;
  return 1;
}

/* Open a frame of func in node `node` on S (with room for it), identified
** by ci; its start is the caller's to set.  No call: the probe's fast path
** has it too. */
static LI_INLINE li_frame *frame_open(li_prof *P, li_stack *S, li_frame *fr,
                                      const void *ci, uint32_t func,
                                      uint32_t node) {
  S->n++;
  fr->ci = ci;
  fr->func = func;
  fr->node = node;
  fr->child = 0;
  S->excl += P->pair_cost;      /* this pair's cost, for the frames below */
  fr->excl0 = S->excl;
  fr->done = 0;
  P->node[node].calls++;
  P->entries++;
  return fr;
}

/* Open a frame of func (a function or a zone) on S, identified by ci, with
** room for it, and start its clock. */
static LI_INLINE void push_frame(li_prof *P, li_stack *S, const void *ci,
                                 uint32_t func) {
  uint32_t parent = S->n > 0 ? S->f[S->n - 1].node : S->root;
  uint32_t node = node_child(P, parent, func);
  li_frame *fr;
  if (node == LI_NONE) node = parent;
  li_node_touch(P, node);
  fr = frame_open(P, S, &S->f[S->n], ci, func, node);
  fr->start = li_clock_ticks(&P->clock);
  li_trace(P, S, 'B', func, fr->start);
}

/* A probe in a thread other than the last probe's.  coroutine.resume,
** yield and the host's wrapped lua_resume and lua_pcall keep curL in step
** with the thread that runs, and a collected thread's stack clears it: a
** switch they did not make was made by the host behind their back. */
static LI_NOINLINE li_stack *probe_switch(li_prof *P, lua_State *L) {
  return P->curL != NULL ? li_infer_switch(P, L) : li_stack_switch(P, L);
}

static LI_INLINE li_stack *probe_stack(li_prof *P, lua_State *L) {
  return L == P->curL ? P->cur : probe_switch(P, L);
}

/* Entry of function `func` in thread L, called from the activation whose
** CallInfo is ci. */
static LI_INLINE int enter(li_prof *P, lua_State *L, const void *ci,
                           uint32_t func) {
  li_stack *S = probe_stack(P, L);
  if (LI_UNLIKELY(S == NULL)) return 0;
  if (S->n > 0) {
    if (LI_UNLIKELY(S->f[S->n - 1].ci == ci || ci == S->base_ci))
      close_dead(P, L, S, ci);
  } else if (ci != S->base_ci) {
    learn_base(L, S, ci);
  }
  if (LI_UNLIKELY(S->n == S->cap) && !grow_frames(S)) return 0;
  push_frame(P, S, ci, func);
  return 0;
}

/* An exit whose frame is not on top of S: zones the function left open
** end with it (a `<close>` zone's own end comes after the exit probe: it
** finds its zone gone); other frames above it were unwound by an error
** caught where we could not see it.  No frame at all: the call was entered
** before collection started; nothing to close. */
static LI_NOINLINE void leave_deep(li_prof *P, li_stack *S, const void *ci,
                                   uint64_t t) {
  uint32_t z = S->n;
  while (z > 0 && li_is_zone(&S->f[z - 1])) z--;
  if (z > 0 && z < S->n && S->f[z - 1].ci == ci) {
    li_stack_close(P, S, z, t, 0);
    close_top(P, S, t, 0);
    return;
  }
  for (uint32_t i = S->n; i-- > 0;) {
    if (S->f[i].ci == ci) {
      li_stack_close(P, S, i + 1, t, 1);
      close_top(P, S, t, 0);
      return;
    }
  }
}

/* Exit of the activation whose CallInfo is ci, in thread L; returns nret,
** the probe's count of results. */
static LI_INLINE int leave(li_prof *P, lua_State *L, const void *ci,
                           int nret) {
  uint64_t t = li_clock_ticks(&P->clock);
  li_stack *S = probe_stack(P, L);
  if (LI_UNLIKELY(S == NULL)) return nret;
  P->exits++;
  if (LI_LIKELY(S->n > 0 && S->f[S->n - 1].ci == ci)) close_top(P, S, t, 0);
  else leave_deep(P, S, ci, t);
  if (LI_UNLIKELY(S->n == 0 && S->waker != NULL)) li_infer_end(P, S, t);
  return nret;
}

/*   P(id)       entry of function id (id > 0): push a frame
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
    n = n > 0 ? n - 1 : 0;
    if (!P->on) return n;
    return leave(P, L, direct ? li_d_caller(L) : li_api_caller(L), n);
  }
  if (P->on && (lua_Unsigned)id <= c->n)
    return enter(P, L, direct ? li_d_caller(L) : li_api_caller(L), c->gid[id - 1]);
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
** frame_open and frame_close (tests/probe/compare.sh). */
static int probe_fast(lua_State *L) {
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
    uint64_t t = li_clock_inline_ticks();
    /* (the base call's exit takes the general path: it may end a resume
    ** the profiler inferred) */
    if (LI_UNLIKELY(S->n <= 1 || S->f[S->n - 1].ci != ci))
      return probe_direct(L);
    P->exits++;
    frame_close(P, S, t, 0);
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
    if (LI_UNLIKELY(top->ci == ci || ci == S->base_ci ||
                    P->node[node].func != func || P->node[node].parent != parent ||
                    P->node[node].stamp != P->fstamp))
      return probe_direct(L);
    fr = frame_open(P, S, top + 1, ci, func, node);
    fr->start = li_clock_inline_ticks();
    return 0;
  }
}
#else
#define probe_direct probe_api
#define probe_fast probe_api
#endif

/* The probe chunks loaded now get (option "probe"; the fast path only
** where the clock is read with no call, else it would never run). */
static lua_CFunction probe_for(const li_prof *P) {
  if (P->probe == LI_PROBE_API) return probe_api;
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
  func = fn_find_pre(P, "=zone", 0, "zone ", 5, name, len, 0, 0);
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
  if (S->n == S->cap && !grow_frames(S)) return 0;
  func = zone_find(P, name, len);
  if (func == LI_NONE) return 0;
  /* (a zone costs its caller about what a probe pair does) */
  push_frame(P, S, LI_ZONE_CI(++P->zone_serial), func);
  return P->zone_serial;
}

int li_zone_end(li_prof *P, li_stack *S) {
  uint64_t t = li_clock_ticks(&P->clock);
  if (S->n > 0 && li_is_zone(&S->f[S->n - 1])) {
    P->exits++;
    close_top(P, S, t, 0);
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
      while (S->n > i + 1) close_top(P, S, t, err || !li_is_zone(&S->f[S->n - 1]));
      P->exits++;
      close_top(P, S, t, err);
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

/* Descriptor: "LI1" NUL chunkname NUL nfuncs NUL {name NUL line NUL
** lastline NUL}.  Registers the functions; pushes the probe. */
static int factory(lua_State *L) {
  li_prof *P = lua_touserdata(L, lua_upvalueindex(1));
  size_t len, n;
  const char *d = lua_tolstring(L, 1, &len);
  const char *p, *end, *chunkname;
  uint32_t nf, i;
  li_chunk *c;
  if (P == NULL || P->closed || d == NULL || len < 4 || memcmp(d, "LI1", 4) != 0)
    goto nothing;
  p = d + 4;
  end = d + len;
  /* the whole chunk name, NUL-terminated inside the descriptor */
  if ((chunkname = field(&p, end, &n)) == NULL) goto nothing;
  if (!field_num(&p, end, &nf) || nf == 0 || (size_t)nf > (size_t)(end - p) / 3) goto nothing;
  c = chunk_new(L, P, nf);
  for (i = 0; i < nf; i++) {
    uint32_t line, lastline;
    const char *name = field(&p, end, &n);
    if (name == NULL || !field_num(&p, end, &line) || !field_num(&p, end, &lastline))
      goto nothing;
    c->gid[i] = fn_find(P, chunkname, i + 1, name, n, line, lastline);
    if (c->gid[i] == LI_NONE) goto nothing;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushcclosure(L, probe_for(P), 2);
  return 1;
nothing:
  lua_pushcfunction(L, probe_nothing);
  return 1;
}

void li_push_probe(lua_State *L, const char *chunkname,
                   const li_funcdesc *funcs, uint32_t nfuncs) {
  li_prof *P;
  li_chunk *c;
  luaL_checkstack(L, 3, NULL);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &li_prof_key);
  P = lua_touserdata(L, -1);
  if (P == NULL || P->closed || nfuncs == 0) goto nothing;
  c = chunk_new(L, P, nfuncs);
  for (uint32_t i = 0; i < nfuncs; i++) {
    const li_funcdesc *d = &funcs[i];
    c->gid[i] = fn_find(P, chunkname, i + 1, d->name, strlen(d->name),
                        d->line, d->lastline);
    if (c->gid[i] == LI_NONE) { lua_pop(L, 1); goto nothing; }
  }
  lua_insert(L, -2);                 /* map, profiler */
  lua_pushcclosure(L, probe_for(P), 2);
  return;
nothing:
  lua_pop(L, 1);
  lua_pushcfunction(L, probe_nothing);
}

int li_is_probe(lua_State *L, int idx) {
  lua_CFunction f = lua_tocfunction(L, idx);
  return f != NULL && (f == probe_api || f == probe_direct ||
                       f == probe_fast || f == probe_nothing);
}


/* ======================================================================
** The direct probe's check: Lua's structures as compiled (direct.h) against
** the API's answers on the library this program runs with
** ====================================================================== */

#if LI_HAVE_DIRECT
/* Called as the probe is (a C closure whose upvalue 1 is a userdata with
** no user values), with the arguments (7, "x"): every read of direct.h
** must give what the API gives, each pointer compared before what it
** points to is read.  Sets the int in the upvalue to 1 if all agree. */
static int direct_probe_check(lua_State *L) {
  int *ok = lua_touserdata(L, lua_upvalueindex(1));
  lua_Debug ar;
  lua_Integer v;
  const CClosure *cl;
  if (!lua_getstack(L, 0, &ar) || (const void *)L->ci != (const void *)ar.i_ci)
    return 0;
  if (li_d_caller(L) != (lua_getstack(L, 1, &ar) ? (const void *)ar.i_ci
                                                 : (const void *)&L->base_ci))
    return 0;
  if (li_d_nargs(L) != lua_gettop(L) || lua_gettop(L) != 2) return 0;
  if (!li_d_arg1_int(L, &v) || v != 7 || lua_type(L, 2) != LUA_TSTRING ||
      !ttisstring(s2v(li_d_func(L) + 2)) ||
      (const void *)svalue(s2v(li_d_func(L) + 2)) != (const void *)lua_tostring(L, 2))
    return 0;
  if (!ttisCclosure(s2v(li_d_func(L)))) return 0;
  cl = clCvalue(s2v(li_d_func(L)));
  if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "f", &ar)) return 0;
  if ((const void *)cl != lua_topointer(L, -1) || cl->nupvalues != 1 ||
      !ttisfulluserdata(&cl->upvalue[0]) || li_d_udata1(L, sizeof *ok) != (void *)ok ||
      li_d_udata1(L, sizeof *ok + 1) != NULL)
    return 0;
  *ok = 1;
  return 0;
}
#endif

/* 1 if the probe's direct variant reads right on L's library; else 0 and
** why (a static string). */
static int direct_check(lua_State *L, const char **why) {
#if LI_HAVE_DIRECT
  static const char release[] = "$LuaVersion: " LUA_RELEASE "  ";
  int *ok;
  int top = lua_gettop(L);
  /* the release as compiled first: no structure is read on another one */
  if (strncmp(lua_ident, release, sizeof release - 1) != 0) {
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
  if (lua_pcall(L, 2, 0, 0) != LUA_OK || !*ok) {
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

const char *const li_probe_names[3] = {"api", "direct", "fast"};

int li_probe_kind(const char *name) {
  for (int k = 0; name != NULL && k < 3; k++)
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
  /* Only the main thread's can hold our pointer yet (no coroutine has a
  ** stack): give it back as it was, NULL. */
  memcpy(&S, lua_getextraspace(P->mainL), sizeof S);
  if (!on && S == &P->main) {
    S = NULL;
    memcpy(lua_getextraspace(P->mainL), &S, sizeof S);
  }
  P->xs_off = !on;
  if (on) xs_put(P, P->mainL, &P->main);
  return LUAINSTR_OK;
}

int li_prof_set_probe(li_prof *P, int kind) {
  if (!before_probes(P, "probe")) return LUAINSTR_EORDER;
  if (kind != LI_PROBE_API && !P->direct_ok) {
    snprintf(P->errmsg, sizeof P->errmsg, "probe: %s needs Lua's structures, "
             "and %s", kind == LI_PROBE_FAST ? "fast" : "direct", P->direct_why);
    return LUAINSTR_EARG;
  }
  P->probe = kind;
  return LUAINSTR_OK;
}


/* ======================================================================
** Calibration: what one probe pair costs the caller, and how much of the
** probes' own work falls inside a measured call.  Measured on this state
** with the real probe, against a scratch profiler, at the first start.
** ====================================================================== */

static const char calibration_chunk[] =
  "local P, n, probed = ...\n"
  "local f\n"
  "if probed then f = function() P(2); P(); end\n"
  "else f = function() end end\n"
  "for _ = 1, n do f() end\n";

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
#define CAL_CALLS 500           /* calls a round, at least */
#define CAL_MAX_CALLS 1000000   /* (a clock that never moves) */
#define CAL_STEPS 32            /* clock steps a probed round spans */
#define CAL_WINDOW 8            /* rounds compared */
#define CAL_MAX_ROUNDS 96       /* a cost that keeps falling: the last window */
#define CAL_FALL 0.95

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts a copy). */
static uint64_t median(const uint64_t *v, int n) {
  uint64_t c[2 * CAL_WINDOW];
  memcpy(c, v, (size_t)n * sizeof c[0]);
  qsort(c, (size_t)n, sizeof c[0], cmp_u64);
  return c[n / 2];
}

/* Ticks of one run of `calls` calls of the loop at index `loop` with the
** probe at `pr`; 0 if it failed. */
static uint64_t cal_time(li_prof *P, lua_State *L, int loop, int pr, int probed,
                         uint32_t calls) {
  uint64_t t0, t1;
  lua_pushvalue(L, loop);
  lua_pushvalue(L, pr);
  lua_pushinteger(L, calls);
  lua_pushboolean(L, probed);
  t0 = li_clock_ticks(&P->clock);
  if (lua_pcall(L, 3, 0, 0) != LUA_OK) { lua_pop(L, 1); return 0; }
  t1 = li_clock_ticks(&P->clock);
  return t1 > t0 ? t1 - t0 : 1;
}

static void prof_free_data(li_prof *P);

/* Inclusive ticks of func over its nodes (no recursion here). */
static int64_t fn_total(const li_prof *P, uint32_t func) {
  int64_t t = 0;
  for (uint32_t i = 1; i < P->nnode; i++)
    if (P->node[i].func == func) t += P->node[i].total;
  return t;
}

/* Calls a round needs to span CAL_STEPS steps of the clock with probes;
** 0 if the loop failed. */
static uint32_t cal_calls(li_prof *P, lua_State *L, int loop, int pr) {
  uint64_t want = (P->clock.resolution ? P->clock.resolution : 1) * CAL_STEPS;
  uint32_t n = CAL_CALLS;
  for (;;) {
    uint64_t t = cal_time(P, L, loop, pr, 1, n);
    if (t == 0) return 0;
    if (t >= want || n >= CAL_MAX_CALLS) return n;
    n *= 2;
  }
}

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
  set_fast(Q);
  li_set_cur(Q, NULL, NULL);
  prof_free_data(Q);
}

static void calibrate(li_prof *P, lua_State *L) {
  li_prof *Q;           /* scratch profiler: the real probe, own figures */
  li_chunk *c = NULL;
  uint64_t pair[CAL_MAX_ROUNDS], inside[CAL_MAX_ROUNDS];
  uint32_t calls;
  int top = lua_gettop(L), r, w = 2 * CAL_WINDOW;
  if (!lua_checkstack(L, 10)) return;
  Q = lua_newuserdatauv(L, sizeof *Q, 0);              /* top+1 */
  memset(Q, 0, sizeof *Q);
  /* the profiler's finalizer frees what Q gets, should the Lua API raise
  ** an error (out of memory) before `done` */
  luaL_setmetatable(L, LI_MT_PROF);
  Q->clock = P->clock;
  Q->on = 1;
  set_fast(Q);
  Q->mainL = L;
  stack_init(&Q->main, Q, L);
  if (!init_tree(Q) || fn_find(Q, "=calibration", 1, "main", 4, 0, 0) != 0 ||
      fn_find(Q, "=calibration", 2, "f", 1, 1, 1) != 1)
    goto done;
  c = chunk_new(L, Q, 2);
  c->gid[0] = 0;
  c->gid[1] = 1;
  lua_pushvalue(L, top + 1);
  lua_pushcclosure(L, probe_for(P), 2);                /* top+2 */
  if (luaL_loadbufferx(L, calibration_chunk, sizeof calibration_chunk - 1,
                       "=luainstr calibration", "t") != LUA_OK)
    goto done;                                         /* top+3 */
  if ((calls = cal_calls(P, L, top + 3, top + 2)) == 0) goto done;
  for (r = 0; r < CAL_MAX_ROUNDS; r++) {
    uint64_t plain = cal_time(P, L, top + 3, top + 2, 0, calls), probed;
    int64_t before = fn_total(Q, 1), after;
    probed = cal_time(P, L, top + 3, top + 2, 1, calls);
    if (plain == 0 || probed == 0) goto done;
    after = fn_total(Q, 1);
    pair[r] = li_minus(probed, plain) / calls;
    inside[r] = after > before ? (uint64_t)(after - before) / calls : 0;
    if (r + 1 >= w &&
        (double)median(pair + r + 1 - CAL_WINDOW, CAL_WINDOW) >=
        CAL_FALL * (double)median(pair + r + 1 - w, CAL_WINDOW))
      break;
  }
  if (r == CAL_MAX_ROUNDS) r--, w = CAL_WINDOW;   /* still falling */
  P->pair_cost = median(pair + r + 1 - w, w);
  P->inside_cost = median(inside + r + 1 - w, w);
  if (P->inside_cost > P->pair_cost) P->inside_cost = P->pair_cost;
  P->cal_rounds = (uint32_t)(r + 1);
  P->cal_calls = calls;
done:
  P->calibrated = 1;    /* once, whatever happened (an error raised above
                           leaves it for the next start) */
  cal_end(Q, c);
  lua_settop(L, top);
}


/* ======================================================================
** The profiler's life
** ====================================================================== */

static void free_patterns(char **v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

static void prof_free_data(li_prof *P) {
  for (uint32_t i = 0; i < P->nfn; i++) {
    free(P->fn[i].name);
    free(P->fn[i].source);
    free(P->fn[i].chunkname);
  }
  free(P->fn); P->fn = NULL; P->nfn = P->capfn = 0;
  free(P->fnhash); P->fnhash = NULL; P->fnhcap = 0;
  free(P->node); P->node = NULL; P->nnode = P->capnode = 0;
  free(P->nodehash); P->nodehash = NULL; P->nodehcap = 0;
  free(P->main.f); P->main.f = NULL; P->main.n = P->main.cap = 0;
  free(P->warnings); P->warnings = NULL;
  free(P->trace); P->trace = NULL; P->trace_cap = P->ntrace = 0;
  free(P->xset); P->xset = NULL; P->xcap = P->xn = 0;
  free_patterns(P->include, P->ninclude); P->include = NULL; P->ninclude = 0;
  free_patterns(P->exclude, P->nexclude); P->exclude = NULL; P->nexclude = 0;
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
  P->closed = 1;
  P->on = 0;
  set_fast(P);
  li_mem_free(P, L);            /* the allocator back before P goes */
  li_frames_free(P);
  /* stacks still linked belong to threads that outlive us in lua_close */
  for (li_stack *S = P->main.next; S != NULL; S = S->next) S->P = NULL;
  prof_free_data(P);
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
  set_fast(P);
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

void li_set_factory(lua_State *L) {
  int factory_idx = lua_gettop(L);
  lua_pushliteral(L, "");
  if (!lua_getmetatable(L, -1)) {
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setmetatable(L, -3);
  }
  if (lua_getfield(L, -1, "__index") != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "__index");
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
  ** an error (out of memory), and then the collector frees P's blocks. */
  if (luaL_newmetatable(L, LI_MT_PROF)) {
    lua_pushcfunction(L, prof_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  if (luaL_newmetatable(L, LI_MT_STACK)) {
    lua_pushcfunction(L, stack_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  li_clock_init(&P->clock);
  P->direct_ok = direct_check(L, &P->direct_why);
  P->probe = P->direct_ok ? LI_PROBE_FAST : LI_PROBE_API;
  {  /* LUAINSTR_PROBE: the option's default, for comparisons (tests) */
    const char *e = getenv("LUAINSTR_PROBE");
    int k = li_probe_kind(e);
    if (k >= 0 && (k == LI_PROBE_API || P->direct_ok)) P->probe = k;
  }
  P->enabled = 1;
  P->spike_factor = 2.0;
  P->spike_keep = 16;
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  P->mainL = lua_tothread(L, -1);
  lua_pop(L, 1);
  stack_init(&P->main, P, P->mainL);
  if (!init_tree(P)) { lua_settop(L, top); return NULL; }
  xs_add(P, &P->main);
  xs_put(P, P->mainL, &P->main);
  lua_newtable(L);                      /* thread -> stack, weak keys */
  lua_newtable(L);
  lua_pushliteral(L, "k");
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
  char *c = dup_bytes(pattern, strlen(pattern));
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
  set_fast(P);
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
    calibrate(P, L);
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
    S->zones_lost += count_zones(S, 0);
    S->n = 0;
    S->root = 0;
  }
  init_tree(P);
  li_mem_clear(P);
  P->entries = P->exits = 0;
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
