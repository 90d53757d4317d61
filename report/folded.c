/*
** folded.c -- the `folded`, `folded-calls` and `folded-alloc` reports:
** collapsed stacks, the input of flamegraph.pl, inferno and speedscope.
** One line per call path (a node of the call tree), in the tree's order:
**
**   main chunk (main.lua);M.parse (main.lua:10) 800000
**
** Frames run from the outermost call to the node's function, joined by ';';
** the last space separates the value.  A frame is `name (source:line)`, or
** `name (source)` for a main chunk, so that two functions with one name
** stay apart.  Names and sources are written as the text report writes
** them (control characters and bytes that are not UTF-8 become \n, \r, \t,
** \xNN), and ';', which would split the frame, becomes \x3B: a line holds
** no stray separator and no line break, and the value is always its last
** field (a frame always ends in ')').
**
** `folded`: the value is the node's self time in whole microseconds, and a
** node whose value is 0 has no line.  The values are rounded together, not
** one by one: a node's value is round(S_i / 1000) - round(S_(i-1) / 1000),
** where S_i is the self time (ns) of the nodes up to and including it, in
** the tree's order, rounding half up.  Each value is within 1 us of the
** node's own self time, and the values add up to exactly round(S / 1000),
** the rounded sum of all the nodes' self time, however many nodes there
** are (rounding each one would lose up to 0.5 us per node).
**
** `folded-calls`: the value is the node's call count; a node without calls
** has no line.
**
** `folded-alloc`: the value is the bytes the node allocated itself
** (li_pnode.mem.alloc_bytes, memory mode); a node that allocated nothing has
** no line, so a profile without memory mode gives an empty report.
*/
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "writers.h"

/* One frame: `name (source:line)`, `name (source)` for a main chunk. */
static void put_frame(FILE *f, const li_profile *p, uint32_t func) {
  const li_pfunc *fn;
  if (func >= p->nfuncs) {              /* not in the model: say so */
    fputs("? (?)", f);
    return;
  }
  fn = &p->funcs[func];
  li_put_line_text(f, fn->name != NULL ? fn->name : "?", ";");
  fputs(" (", f);
  li_put_line_text(f, fn->source != NULL ? fn->source : "?", ";");
  if (fn->line != 0) fprintf(f, ":%" PRIu32, fn->line);
  putc(')', f);
}

/* The frames of node i, outermost first, then " value".  path has room
** for p->nnodes entries. */
static void put_stack(FILE *f, const li_profile *p, uint32_t i,
                      uint32_t *path, uint64_t value) {
  uint32_t depth = 0;
  /* parents come before children, so the walk ends at the root; the bound
  ** only guards against a malformed tree */
  while (i != 0 && i < p->nnodes && depth < p->nnodes) {
    path[depth++] = i;
    if (p->nodes[i].parent >= i) break;
    i = p->nodes[i].parent;
  }
  while (depth > 0) {
    put_frame(f, p, p->nodes[path[--depth]].func);
    if (depth > 0) putc(';', f);
  }
  fprintf(f, " %" PRIu64 "\n", value);
}

/* Microseconds of ns, rounding half up. */
static uint64_t us_of(uint64_t ns) {
  return ns / 1000 + (ns % 1000 >= 500);
}

/* What a line's value is. */
typedef enum weight { W_TIME, W_CALLS, W_ALLOC } weight;

static int write_folded(const li_profile *p, FILE *f, weight w) {
  uint32_t *path;
  uint64_t sum = 0, done = 0;   /* self ns so far; us printed so far */
  if (p->nnodes <= 1) return ferror(f) ? -1 : 0;
  path = malloc((size_t)p->nnodes * sizeof *path);
  if (path == NULL) {
    errno = ENOMEM;
    return -1;
  }
  for (uint32_t i = 1; i < p->nnodes; i++) {
    const li_pnode *nd = &p->nodes[i];
    uint64_t value;
    if (w == W_CALLS) {
      value = nd->calls;
    } else if (w == W_ALLOC) {
      value = nd->mem.alloc_bytes;
    } else {
      sum += nd->self_ns;
      value = us_of(sum) - done;
      done += value;
    }
    if (value > 0) put_stack(f, p, i, path, value);
  }
  free(path);
  return ferror(f) ? -1 : 0;
}

int li_write_folded(const li_profile *p, FILE *f) {
  return write_folded(p, f, W_TIME);
}

int li_write_folded_calls(const li_profile *p, FILE *f) {
  return write_folded(p, f, W_CALLS);
}

int li_write_folded_alloc(const li_profile *p, FILE *f) {
  return write_folded(p, f, W_ALLOC);
}
