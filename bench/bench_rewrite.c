/*
** bench_rewrite.c -- how fast the rewriter is, and what it adds to loading.
**
**   bench_rewrite [--quick] FILELIST
**
** FILELIST has one path a line (tests/corpus/list_corpus.sh prints one).
** Every file is read into memory first; then, on one core:
**  (a) rewrite throughput: li_rewrite() over all files, MB of input per
**      second, median of the passes;
**  (b) load-time ratio: per file, luaL_loadbufferx() of the original, then
**      the runtime's loader path, li_instrument_load() in the loader's form
**      (rewrite, compile, lift the main function), interleaved so both
**      see the same caches and clock; the ratio of the two sums per pass,
**      median of the passes, and Lua's own compile speed alongside;
**  (c) the floor of (b): compile of the rewritten output alone over compile
**      of the original (outputs made beforehand, the same interleaving), the
**      part of (b) that no speed-up of the rewriter can remove.
** Files are compiled as lua5.4 loads a script: a BOM and a `#` first line
** are skipped.  Files the original does not compile are left out of (b).
*/
#define _XOPEN_SOURCE 700  /* POSIX 2008: clock_gettime, getline */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lua.h>
#include <lauxlib.h>

#include "instrument.h"

#define MAXPASSES 5

/* One input file, in memory. */
typedef struct bfile {
  char *path;       /* as listed */
  char *chunkname;  /* "@path" */
  char *src;        /* contents (malloc'd) */
  size_t len;       /* their length */
  char *out;        /* (c): the rewritten output, or NULL */
  size_t outlen;    /* its length */
  int binary;       /* a precompiled chunk: left out */
  int compiles;     /* the original compiles with lua5.4 */
} bfile;

/* All the files. */
typedef struct corpus {
  bfile *f;         /* the files */
  size_t n, cap;    /* count, allocated */
  size_t bytes;     /* total size of the text files */
} corpus;

/* The numbers of one run. */
typedef struct results {
  int passes;                   /* how many passes (a) and (b) each made */
  double rewrite_mbs[MAXPASSES];  /* (a): MB/s per pass */
  double ratio[MAXPASSES];      /* (b): (rewrite+compile) / compile */
  double compile_mbs[MAXPASSES];  /* (b): Lua's compile MB/s */
  double floor[MAXPASSES];      /* (c): compile(output) / compile */
  size_t nok, nsyntax, nother;  /* li_rewrite outcomes, first pass */
  size_t ncompiled;             /* files in (b) */
  size_t compiled_bytes;        /* their size */
  size_t nbadout;               /* outputs that did not compile */
} results;


/* ======================================================================
** Helpers
** ====================================================================== */

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sort v[0..n) and return its median. */
static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void *xmalloc(size_t n)
{
  void *p = malloc(n > 0 ? n : 1);
  if (p == NULL) {
    fputs("bench_rewrite: not enough memory\n", stderr);
    exit(2);
  }
  return p;
}

/* As cli/luainstr.c: the bytes luaL_loadfilex drops before compiling (a
** BOM, then a `#` line up to its '\n', which stays so lines keep their
** numbers); compiling s+skip is what lua5.4 does with the file. */
static size_t loadfile_skip(const char *s, size_t len, int *binary)
{
  size_t i = 0;
  if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) i = 3;
  if (i < len && s[i] == '#') {
    const char *nl = memchr(s + i, '\n', len - i);
    i = nl != NULL ? (size_t)(nl - s) : len;
    *binary = i + 1 < len && s[i + 1] == LUA_SIGNATURE[0];
  } else {
    *binary = i < len && s[i] == LUA_SIGNATURE[0];
  }
  return i;
}

/* Compile a whole file's text as lua5.4 loads a file (the skipping is
** timed too, as luaL_loadfilex does it); nothing is left on the stack. */
static int compile(lua_State *L, const char *s, size_t len, const char *name)
{
  int binary;
  size_t skip = loadfile_skip(s, len, &binary);
  int status = luaL_loadbufferx(L, s + skip, len - skip, name, "t");
  lua_settop(L, 0);
  return status == LUA_OK;
}


/* ======================================================================
** Loading the corpus
** ====================================================================== */

/* Read a whole file.  Returns 0 or an errno value. */
static int slurp(const char *path, char **out, size_t *outlen)
{
  FILE *f = fopen(path, "rb");
  size_t cap = 1 << 16, n = 0, got;
  char *p;
  if (f == NULL) return errno;
  p = xmalloc(cap);
  while ((got = fread(p + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *q = realloc(p, cap *= 2);
      if (q == NULL) { free(p); fclose(f); return ENOMEM; }
      p = q;
    }
  }
  if (ferror(f)) { free(p); fclose(f); return EIO; }
  fclose(f);
  *out = p;
  *outlen = n;
  return 0;
}

static void add_file(corpus *c, const char *path)
{
  bfile *b;
  int err;
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 256;
    c->f = realloc(c->f, c->cap * sizeof *c->f);
    if (c->f == NULL) { fputs("bench_rewrite: no memory\n", stderr); exit(2); }
  }
  b = &c->f[c->n];
  memset(b, 0, sizeof *b);
  if ((err = slurp(path, &b->src, &b->len)) != 0) {
    fprintf(stderr, "bench_rewrite: skipping %s: %s\n", path, strerror(err));
    return;
  }
  b->path = xmalloc(strlen(path) + 1);
  strcpy(b->path, path);
  b->chunkname = xmalloc(strlen(path) + 2);
  sprintf(b->chunkname, "@%s", path);
  loadfile_skip(b->src, b->len, &b->binary);
  if (!b->binary) c->bytes += b->len;
  c->n++;
}

static int load_corpus(const char *listpath, corpus *c)
{
  FILE *list = fopen(listpath, "r");
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  if (list == NULL) {
    fprintf(stderr, "bench_rewrite: cannot open %s: %s\n", listpath,
            strerror(errno));
    return 0;
  }
  while ((n = getline(&line, &cap, list)) > 0) {
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
      line[--n] = '\0';
    if (n > 0) add_file(c, line);
  }
  free(line);
  fclose(list);
  return 1;
}

static void free_corpus(corpus *c)
{
  size_t i;
  for (i = 0; i < c->n; i++) {
    free(c->f[i].path);
    free(c->f[i].chunkname);
    free(c->f[i].src);
    free(c->f[i].out);
  }
  free(c->f);
}


/* ======================================================================
** Measuring
** ====================================================================== */

static void rewrite_opts(li_rewrite_opts *o, const bfile *b)
{
  memset(o, 0, sizeof *o);
  o->version = 54;
  o->chunkname = b->chunkname;
  o->skip_first_line = 1;
}

/* (a): one pass of li_rewrite() over every text file; returns MB/s. */
static double rewrite_pass(const corpus *c, results *res, int count)
{
  double t0 = now();
  size_t i;
  for (i = 0; i < c->n; i++) {
    const bfile *b = &c->f[i];
    li_rewrite_opts o;
    li_rewrite_result r;
    int status;
    if (b->binary) continue;
    rewrite_opts(&o, b);
    status = li_rewrite(b->src, b->len, &o, &r);
    li_rewrite_free(&r);
    if (count) {
      if (status == LI_OK) res->nok++;
      else if (status == LI_ESYNTAX) res->nsyntax++;
      else res->nother++;
    }
  }
  return (double)c->bytes / 1e6 / (now() - t0);
}

/* Load a file as the runtime's loader does (li_instrument_load in the
** loader's form: rewrite, compile, lift the main function); returns whether
** it loaded instrumented. */
static int rewrite_and_compile(lua_State *L, const bfile *b)
{
  li_rewrite_opts o;
  li_rewrite_result r;
  int binary, instrumented = 0;
  size_t skip = loadfile_skip(b->src, b->len, &binary);
  rewrite_opts(&o, b);
  o.skip_first_line = 0;
  o.probe_upvalue = 1;
  if (li_instrument_load(L, b->src + skip, b->len - skip, b->chunkname, "t",
                         &o, &r, &instrumented) != LUA_OK)
    instrumented = 0;
  lua_settop(L, 0);
  li_rewrite_free(&r);
  return instrumented;
}

/* (b): one pass; per file, compile the original and rewrite + compile the
** output, one right after the other.  Whichever goes second finds the
** source in cache and its strings already interned, so the order flips
** from file to file and from pass to pass.  Fills ratio and compile MB/s
** for pass p. */
static void load_pass(lua_State *L, const corpus *c, results *res, int p)
{
  double t_orig = 0, t_instr = 0;
  size_t i;
  for (i = 0; i < c->n; i++) {
    const bfile *b = &c->f[i];
    int instr_first = (int)((i + (size_t)p) & 1), ok;
    double t0, t1, t2;
    if (!b->compiles) continue;
    t0 = now();
    if (instr_first) {
      ok = rewrite_and_compile(L, b);
      t1 = now();
      compile(L, b->src, b->len, b->chunkname);
      t2 = now();
      t_instr += t1 - t0;
      t_orig += t2 - t1;
    } else {
      compile(L, b->src, b->len, b->chunkname);
      t1 = now();
      ok = rewrite_and_compile(L, b);
      t2 = now();
      t_orig += t1 - t0;
      t_instr += t2 - t1;
    }
    if (p == 0 && !ok) {
      res->nbadout++;
      fprintf(stderr, "bench_rewrite: output of %s does not compile\n",
              b->path);
    }
  }
  lua_gc(L, LUA_GCCOLLECT, 0);
  res->ratio[p] = t_instr / t_orig;
  res->compile_mbs[p] = (double)res->compiled_bytes / 1e6 / t_orig;
}

/* (c): keep every file's rewritten output, for compile_pass(). */
static void keep_outputs(corpus *c)
{
  size_t i;
  for (i = 0; i < c->n; i++) {
    bfile *b = &c->f[i];
    li_rewrite_opts o;
    li_rewrite_result r;
    if (!b->compiles) continue;
    rewrite_opts(&o, b);
    if (li_rewrite(b->src, b->len, &o, &r) == LI_OK) {
      b->out = r.out;             /* taken over; freed with the corpus */
      b->outlen = r.outlen;
      r.out = NULL;
    }
    li_rewrite_free(&r);
  }
}

/* (c): one pass; per file, compile the original and the kept output, in
** the order load_pass() uses.  Fills floor for pass p. */
static void compile_pass(lua_State *L, const corpus *c, results *res, int p)
{
  double t_orig = 0, t_out = 0;
  size_t i;
  for (i = 0; i < c->n; i++) {
    const bfile *b = &c->f[i];
    int out_first = (int)((i + (size_t)p) & 1);
    double t0, t1, t2;
    if (!b->compiles || b->out == NULL) continue;
    t0 = now();
    if (out_first) {
      compile(L, b->out, b->outlen, b->chunkname);
      t1 = now();
      compile(L, b->src, b->len, b->chunkname);
      t2 = now();
      t_out += t1 - t0;
      t_orig += t2 - t1;
    } else {
      compile(L, b->src, b->len, b->chunkname);
      t1 = now();
      compile(L, b->out, b->outlen, b->chunkname);
      t2 = now();
      t_orig += t1 - t0;
      t_out += t2 - t1;
    }
  }
  lua_gc(L, LUA_GCCOLLECT, 0);
  res->floor[p] = t_out / t_orig;
}

static void run(lua_State *L, corpus *c, results *res)
{
  size_t i;
  int p;
  for (i = 0; i < c->n; i++) {  /* also warms caches for both parts */
    bfile *b = &c->f[i];
    b->compiles = !b->binary &&
                  compile(L, b->src, b->len, b->chunkname);
    if (b->compiles) {
      res->ncompiled++;
      res->compiled_bytes += b->len;
    }
  }
  lua_gc(L, LUA_GCCOLLECT, 0);
  for (p = 0; p < res->passes; p++)
    res->rewrite_mbs[p] = rewrite_pass(c, res, p == 0);
  for (p = 0; p < res->passes; p++)
    load_pass(L, c, res, p);
  keep_outputs(c);
  for (p = 0; p < res->passes; p++)
    compile_pass(L, c, res, p);
}


/* ======================================================================
** Report
** ====================================================================== */

static void row(const char *what, double *v, int n, const char *unit)
{
  double med = median(v, n);
  printf("  %-36s %9.2f %9.2f %9.2f  %s\n", what, med, v[0], v[n - 1], unit);
}

static void report(const corpus *c, results *res)
{
  size_t nbinary = c->n - res->nok - res->nsyntax - res->nother;
  printf("bench_rewrite: %zu files, %.2f MB of text, %d pass%s, one core\n",
         c->n, (double)c->bytes / 1e6, res->passes,
         res->passes == 1 ? "" : "es");
  printf("  li_rewrite: %zu rewritten, %zu syntax errors, %zu other,"
         " %zu binary\n", res->nok, res->nsyntax, res->nother, nbinary);
  printf("  compiled by lua5.4: %zu files, %.2f MB; outputs that do not"
         " compile: %zu\n\n", res->ncompiled,
         (double)res->compiled_bytes / 1e6, res->nbadout);
  printf("  %-36s %9s %9s %9s\n", "", "median", "min", "max");
  row("(a) rewrite", res->rewrite_mbs, res->passes, "MB/s");
  if (res->ncompiled > 0) {
    row("(b) lua5.4 compile alone", res->compile_mbs, res->passes, "MB/s");
    row("(b) (rewrite+compile) / compile", res->ratio, res->passes, "x");
    row("(c) compile of output / compile", res->floor, res->passes, "x");
  }
}

int main(int argc, char **argv)
{
  corpus c;
  results res;
  lua_State *L;
  const char *list = NULL;
  int i;
  memset(&c, 0, sizeof c);
  memset(&res, 0, sizeof res);
  res.passes = MAXPASSES;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      res.passes = 1;
    } else if (list == NULL && argv[i][0] != '-') {
      list = argv[i];
    } else {
      list = NULL;  /* unknown option or a second list: usage */
      break;
    }
  }
  if (list == NULL) {
    fputs("usage: bench_rewrite [--quick] FILELIST\n", stderr);
    return 2;
  }
  if (!load_corpus(list, &c)) return 2;
  if (c.n == 0) {
    fputs("bench_rewrite: no files to measure\n", stderr);
    free_corpus(&c);
    return 2;
  }
  L = luaL_newstate();
  if (L == NULL) {
    fputs("bench_rewrite: not enough memory\n", stderr);
    return 2;
  }
  run(L, &c, &res);
  report(&c, &res);
  lua_close(L);
  free_corpus(&c);
  return res.nbadout > 0;
}
