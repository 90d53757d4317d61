/*
** driver.c -- the loader's rewrite and lift, outside Lua, for
** tests/bytecode/run.sh, which runs the real interpreters around it.
**
**   driver rewrite VERSION CHUNKNAME IN OUT   the loader's form of the file
**          IN (li_rewrite with probe_upvalue, dialect 51..54, of what
**          li_load_filebytes passes on) to OUT; prints the probe's upvalue
**          in the lifted main (0: the offline form) and the number of
**          insertions (0: nothing probed, OUT is the text unchanged)
**   driver lift IN OUT      li_bc_lift_main of the dump IN; exit 1 if it
**                           refuses
**   driver probe IN         prints li_bc_entry_probe's "UPVALUE KIND"
**   driver garble IN        every strict prefix of IN must be refused by
**          both functions; every one-byte change of IN is read (whatever
**          comes out): built with AddressSanitizer, a read past the end
**          fails.  Prints the counts; exit 1 on a prefix accepted.
**
** No Lua here: runtime/bytecode.c and the rewriter are Lua-free.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "rewrite.h"

static char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  char *b = NULL;
  size_t cap = 0;
  *n = 0;
  if (f == NULL) return NULL;
  for (;;) {
    if (*n == cap) {
      char *nb = realloc(b, cap = cap ? 2 * cap : 4096);
      if (nb == NULL) { free(b); fclose(f); return NULL; }
      b = nb;
    }
    size_t got = fread(b + *n, 1, cap - *n, f);
    if (got == 0) break;
    *n += got;
  }
  fclose(f);
  return b;
}

static int write_file(const char *path, const char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return 0;
  size_t put = fwrite(b, 1, n, f);
  return fclose(f) == 0 && put == n;
}

/* Where the text that the loader rewrites starts in a file's bytes, as
** runtime/loader.c li_load_filebytes skips: a UTF-8 BOM and a first line
** starting with '#' up to its '\n' (kept, so lines keep their numbers). */
static size_t file_prefix(const char *b, size_t n) {
  size_t i = 0;
  if (n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0) i = 3;
  if (i < n && b[i] == '#') {
    const char *nl = memchr(b + i, '\n', n - i);
    return nl ? (size_t)(nl - b) : n;
  }
  return i;
}

static int do_rewrite(int version, const char *chunkname, const char *in,
                      const char *out) {
  size_t n, skip;
  char *src = read_file(in, &n);
  li_rewrite_opts o;
  li_rewrite_result r;
  int st, ok;
  if (src == NULL) { perror(in); return 1; }
  memset(&o, 0, sizeof o);
  o.version = version;
  o.chunkname = chunkname;
  o.probe_upvalue = 1;
  skip = file_prefix(src, n);
  st = li_rewrite(src + skip, n - skip, &o, &r);
  free(src);
  if (st != LI_OK) {
    fprintf(stderr, "%s:%u: %s (status %d)\n", in, (unsigned)r.errline, r.errmsg, st);
    li_rewrite_free(&r);
    return 1;
  }
  ok = write_file(out, r.out, r.outlen);
  printf("%d %zu\n", r.probe_upvalue, r.nins);
  li_rewrite_free(&r);
  return ok ? 0 : 1;
}

static int do_lift(const char *in, const char *out) {
  size_t n, outlen;
  char *d = read_file(in, &n), *lifted;
  int ok;
  if (d == NULL) { perror(in); return 1; }
  ok = li_bc_lift_main(d, n, &lifted, &outlen);
  free(d);
  if (!ok) { fprintf(stderr, "%s: not lifted\n", in); return 1; }
  ok = write_file(out, lifted, outlen);
  free(lifted);
  return ok ? 0 : 1;
}

static int do_probe(const char *in) {
  size_t n;
  char *d = read_file(in, &n);
  int kind, up;
  if (d == NULL) { perror(in); return 1; }
  up = li_bc_entry_probe(d, n, &kind);
  free(d);
  printf("%d %d\n", up, kind);
  return 0;
}

/* Both functions on buf[0..n) copied to a block of exactly n bytes. */
static int read_both(const char *buf, size_t n) {
  char *c = malloc(n ? n : 1), *out = NULL;
  size_t outlen;
  int kind, any = 0;
  if (c == NULL) return 0;
  memcpy(c, buf, n);
  if (li_bc_lift_main(c, n, &out, &outlen)) {
    any = 1;
    li_bc_entry_probe(out, outlen, &kind);   /* what came out reads too */
    free(out);
  }
  if (li_bc_entry_probe(c, n, &kind) != 0) any = 1;
  free(c);
  return any;
}

static int do_garble(const char *in) {
  static const unsigned char xors[] = { 0x01, 0x80, 0xFF, 0x7F, 0x40 };
  size_t n, accepted = 0, changes = 0, read = 0;
  char *d = read_file(in, &n), *c;
  if (d == NULL || (c = malloc(n ? n : 1)) == NULL) { perror(in); return 1; }
  for (size_t cut = 0; cut < n; cut++)
    if (read_both(d, cut)) {
      if (accepted++ < 5) fprintf(stderr, "%s: prefix of %zu bytes accepted\n", in, cut);
    }
  for (size_t at = 0; at < n; at++)
    for (size_t k = 0; k < sizeof xors; k++) {
      memcpy(c, d, n);
      c[at] = (char)(c[at] ^ xors[k]);
      read += (size_t)read_both(c, n);
      changes++;
    }
  printf("%zu prefixes, %zu accepted; %zu one-byte changes, %zu still read as a chunk\n",
         n, accepted, changes, read);
  free(c);
  free(d);
  return accepted == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 6 && strcmp(argv[1], "rewrite") == 0)
    return do_rewrite(atoi(argv[2]), argv[3], argv[4], argv[5]);
  if (argc == 4 && strcmp(argv[1], "lift") == 0) return do_lift(argv[2], argv[3]);
  if (argc == 3 && strcmp(argv[1], "probe") == 0) return do_probe(argv[2]);
  if (argc == 3 && strcmp(argv[1], "garble") == 0) return do_garble(argv[2]);
  fprintf(stderr, "usage: %s rewrite VERSION CHUNKNAME IN OUT | lift IN OUT | "
                  "probe IN | garble IN\n", argv[0]);
  return 2;
}
