/*
** memory.c -- memory mode: the state's allocator wrapped (lua_setallocf),
** every allocation charged to the function or zone on top of the running
** coroutine's stack, and every block remembered with the call-tree node
** that made it, so that its growth and its free (by the collector,
** whenever that runs) are charged to its owner: live bytes stay where
** they were made.  The collector is not touched.
**
** The block map (below) is malloc'd apart from the state's memory: 1 kB
** for every 4 kB page of the heap that held a tracked block.  Blocks made
** before memory mode, or while collection is paused, are not in it: their
** frees are counted apart.
**
** LuaJIT (2.1) takes lua_setallocf on a running state as Lua does (the
** wrapper hands out its own allocator's blocks: a build without GC64,
** whose objects must lie in the low 2 GB, would get them there too;
** Debian's x86-64 build, the one tested, has GC64), and everything it
** allocates goes through that allocator
** (objects, tables' parts, stacks, strings, cdata, buffers) but the
** machine code of compiled traces (mmap'd by lj_mcode.c, in no figure,
** nor in collectgarbage("count")).  Its trace compiler allocates through
** it too, in the middle of a function's run: what it allocates as it
** optimises and assembles a trace (the trace itself, the most of it) is
** charged outside user code, the JIT's, not the function's, told by
** LuaJIT's VM state where its structures were checked (jit_state).  While
** a trace is recorded that state is the recorder's for the interpreter
** too, which runs each recorded instruction: those blocks stay the
** function's, and so do the recorder's own few (its IR and snapshot
** buffers grow when a trace is longer than any before, and are kept for
** the next).  Allocations the JIT sank out of a compiled loop are never
** made: neither this nor collectgarbage("count") sees them.
*/
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "profiler.h"

#if LI_IS_LUAJIT && defined(LI_LUA_INTERNALS)
#include "lj_obj.h"

/* LuaJIT's global state of L, if its layout is the one compiled against
** (its allocator, its main thread as the API tells them), else NULL. */
static const global_State *jit_state(lua_State *L, lua_State *mainL) {
  void *ud;
  lua_Alloc f = lua_getallocf(L, &ud);
  const global_State *g = G(L);
  if (g == NULL || g != G(mainL) || g->allocf != f || g->allocd != ud ||
      gcref(g->mainthref) != obj2gco(mainL))
    return NULL;
  return g;
}

/* Is LuaJIT's trace compiler optimising or assembling a trace?  (Not
** recording one: the interpreter runs under that state too.) */
static inline int jit_compiling(const global_State *g) {
  int32_t st = g->vmstate;
  return st == ~LJ_VMST_OPT || st == ~LJ_VMST_ASM;
}
#else
typedef struct global_State global_State;
#define jit_state(L, mainL) ((void)(L), (void)(mainL), (const global_State *)NULL)
#define jit_compiling(g) ((void)(g), 0)
#endif

/* The block map: for each page of 4 kB that held a tracked block, the
** owner (node + 1; 0: none) of every slot of 16 bytes a block may start
** at.  A page's owners are found in two steps: its region of 1024 pages
** (4 MB; an open-addressing directory, the region used last first: a heap
** is a few regions) and its place in the region.  So a lookup costs a few
** instructions and touches cache lines near the ones touched just before,
** where a table keyed by block (hashed) touched a random line of a table
** as large as the live blocks at every allocation and every free.  Blocks
** that are not 16-byte aligned (an allocator that aligns to 8) go to a
** second map of 8-byte slots. */
#define PAGE_SHIFT 12
#define REGION_BITS 10          /* pages a region: 1024 */
#define REGION_PAGES ((uintptr_t)1 << REGION_BITS)

typedef struct region {
  uintptr_t rn;         /* region number: address >> (PAGE_SHIFT + REGION_BITS) */
  uint32_t **pages;     /* owners of each page (NULL: none yet; malloc'd) */
} region;

/* Owner arrays are carved from chunks of CHUNK_BYTES, not malloc'd one by
** one: a malloc of its own for each would sit between the program's blocks
** in the allocator's heap, and slow the program's own allocations down
** (binary_trees: malloc's share of the time doubled). */
#define CHUNK_BYTES (256u * 1024u)

typedef struct chunk {
  struct chunk *next;   /* chunks of the map, newest first */
  size_t used;          /* bytes given out after the header */
} chunk;

typedef struct pagemap {
  unsigned grain;       /* log2 of a slot's size */
  chunk *chunks;        /* where owner arrays come from (malloc'd) */
  region *dir;          /* the regions (malloc'd; pages NULL: empty entry) */
  uint64_t cap;         /* power of two (0: none yet) */
  uint64_t n;           /* regions in it */
  unsigned bits;        /* log2(cap) */
  uint64_t npages;      /* pages made */
  uintptr_t last_rn;    /* the region used last... */
  uint32_t **last;      /* ...and its pages (NULL: none) */
} pagemap;

struct li_mem {
  li_prof *P;           /* the profiler (NULL: it is gone, pass through) */
  int active;           /* memory mode is on */
  int installed;        /* mem_alloc is in the state's allocator chain */
  lua_Alloc f;          /* the allocator it wraps */
  void *ud;
  pagemap even;         /* 16-byte aligned blocks */
  pagemap odd;          /* the others */
  uint64_t n;           /* blocks tracked */
  uint64_t untracked;   /* frees of blocks not tracked */
  int64_t outside_live; /* bytes of blocks made outside user code */
  int64_t outside_peak;
  int full;             /* the map could not grow: new blocks untracked */
  const global_State *jit;  /* LuaJIT's state, its layout checked (NULL:
                           not LuaJIT, or not checked: the compiler's
                           blocks are the running function's) */
};


/* ======================================================================
** The block map
** ====================================================================== */

static uint64_t home(const pagemap *m, uintptr_t rn) {
  return ((uint64_t)rn * 0x9E3779B97F4A7C15u) >> (64 - m->bits);
}

static size_t page_slots(const pagemap *m) {
  return (size_t)1 << (PAGE_SHIFT - m->grain);
}

static int dir_grow(pagemap *m) {
  uint64_t cap = m->cap ? m->cap * 2 : 16, oldcap = m->cap;
  region *d = calloc((size_t)cap, sizeof *d), *old = m->dir;
  if (d == NULL) return 0;
  m->dir = d;
  m->cap = cap;
  for (m->bits = 0; ((uint64_t)1 << m->bits) < cap; m->bits++) {}
  for (uint64_t i = 0; i < oldcap; i++) {
    if (old[i].pages != NULL) {
      uint64_t k = home(m, old[i].rn);
      while (d[k].pages != NULL) k = (k + 1) & (cap - 1);
      d[k] = old[i];
    }
  }
  free(old);
  return 1;
}

/* The pages of region rn, made if `make` (NULL: none, or no memory). */
static uint32_t **region_find(pagemap *m, uintptr_t rn, int make) {
  uint64_t k;
  if (m->cap > 0) {
    for (k = home(m, rn); m->dir[k].pages != NULL; k = (k + 1) & (m->cap - 1))
      if (m->dir[k].rn == rn) return m->dir[k].pages;
  }
  if (!make) return NULL;
  if ((m->n + 1) * 2 > m->cap && !dir_grow(m)) return NULL;
  for (k = home(m, rn); m->dir[k].pages != NULL; k = (k + 1) & (m->cap - 1)) {}
  if ((m->dir[k].pages = calloc(REGION_PAGES, sizeof(uint32_t *))) == NULL)
    return NULL;
  m->dir[k].rn = rn;
  m->n++;
  return m->dir[k].pages;
}

/* A zeroed owner array for one page. */
static uint32_t *owners_new(pagemap *m) {
  size_t need = page_slots(m) * sizeof(uint32_t);
  chunk *c = m->chunks;
  uint32_t *own;
  if (c == NULL || c->used + need > CHUNK_BYTES - sizeof *c) {
    if ((c = calloc(1, CHUNK_BYTES)) == NULL) return NULL;
    c->next = m->chunks;
    m->chunks = c;
  }
  own = (uint32_t *)((char *)(c + 1) + c->used);
  c->used += need;
  return own;
}

/* slot_of's way when the region is not the one used last or the page has
** no owners yet. */
static LI_NOINLINE uint32_t *slot_slow(pagemap *m, uintptr_t a, int make) {
  uintptr_t pn = a >> PAGE_SHIFT, rn = pn >> REGION_BITS;
  uint32_t **pages = m->last, **page;
  if (pages == NULL || m->last_rn != rn) {
    if ((pages = region_find(m, rn, make)) == NULL) return NULL;
    m->last = pages;
    m->last_rn = rn;
  }
  page = &pages[pn & (REGION_PAGES - 1)];
  if (*page == NULL) {
    if (!make || (*page = owners_new(m)) == NULL) return NULL;
    m->npages++;
  }
  return &(*page)[(a >> m->grain) & (page_slots(m) - 1)];
}

/* The owner slot of block address a if its region is the one used last
** and its page has owners already (NULL: not found that way). */
static inline uint32_t *slot_near(const pagemap *m, uintptr_t a) {
  uintptr_t pn = a >> PAGE_SHIFT;
  uint32_t *own;
  if (m->last != NULL && m->last_rn == pn >> REGION_BITS &&
      (own = m->last[pn & (REGION_PAGES - 1)]) != NULL)
    return &own[(a >> m->grain) & (page_slots(m) - 1)];
  return NULL;
}

/* The owner slot of block address a (NULL: its page has none and `make`
** is 0, or no memory). */
static inline uint32_t *slot_of(pagemap *m, uintptr_t a, int make) {
  uint32_t *slot = slot_near(m, a);
  return slot != NULL ? slot : slot_slow(m, a, make);
}

static inline void prefetch_slot(const pagemap *m, uintptr_t a) {
#if defined(__GNUC__)
  const uint32_t *slot = slot_near(m, a);
  if (slot != NULL) __builtin_prefetch(slot, 1);
#else
  (void)m; (void)a;
#endif
}

static void pagemap_free(pagemap *m) {
  for (uint64_t i = 0; i < m->cap; i++) free(m->dir[i].pages);
  free(m->dir);
  while (m->chunks != NULL) {
    chunk *c = m->chunks;
    m->chunks = c->next;
    free(c);
  }
  memset(m, 0, sizeof *m);
}

static void pagemap_clear(pagemap *m) {
  for (uint64_t i = 0; i < m->cap; i++) {
    if (m->dir[i].pages == NULL) continue;
    for (uintptr_t j = 0; j < REGION_PAGES; j++)
      if (m->dir[i].pages[j] != NULL)
        memset(m->dir[i].pages[j], 0, page_slots(m) * sizeof(uint32_t));
  }
}

static uint64_t pagemap_bytes(const pagemap *m) {
  uint64_t b = m->cap * sizeof(region) + m->n * REGION_PAGES * sizeof(uint32_t *);
  for (const chunk *c = m->chunks; c != NULL; c = c->next) b += CHUNK_BYTES;
  return b;
}

static pagemap *map_for(li_mem *M, const void *p) {
  return ((uintptr_t)p & 15u) == 0 ? &M->even : &M->odd;
}

static int map_put(li_mem *M, const void *p, uint32_t node) {
  uint32_t *slot = slot_of(map_for(M, p), (uintptr_t)p, 1);
  if (slot == NULL) return 0;
  *slot = node + 1;
  M->n++;
  return 1;
}

/* Take p out of the map: its owner, or LI_NONE if it is not there. */
static uint32_t map_take(li_mem *M, const void *p) {
  uint32_t *slot = slot_of(map_for(M, p), (uintptr_t)p, 0), node;
  if (slot == NULL || *slot == 0) return LI_NONE;
  node = *slot - 1;
  *slot = 0;
  M->n--;
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

/* The node allocations are charged to now (the root, outside user code,
** while LuaJIT's compiler runs). */
static uint32_t running_node(li_prof *P) {
  li_stack *S = P->cur != NULL ? P->cur : &P->main;
  if (P->mem->jit != NULL && jit_compiling(P->mem->jit)) return 0;
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
  void *q;
  /* the owner of a block freed by the collector was written long ago: its
  ** cache line is fetched while the allocator frees, not after */
  if (ptr != NULL && M->active) prefetch_slot(map_for(M, ptr), (uintptr_t)ptr);
  q = M->f(M->ud, ptr, osize, nsize);
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
  pagemap_free(&M->even);
  pagemap_free(&M->odd);
  M->n = 0;
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
  M->even.grain = 4;
  M->odd.grain = 3;
  M->jit = jit_state(L, P->mainL);
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
  pagemap_clear(&M->even);
  pagemap_clear(&M->odd);
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
  out->mem_map_bytes = pagemap_bytes(&M->even) + pagemap_bytes(&M->odd);
  out->mem_untracked_frees = M->untracked;
  out->mem_outside.peak_live_bytes =
      M->outside_peak > 0 ? (uint64_t)M->outside_peak : 0;
}

int li_mem_active(const li_prof *P) {
  return P->mem != NULL && P->mem->active;
}

uint32_t li_mem_site(li_prof *P, const void *block) {
  li_mem *M = P->mem;
  uint32_t *slot, n;
  if (M == NULL || !M->active) return LI_NONE;
  slot = slot_of(map_for(M, block), (uintptr_t)block, 0);
  if (slot == NULL || *slot == 0) return LI_NONE;
  n = *slot - 1;
  return n < P->nnode ? P->node[n].func : LI_NONE;
}
