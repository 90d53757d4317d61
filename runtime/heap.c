/*
** heap.c -- heap snapshots: every object a state reaches, written in
** Chrome DevTools' .heapsnapshot format (docs/heap.md).  Not built yet.
*/
#include "heapsize.h"
