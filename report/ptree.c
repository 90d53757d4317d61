/*
** ptree.c -- a call tree being built (see ptree.h).
*/
#include <stdlib.h>
#include <string.h>

#include "ptree.h"

#define NODES_MAX ((uint32_t)INT32_MAX)  /* (readpprof's walk tags indexes) */

static uint32_t slot_of(const li_ptree *t, uint32_t parent, uint32_t func) {
  uint64_t key = (uint64_t)parent << 32 | func;
  key *= 0x9e3779b97f4a7c15u;         /* Fibonacci hashing */
  return (uint32_t)(key >> 32) & (t->nslot - 1);
}

int li_ptree_init(li_ptree *t) {
  memset(t, 0, sizeof *t);
  t->cap = 64;
  t->nslot = 128;
  t->nodes = calloc(t->cap, sizeof *t->nodes);
  t->slot = calloc(t->nslot, sizeof *t->slot);
  if (t->nodes == NULL || t->slot == NULL) {
    li_ptree_free(t);
    return -1;
  }
  t->nodes[0].func = UINT32_MAX;      /* the root */
  t->n = 1;
  return 0;
}

/* Room for one more node (and its slot), the table rehashed as it grows. */
static int grow(li_ptree *t) {
  if (t->n == t->cap) {
    li_pnode *nn;
    if (t->cap >= NODES_MAX / 2) return -2;
    if ((nn = realloc(t->nodes, (size_t)t->cap * 2 * sizeof *nn)) == NULL)
      return -1;
    t->nodes = nn;
    t->cap *= 2;
  }
  if (2 * (uint64_t)t->n + 2 > t->nslot) {    /* at most half full */
    uint32_t ns = t->nslot * 2, *s = calloc(ns, sizeof *s);
    if (s == NULL) return -1;
    free(t->slot);
    t->slot = s;
    t->nslot = ns;
    for (uint32_t i = 1; i < t->n; i++) {
      uint32_t k = slot_of(t, t->nodes[i].parent, t->nodes[i].func);
      while (t->slot[k] != 0) k = (k + 1) & (ns - 1);
      t->slot[k] = i + 1;
    }
  }
  return 0;
}

int li_ptree_child(li_ptree *t, uint32_t parent, uint32_t func,
                   uint32_t *index) {
  uint32_t k;
  li_pnode *n;
  int r = grow(t);
  if (r != 0) return r;
  for (k = slot_of(t, parent, func); t->slot[k] != 0;
       k = (k + 1) & (t->nslot - 1)) {
    const li_pnode *c = &t->nodes[t->slot[k] - 1];
    if (c->parent == parent && c->func == func) {
      *index = t->slot[k] - 1;
      return 0;
    }
  }
  n = &t->nodes[t->n];
  memset(n, 0, sizeof *n);
  n->parent = parent;
  n->func = func;
  t->slot[k] = ++t->n;
  *index = t->n - 1;
  return 0;
}

void li_ptree_free(li_ptree *t) {
  free(t->nodes);
  free(t->slot);
  t->nodes = NULL;
  t->slot = NULL;
  t->n = t->cap = t->nslot = 0;
}

void li_ptree_wall_rounding(const li_ptree *t, uint64_t *wall,
                            uint64_t rounding) {
  for (uint32_t i = 1; i < t->n && *wall > 0; i++) {
    const li_pnode *nd = &t->nodes[i];
    if (nd->parent == 0 && nd->total_ns > *wall &&
        nd->total_ns - *wall <= rounding)
      *wall = nd->total_ns;
  }
}
