/*
** memory.c -- memory mode: the state's allocator wrapped (lua_setallocf),
** every allocation charged to the function or zone on top of the running
** coroutine's stack, and every block remembered with the call-tree node
** that made it, so that its growth and its free (by the collector,
** whenever that runs) are charged to its owner: live bytes stay where
** they were made.  The collector is not touched.
**
** The block map is an open-addressing table (linear probing, at most half
** full) of (block, node): 16 bytes a slot, 32 to 64 a live block, malloc'd
** apart from the state's memory.  Blocks made before memory mode, or while
** collection is paused, are not in it: their frees are counted apart.
*/
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "profiler.h"

typedef struct slot {
  const void *p;        /* the block (NULL: empty) */
  uint32_t node;        /* its owner */
} slot;

struct li_mem {
  li_prof *P;           /* the profiler (NULL: it is gone, pass through) */
  int active;           /* memory mode is on */
  int installed;        /* mem_alloc is in the state's allocator chain */
  lua_Alloc f;          /* the allocator it wraps */
  void *ud;
  slot *t;              /* the block map (malloc'd) */
  uint64_t cap;         /* power of two (0: none yet) */
  uint64_t n;           /* blocks in it */
  unsigned bits;        /* log2(cap) */
  uint64_t untracked;   /* frees of blocks not in it */
  int64_t outside_live; /* bytes of blocks made outside user code */
  int64_t outside_peak;
  int full;             /* the map could not grow: new blocks untracked */
};


/* ======================================================================
** The block map
** ====================================================================== */

static uint64_t home(const li_mem *M, const void *p) {
  return ((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15u) >> (64 - M->bits);
}

static int map_grow(li_mem *M) {
  uint64_t cap = M->cap ? M->cap * 2 : 4096;
  slot *t = calloc((size_t)cap, sizeof *t), *old = M->t;
  uint64_t oldcap = M->cap;
  if (t == NULL) return 0;
  M->t = t;
  M->cap = cap;
  for (M->bits = 0; ((uint64_t)1 << M->bits) < cap; M->bits++) {}
  for (uint64_t i = 0; i < oldcap; i++) {
    if (old[i].p != NULL) {
      uint64_t k = home(M, old[i].p);
      while (t[k].p != NULL) k = (k + 1) & (cap - 1);
      t[k] = old[i];
    }
  }
  free(old);
  return 1;
}

static int map_put(li_mem *M, const void *p, uint32_t node) {
  uint64_t k;
  if ((M->n + 1) * 2 > M->cap && !map_grow(M)) return 0;
  for (k = home(M, p); M->t[k].p != NULL; k = (k + 1) & (M->cap - 1)) {}
  M->t[k].p = p;
  M->t[k].node = node;
  M->n++;
  return 1;
}

/* Take p out of the map: its owner, or LI_NONE if it is not there.  The
** slots after it move back (no tombstones: lookups stay short). */
static uint32_t map_take(li_mem *M, const void *p) {
  uint64_t k, j, mask = M->cap - 1;
  uint32_t node;
  if (M->cap == 0) return LI_NONE;
  for (k = home(M, p); M->t[k].p != p; k = (k + 1) & mask)
    if (M->t[k].p == NULL) return LI_NONE;
  node = M->t[k].node;
  M->n--;
  for (j = (k + 1) & mask; M->t[j].p != NULL; j = (j + 1) & mask) {
    uint64_t h = home(M, M->t[j].p);
    /* the slot at j may fill the hole at k if its home is not in (k, j] */
    if (((j - h) & mask) >= ((j - k) & mask)) {
      M->t[k] = M->t[j];
      k = j;
    }
  }
  M->t[k].p = NULL;
  return node;
}


/* ======================================================================
** Charging
** ====================================================================== */

/* Live bytes of node n's function (or of code outside user code) change
** by d. */
static void owner_live(li_prof *P, uint32_t n, int64_t d) {
  uint32_t func = P->node[n].func;
  P->node[n].mem.live += d;
  if (func != LI_NONE) {
    li_fn *f = &P->fn[func];
    f->live += d;
    if (f->live > f->peak) f->peak = f->live;
  } else {
    li_mem *M = P->mem;
    M->outside_live += d;
    if (M->outside_live > M->outside_peak) M->outside_peak = M->outside_live;
  }
}

/* The node allocations are charged to now. */
static uint32_t running_node(li_prof *P) {
  li_stack *S = P->cur != NULL ? P->cur : &P->main;
  return S->n > 0 ? S->f[S->n - 1].node : S->root;
}

/* `bytes` allocated now (a new block, or a block's growth). */
static uint32_t charge(li_prof *P, uint64_t bytes, uint64_t size) {
  uint32_t n = running_node(P);
  li_nmem *m = &P->node[n].mem;
  li_node_touch(P, n);
  m->alloc_bytes += bytes;
  m->alloc_count++;
  if (size > m->max_alloc) m->max_alloc = size;
  P->alloc_total += bytes;
  return n;
}

static void on_new(li_prof *P, const void *p, size_t size) {
  li_mem *M = P->mem;
  uint32_t n;
  if (P->mem_skip) { P->mem_skip = 0; return; }
  if (!P->on || M->full) return;
  n = charge(P, size, size);
  if (!map_put(M, p, n)) { M->full = 1; return; }
  owner_live(P, n, (int64_t)size);
}

static void on_free(li_prof *P, const void *p, size_t size) {
  li_mem *M = P->mem;
  uint32_t n = map_take(M, p);
  if (n == LI_NONE) { M->untracked++; return; }
  li_node_touch(P, n);
  P->node[n].mem.free_bytes += size;
  owner_live(P, n, -(int64_t)size);
}

/* Block p of osize bytes is now q of nsize: still its owner's; the growth
** is an allocation by the code running now. */
static void on_move(li_prof *P, const void *p, const void *q, size_t osize,
                    size_t nsize) {
  li_mem *M = P->mem;
  uint32_t n = map_take(M, p);
  if (nsize > osize && P->on) charge(P, nsize - osize, nsize);
  if (n == LI_NONE) return;
  li_node_touch(P, n);
  if (nsize < osize) P->node[n].mem.free_bytes += osize - nsize;
  owner_live(P, n, (int64_t)nsize - (int64_t)osize);
  if (!map_put(M, q, n)) {             /* lost: no longer its owner's */
    M->full = 1;
    owner_live(P, n, -(int64_t)nsize);
  }
}

/* The wrapper (ud: its li_mem, which outlives the profiler if the host
** wrapped the allocator again over ours).  As lua_Alloc: ptr NULL makes a
** block (osize is then a type tag), nsize 0 frees one, else it is
** resized. */
static void *mem_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  li_mem *M = ud;
  li_prof *P = M->P;
  void *q = M->f(M->ud, ptr, osize, nsize);
  if (P == NULL || !M->active) {
    /* passing through */
  } else if (ptr == NULL) {
    if (q != NULL && nsize > 0) on_new(P, q, nsize);
  } else if (nsize == 0) {
    on_free(P, ptr, osize);
  } else if (q != NULL) {
    on_move(P, ptr, q, osize, nsize);
  }
  return q;
}


/* ======================================================================
** On, off, the model
** ====================================================================== */

static int wrapped(lua_State *L, li_mem *M) {
  void *ud;
  return lua_getallocf(L, &ud) == mem_alloc && ud == M;
}

/* Memory mode off: the map goes, the figures stay; the allocator is given
** back if ours is still the state's (a host may have wrapped it since:
** then ours stays, passing through). */
static void mem_off(li_mem *M, lua_State *L) {
  M->active = 0;
  free(M->t);
  M->t = NULL;
  M->cap = M->n = 0;
  M->bits = 0;
  M->full = 0;
  if (wrapped(L, M)) {
    lua_setallocf(L, M->f, M->ud);
    M->installed = 0;
  }
}

int li_mem_set(li_prof *P, lua_State *L, int on) {
  li_mem *M = P->mem;
  if (!on) {
    if (M != NULL && M->active) mem_off(M, L);
    return 1;
  }
  if (M != NULL && M->active) return 1;
  if (M == NULL) {
    if ((M = calloc(1, sizeof *M)) == NULL) return 0;
    M->P = P;
    P->mem = M;
  }
  if (!map_grow(M)) return 0;
  if (!M->installed) {          /* (else still in the chain, under a host's) */
    M->f = lua_getallocf(L, &M->ud);
    lua_setallocf(L, mem_alloc, M);
    M->installed = 1;
  }
  M->active = 1;
  return 1;
}

void li_mem_free(li_prof *P, lua_State *L) {
  li_mem *M = P->mem;
  if (M == NULL) return;
  mem_off(M, L);
  P->mem = NULL;
  /* still the allocator under a host's: it must outlive the state */
  if (M->installed) M->P = NULL;
  else free(M);
}

void li_mem_clear(li_prof *P) {
  li_mem *M = P->mem;
  for (uint32_t i = 0; i < P->nfn; i++) P->fn[i].live = P->fn[i].peak = 0;
  if (M == NULL) return;
  if (M->t != NULL) memset(M->t, 0, (size_t)M->cap * sizeof *M->t);
  M->n = 0;
  M->full = 0;
  M->untracked = 0;
  M->outside_live = M->outside_peak = 0;
}

void li_mem_snapshot(const li_prof *P, li_profile *out) {
  const li_mem *M = P->mem;
  if (M == NULL) return;
  out->memory = 1;
  out->mem_blocks = M->n;
  out->mem_map_bytes = M->cap * sizeof(slot);
  out->mem_untracked_frees = M->untracked;
  out->mem_outside.peak_live_bytes =
      M->outside_peak > 0 ? (uint64_t)M->outside_peak : 0;
}
