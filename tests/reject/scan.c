/*
** scan.c -- the rewriter's verdict on files, one line a file, for the
** tests of LI_EREJECT (tests/reject/run.sh):
**
**   reject_scan DIALECT FILE...       (DIALECT: 5.1 5.2 5.3 5.4 jit)
**   reject_scan DIALECT --list LIST   (LIST: one path a line)
**
** prints "STATUS<TAB>LINE<TAB>MESSAGE<TAB>FILE" for each file: STATUS is
** li_rewrite's status (rewriter/rewrite.h), LINE and MESSAGE its errline
** and errmsg (0 and "-" when it has none).  Files are read as lua5.N reads
** a script: a BOM and a `#` first line skipped.  Exits 2 on a usage or
** read error.
*/
#define _XOPEN_SOURCE 700  /* getline */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite.h"

/* The whole of a file, or NULL. */
static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1 << 16, n = 0, got;
  char *p = malloc(cap);
  while (p != NULL && (got = fread(p + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *q = realloc(p, cap *= 2);
      if (q == NULL) { free(p); p = NULL; }
      else p = q;
    }
  }
  if (ferror(f)) { free(p); p = NULL; }
  fclose(f);
  *len = n;
  return p;
}

static int scan(int version, const char *path) {
  size_t len;
  char *src = slurp(path, &len);
  if (src == NULL) {
    fprintf(stderr, "reject_scan: cannot read %s\n", path);
    return 0;
  }
  char name[1024];
  snprintf(name, sizeof name, "@%s", path);
  li_rewrite_opts o;
  memset(&o, 0, sizeof o);
  o.version = version;
  o.chunkname = name;
  o.skip_first_line = 1;
  li_rewrite_result r;
  int st = li_rewrite(src, len, &o, &r);
  printf("%d\t%u\t%s\t%s\n", st, (unsigned)r.errline, r.errmsg[0] ? r.errmsg : "-", path);
  li_rewrite_free(&r);
  free(src);
  return 1;
}

int main(int argc, char **argv) {
  static const struct { const char *name; int version; } dialects[] = {
    {"5.1", 51}, {"5.2", 52}, {"5.3", 53}, {"5.4", 54}, {"jit", LI_DIALECT_JIT}
  };
  int version = 0, ok = 1;
  if (argc < 3) {
    fprintf(stderr, "usage: reject_scan 5.1|5.2|5.3|5.4|jit FILE... | --list LIST\n");
    return 2;
  }
  for (size_t i = 0; i < sizeof dialects / sizeof *dialects; i++)
    if (strcmp(argv[1], dialects[i].name) == 0) version = dialects[i].version;
  if (version == 0) {
    fprintf(stderr, "reject_scan: unknown dialect %s\n", argv[1]);
    return 2;
  }
  if (strcmp(argv[2], "--list") == 0 && argc == 4) {
    FILE *l = fopen(argv[3], "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    if (l == NULL) { fprintf(stderr, "reject_scan: cannot read %s\n", argv[3]); return 2; }
    while ((n = getline(&line, &cap, l)) > 0) {
      if (line[n - 1] == '\n') line[n - 1] = '\0';
      if (line[0] != '\0') ok &= scan(version, line);
    }
    free(line);
    fclose(l);
  } else {
    for (int i = 2; i < argc; i++) ok &= scan(version, argv[i]);
  }
  return ok ? 0 : 2;
}
