/*
** heapwalk.h -- heap snapshots (heap.c): every object a Lua state reaches,
** written in Chrome DevTools' .heapsnapshot format (docs/heap.md).  The C
** API (luainstr_snapshot), the Lua module (p.snapshot) and `luaprof
** --heap` all come here.
*/
#ifndef LI_HEAPWALK_H
#define LI_HEAPWALK_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

struct li_prof;     /* (runtime.h names it li_prof: one typedef only) */

/* What one snapshot did, for the caller that wants figures (bench/). */
typedef struct li_heap_stats {
  uint64_t nodes;       /* nodes written */
  uint64_t edges;       /* edges written */
  uint64_t self_bytes;  /* sum of the nodes' self sizes */
  uint64_t gc_bytes;    /* collectgarbage("count") in bytes at the snapshot */
  uint64_t c_peak;      /* the most C memory the snapshot held at once */
  int exact;            /* sizes from Lua's internals */
} li_heap_stats;

/* Write the snapshot of L's state to path (flags: 0 or
** LUAINSTR_HEAP_COLLECT).  P is L's profiler or NULL (no sites, taken_ns
** 0); a file written is added to P's list (P->heap_files).  Returns a
** LUAINSTR_ status; on failure err[errlen] says why and nothing is left at
** path (an older file there is untouched).  The Lua stack is as it was,
** the collector as it was.  stats may be NULL.  Never raises an error. */
int li_heap_snapshot(lua_State *L, struct li_prof *P, const char *path, int flags,
                     li_heap_stats *stats, char *err, size_t errlen);

/* Make now what the first snapshot of L would allocate in the Lua heap
** (luainstr_open: a snapshot then allocates nothing).  May raise. */
void li_heap_prepare(lua_State *L);

/* Forget the files P wrote (the profiler goes). */
void li_heap_files_free(struct li_prof *P);

#endif
