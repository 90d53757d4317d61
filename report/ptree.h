/*
** ptree.h -- a call tree being built for the profile model (internal):
** nodes found by their (parent, function), made when first met, so that
** parents come before their children as report.h requires.  The readers
** that build a tree from call paths (readpprof.c, from samples' stacks)
** and li_merge (merge.c, from many reports' trees) share it.
*/
#ifndef LI_PTREE_H
#define LI_PTREE_H

#include <stdint.h>

#include "report.h"

typedef struct li_ptree {
  li_pnode *nodes;      /* node 0 is the root (func UINT32_MAX) */
  uint32_t n, cap;
  uint32_t *slot;       /* node + 1 by (parent, func), open addressing; 0 empty */
  uint32_t nslot;       /* a power of 2, at least twice n */
} li_ptree;

/* The tree holding its root alone: 0, or -1 when memory ran out. */
int li_ptree_init(li_ptree *t);

/* The node of func under parent, made (zeroed but for both) when new:
** 0; -1 when memory ran out; -2 when the tree has INT32_MAX nodes. */
int li_ptree_child(li_ptree *t, uint32_t parent, uint32_t func,
                   uint32_t *index);

/* Release the table and the nodes (after a hand-over: nodes NULL). */
void li_ptree_free(li_ptree *t);
/* Roots that t added up from several (a merge's runs, pprof's samples of
** one function) lie within the wall time together but for their rounding,
** 1 ns each: *wall (0: not known) takes a root's total when that is over
** it by at most `rounding` ns (the roots added up), never the roots. */
void li_ptree_wall_rounding(const li_ptree *t, uint64_t *wall,
                            uint64_t rounding);

#endif
