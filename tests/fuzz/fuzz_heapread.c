/*
** fuzz_heapread.c -- libFuzzer target: the .heapsnapshot reader and the
** analysis over any bytes (heap/, docs/heap.md).
**
** Properties: the reader never crashes, leaks or reads past the bytes
** (given in a block of exactly their size, so ASan sees any read beyond),
** and either refuses them with "NAME:..." or gives a heap whose analysis
** holds together: every strongly reachable node other than node 0 has a
** dominator that is reachable and a shortest path back to node 0 no longer
** than the node count; a retained size is at least the self size, node 0
** retains every reachable byte; the summary, the diff of the heap with
** itself (nothing new) and the path of each of a few nodes are written,
** and their JSON is valid (json_check.c, strict).
*/
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "heap.h"
#include "json_check.h"

/* Write with w into memory; check the JSON when json. */
static void check_output(int json, const lh_heap *h, int which)
{
  char *buf = NULL, err[256];
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  int rc;
  FZ_CHECK(f != NULL, "open_memstream");
  if (which == 0) rc = lh_write_summary(f, h, 5, json);
  else if (which == 1) rc = lh_write_diff(f, h, h, NULL, 5, json);
  else rc = lh_write_path(f, h, (uint32_t)(which - 2) % h->nnodes, json);
  FZ_CHECK(rc == 0, "writer %d failed", which);
  fclose(f);
  if (json) FZ_CHECK(fz_json_valid(buf, len, err, sizeof err), "%s\n%s", err, buf);
  if (which == 1 && json)
    FZ_CHECK(strstr(buf, "\"new\":{\"count\":0,\"bytes\":0}") != NULL,
             "a heap diffed with itself has new objects:\n%s", buf);
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char err[512];
  uint8_t *copy = malloc(size ? size : 1);
  lh_heap *h;
  uint64_t reached = 0;
  FZ_CHECK(copy != NULL, "malloc");
  if (size) memcpy(copy, data, size);
  err[0] = '\0';
  h = lh_load_mem("in", copy, size, err, sizeof err);
  free(copy);
  if (h == NULL) {
    FZ_CHECK(strncmp(err, "in", 2) == 0 && strlen(err) > 4, "message '%s'", err);
    return 0;
  }
  for (uint32_t v = 0; v < h->nnodes; v++) {
    uint32_t steps = 0;
    FZ_CHECK(h->retained[v] >= h->self[v], "node %u retains less than itself", v);
    if (v != 0 && h->bfs_edge[v] == LH_NONE) continue;
    reached += h->self[v];
    if (v == 0) continue;
    FZ_CHECK(h->idom[v] != LH_NONE && (h->idom[v] == 0 ||
             h->bfs_edge[h->idom[v]] != LH_NONE), "node %u: idom %u", v, h->idom[v]);
    for (uint32_t x = v; x != 0; x = h->bfs_parent[x])
      FZ_CHECK(++steps <= h->nnodes, "node %u: its path loops", v);
  }
  FZ_CHECK(h->retained[0] == reached, "node 0 retains %llu, %llu reachable",
           (unsigned long long)h->retained[0], (unsigned long long)reached);
  for (int json = 0; json <= 1; json++)
    for (int which = 0; which < 6; which++) check_output(json, h, which);
  lh_free(h);
  return 0;
}
