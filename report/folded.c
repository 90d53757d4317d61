/* folded.c -- placeholder while it is written */
#include "writers.h"
int li_write_folded(const li_profile *p, FILE *f) { (void)p; (void)f; return 0; }
