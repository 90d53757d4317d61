/*
** heap.h -- reading .heapsnapshot files back and making sense of them
** (docs/heap.md): the reader, the Lua type of each node, the dominator
** tree and retained sizes, shortest paths from the root written like Lua,
** and the summary, diff and path reports (text and JSON) that `luaheap`
** and the html report's heap view print.
**
**   read.c     the .heapsnapshot JSON: meta, flat node and edge arrays,
**              strings, snapshot.lua; everything checked, nothing trusted
**   graph.c    Lua types, dominators (Lengauer-Tarjan), retained sizes,
**              breadth-first shortest paths, path strings
**   summary.c  summary, diff and path, as text and as JSON
**
** Independent of any Lua: it reads files.  Who frees what: lh_load's
** heap is the caller's, freed by lh_free; strings it returns point into
** the heap and live as long as it.
*/
#ifndef LH_HEAP_H
#define LH_HEAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LH_NONE UINT32_MAX   /* no node, no edge */

/* The Lua type of a node (docs/heap.md, "Nodes"), from its node type and
** the start of its name.  A node type that no Lua value is written as (a
** file Chrome wrote: "array", "regexp", ...) is LH_KIND_OTHER + its index
** in the file's node types.  ORDER LH_KIND: lh_kind_names. */
enum {
  LH_TABLE,        /* object, not a thread */
  LH_FUNCTION,     /* closure, not a C function */
  LH_CFUNCTION,    /* closure named "C function..." */
  LH_STRING,       /* string */
  LH_USERDATA,     /* native, not a light userdata */
  LH_LIGHTUD,      /* native named "light userdata..." */
  LH_THREAD,       /* object named "thread" or "thread (main)" */
  LH_PROTO,        /* code */
  LH_CDATA,        /* hidden named "cdata..." (LuaJIT) */
  LH_ROOT,         /* synthetic: (GC roots), (registry), ... */
  LH_KIND_OTHER    /* + node type index: what no Lua value is */
};

/* Edge types, whatever order a file's meta declares them in. */
typedef enum lh_etype {
  LH_E_CONTEXT, LH_E_ELEMENT, LH_E_PROPERTY, LH_E_INTERNAL, LH_E_HIDDEN,
  LH_E_SHORTCUT, LH_E_WEAK, LH_E_OTHER
} lh_etype;

/* A snapshot read and analysed.  Node i's edges are first_edge[i] ..
** first_edge[i + 1] - 1.  Strings are len bytes (NULs allowed) with a NUL
** after them. */
typedef struct lh_heap {
  char *file;               /* the path read, for messages (malloc'd) */
  uint32_t nnodes, nedges;
  /* nodes */
  uint8_t *ntype;           /* index in ntype_names */
  uint8_t *kind;            /* LH_TABLE..., or LH_KIND_OTHER + node type
                               (lh_analyse) */
  uint32_t *name;           /* string index */
  uint64_t *id;
  uint64_t *self;           /* self size, bytes */
  uint32_t *first_edge;     /* nnodes + 1 entries */
  /* edges */
  uint8_t *etype;           /* lh_etype */
  int64_t *ename;           /* element/hidden: the index; else a string */
  uint32_t *to;             /* target node number */
  /* strings */
  char *sbuf;               /* every string, each followed by a NUL */
  size_t *soff;             /* string i starts at sbuf + soff[i] */
  uint32_t *slen;           /* and has slen[i] bytes */
  uint32_t nstrings;
  char **ntype_names;       /* the file's node type names */
  uint32_t nntypes;
  char **etype_names;       /* the file's edge type names */
  uint32_t netypes;
  uint8_t *etype_map;       /* file's edge type index -> lh_etype */
  /* snapshot.lua (has_lua 0: none, as in a file Chrome wrote) */
  int has_lua;
  char lua_version[16];     /* "5.4", "jit", ... */
  int exact, collected;     /* sizes exact; a full collection ran first */
  int has_gc_count;
  uint64_t gc_count_bytes;  /* collectgarbage("count") in bytes */
  uint64_t taken_ns;
  char **sites;             /* memory mode: the allocating functions
                               ("FUNCTION (SOURCE:LINE)"), each once */
  uint32_t nsites;
  uint32_t *site_of;        /* node -> index in sites, or LH_NONE (NULL
                               without sites) */
  uint64_t total_self;      /* sum of every node's self size */
  /* analysis (lh_analyse) */
  uint32_t *idom;           /* immediate dominator; LH_NONE: node 0, or
                               not reachable through strong edges */
  uint64_t *retained;       /* retained size */
  uint32_t *bfs_edge;       /* the edge into the node on a shortest path
                               from node 0 (LH_NONE: node 0, unreachable) */
  uint32_t *bfs_parent;     /* that edge's source */
  uint32_t *bfs_order;      /* reachable nodes, nearest first */
  uint32_t *bfs_depth;      /* edges from node 0 on that path */
  uint32_t *bfs_anchor;     /* the node at depth 24 on it (when deeper),
                               where a long path's written start ends */
  uint32_t nreachable;      /* how many */
} lh_heap;

/* ---- read.c ---------------------------------------------------------- */

/* Read a .heapsnapshot file (or size bytes at data, named name in
** messages).  NULL on failure, with "FILE:OFFSET: what" (OFFSET in bytes
** from the start) or "FILE: what" in err. */
lh_heap *lh_load(const char *path, char *err, size_t errsz);
lh_heap *lh_load_mem(const char *name, const void *data, size_t size,
                     char *err, size_t errsz);
void lh_free(lh_heap *h);

/* ---- graph.c --------------------------------------------------------- */

/* Lua types, dominators, retained sizes and shortest paths (the lh_heap
** fields under "analysis").  lh_load calls it; 0, or -1 when memory ran
** out (err says so). */
int lh_analyse(lh_heap *h, char *err, size_t errsz);

/* Name of kind k in h ("table", "C function", ..., or the node type). */
const char *lh_kind_name(const lh_heap *h, unsigned k);

/* Is edge e strong (does it retain, and lead a path)?  Weak edges do
** not; nor do shortcut edges but from node 0 (as in DevTools). */
int lh_edge_strong(const lh_heap *h, uint32_t src, uint32_t e);

/* The shortest path from the root to node v, written like Lua
** (docs/heap.md): "_G.Game.world.entities[3].pos".  generalise: element
** indices and other non-string keys as [*].  A malloc'd string, "" for
** node 0, NULL when v is not reachable through strong edges (or memory
** ran out: errno ENOMEM). */
char *lh_path(const lh_heap *h, uint32_t v, int generalise);

/* Append the path segment of edge e (from node src) to buf (docs/heap.md
** table); first: e starts the path.  0, or -1 when memory ran out. */
typedef struct lh_buf {
  char *p;
  size_t n, cap;
} lh_buf;
int lh_segment(const lh_heap *h, lh_buf *b, uint32_t src, uint32_t e,
               int first, int generalise);
int lh_buf_add(lh_buf *b, const char *s, size_t n);

/* The node with this id (the first, if several), or LH_NONE. */
uint32_t lh_find_id(const lh_heap *h, uint64_t id);

/* ---- summary.c ------------------------------------------------------- */

/* The reports.  Each reads what it needs, writes to f and returns 0, or
** -1 with "FILE:OFFSET: what" in err when a file is not a snapshot it
** can read (nothing written then), or f is in error.  top: how many
** objects (or groups) each list holds.  The JSON schema is in
** docs/heap.md ("luaheap --json"). */
int lh_summary(FILE *f, const char *path, unsigned top, int json,
               char *err, size_t errsz);
int lh_diff(FILE *f, const char *a, const char *b, const char *c,
            unsigned top, int json, char *err, size_t errsz);
int lh_pathcmd(FILE *f, const char *path, uint64_t id, int json,
               char *err, size_t errsz);

/* The same over heaps already loaded (the file names are theirs; c may be
** NULL; v a node number).  0, or -1 when memory ran out; what f says of
** its writes is the caller's to check. */
int lh_write_summary(FILE *f, const lh_heap *h, unsigned top, int json);
int lh_write_diff(FILE *f, const lh_heap *a, const lh_heap *b,
                  const lh_heap *c, unsigned top, int json);
int lh_write_path(FILE *f, const lh_heap *h, uint32_t v, int json);

/* The html report's heap view: summary and diff as JSON (c may be NULL:
** two snapshots), the lists LH_JSON_TOP long.  0 on success. */
#define LH_JSON_TOP 20
int lh_write_summary_json(FILE *f, const char *path, char *err, size_t errsz);
int lh_write_diff_json(FILE *f, const char *a, const char *b, const char *c,
                       char *err, size_t errsz);

#ifdef __cplusplus
}
#endif

#endif
