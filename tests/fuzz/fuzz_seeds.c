/*
** fuzz_seeds.c -- seeds for fuzz_factory from real Lua files: for each
** FILE, the descriptor string the rewriter puts in its prologue
** ("LI1\0chunkname\0nfuncs\0{name\0line\0lastline\0}", built from the
** rewrite's function list), preceded by the target's flag byte, written to
** OUTDIR/desc-N.  Run at build time over the Debian corpus
** (scripts/fuzz.sh); nothing it writes is committed.
**
**   fuzz_seeds OUTDIR FILE...
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite.h"

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *b = NULL;
  size_t cap = 0, n = 0, got;
  if (f == NULL) return NULL;
  do {
    if (n == cap) {
      char *nb = realloc(b, cap = cap ? 2 * cap : 65536);
      if (nb == NULL) { free(b); fclose(f); return NULL; }
      b = nb;
    }
    got = fread(b + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *len = n;
  return b;
}

/* flags (profiler on, trace, twice: see fuzz_factory.c), then the string */
static int write_descriptor(const char *path, unsigned flags, const char *chunk,
                            const li_rewrite_result *r) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return 0;
  fputc((int)flags, f);
  fputs("LI1", f); fputc(0, f);
  fputs(chunk, f); fputc(0, f);
  fprintf(f, "%u", (unsigned)r->nfuncs); fputc(0, f);
  for (uint32_t i = 0; i < r->nfuncs; i++) {
    fputs(r->funcs[i].name, f); fputc(0, f);
    fprintf(f, "%u", (unsigned)r->funcs[i].line); fputc(0, f);
    fprintf(f, "%u", (unsigned)r->funcs[i].lastline); fputc(0, f);
  }
  return fclose(f) == 0;
}

int main(int argc, char **argv) {
  unsigned written = 0;
  if (argc < 2) {
    fprintf(stderr, "usage: fuzz_seeds OUTDIR FILE...\n");
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    size_t len;
    char *src = slurp(argv[i], &len), path[4096], chunk[300];
    li_rewrite_opts o;
    li_rewrite_result r;
    if (src == NULL) continue;
    snprintf(chunk, sizeof chunk, "@%s", strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i]);
    memset(&o, 0, sizeof o);
    o.version = 54;
    o.chunkname = chunk;
    o.skip_first_line = 1;
    if (li_rewrite(src, len, &o, &r) == LI_OK && r.nfuncs < 2000) {
      snprintf(path, sizeof path, "%s/desc-%u", argv[1], written);
      written += write_descriptor(path, 1u | (unsigned)(i % 3 == 0) << 1 |
                                  (unsigned)(i % 5 == 0) << 2, chunk, &r);
    }
    li_rewrite_free(&r);
    free(src);
  }
  printf("fuzz_seeds: %u descriptors in %s\n", written, argv[1]);
  return 0;
}
