/*
** test_report.c -- Criterion tests of the report writers: golden files for a
** known profile (names with quotes, commas, line breaks, markup and bytes
** that are not UTF-8), CSV read back by an RFC 4180 parser, the format
** table, and li_report_to_path on files, devices, FIFOs, links and paths
** that cannot be written (never a partial report, never a stray temp file).
*/
#define _XOPEN_SOURCE 700  /* mkdtemp, mkfifo, symlink, setrlimit */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"
#include "known_profile.h"

/* ---- the known profile ---------------------------------------------------- */

static li_pfunc funcs[] = { LI_KNOWN_FUNCS };
#define NFUNCS (sizeof funcs / sizeof funcs[0])

static li_pnode nodes[] = { LI_KNOWN_NODES };

static li_profile known_profile(void) {
  li_profile p;
  memset(&p, 0, sizeof p);
  p.funcs = funcs;
  p.nfuncs = (uint32_t)NFUNCS;
  p.nodes = nodes;
  p.nnodes = (uint32_t)(sizeof nodes / sizeof nodes[0]);
  p.wall_ns = 2000000000;
  p.probes = 502030;              /* 2 x 251015 calls */
  p.overhead_ns = 987654;         /* "988 us" */
  p.probe_pair_ns = 3.93;
  p.probe_inside_ns = 1.5;
  p.clock = "tsc";
  p.clock_resolution_ns = 10.4;   /* " spaced "'s 0 ns calls read "<10 ns" */
  p.warnings = "main.lua:3: function 'big' left without probes: too many upvalues\n"
               "web.lua:1: odd\tname \x1b[31mred\n";
  return p;
}

static li_profile empty_profile(void) {
  li_profile p;
  memset(&p, 0, sizeof p);
  p.clock = "clock_gettime(CLOCK_MONOTONIC)";
  return p;
}

/* ---- helpers ---------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 4096, n = 0, k;
  char *p = malloc(cap + 1);
  while ((k = fread(p + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) p = realloc(p, (cap *= 2) + 1);
  }
  fclose(f);
  p[n] = '\0';
  *len = n;
  return p;
}

static char *report(const li_profile *p, const char *format, size_t *len) {
  char *out;
  cr_assert_eq(li_report_to_string(p, format, &out, len), 0, "%s: %s", format,
               strerror(errno));
  cr_assert_not_null(out);
  return out;
}

static void check_golden(const li_profile *p, const char *format, const char *file) {
  char path[1024];
  size_t len, glen;
  snprintf(path, sizeof path, "%s/golden/report/%s", LI_TEST_DIR, file);
  char *out = report(p, format, &len);
  if (getenv("LI_UPDATE_GOLDEN") != NULL) {
    FILE *f = fopen(path, "wb");
    fwrite(out, 1, len, f);
    fclose(f);
  }
  char *want = read_file(path, &glen);
  cr_assert_not_null(want, "missing %s", path);
  cr_assert(glen == len && memcmp(want, out, len) == 0,
            "%s differs from %s:\n%s", format, path, out);
  free(want);
  free(out);
}

/* A fresh directory for one test. */
static char *temp_dir(void) {
  char *d = strdup("/tmp/li_report_XXXXXX");
  cr_assert_not_null(mkdtemp(d));
  return d;
}

/* Entries of a directory, "." and ".." aside. */
static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  cr_assert_not_null(d, "%s", dir);
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
  closedir(d);
  return n;
}

static void remove_tree(const char *dir) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  cr_assert_eq(fclose(f), 0);
}

/* ---- a tiny RFC 4180 reader --------------------------------------------- */

#define MAXF 21
#define MAXR 16

typedef struct csv_table {
  int nrows;
  int nfields[MAXR];
  char *field[MAXR][MAXF];    /* malloc'd, NUL-terminated */
  size_t flen[MAXR][MAXF];    /* field lengths (fields may hold any byte) */
} csv_table;

/* Parse s; -1 on malformed input (a stray quote, an unterminated field,
** a missing final line break). */
static int csv_parse(const char *s, size_t len, csv_table *t) {
  size_t i = 0;
  memset(t, 0, sizeof *t);
  while (i < len) {
    int r = t->nrows++, nf = 0;
    if (r >= MAXR) return -1;
    for (;;) {
      char *buf = malloc(len + 1);
      size_t n = 0;
      if (nf >= MAXF) return -1;
      if (i < len && s[i] == '"') {
        for (i++;; i++) {
          if (i >= len) return -1;
          if (s[i] == '"') {
            if (i + 1 < len && s[i + 1] == '"') buf[n++] = s[i++];
            else break;
          } else {
            buf[n++] = s[i];
          }
        }
        i++;                                 /* closing quote */
        if (i < len && s[i] != ',' && s[i] != '\n') return -1;
      } else {
        while (i < len && s[i] != ',' && s[i] != '\n') {
          if (s[i] == '"' || s[i] == '\r') return -1;
          buf[n++] = s[i++];
        }
      }
      buf[n] = '\0';
      t->field[r][nf] = buf;
      t->flen[r][nf++] = n;
      if (i >= len) return -1;               /* every row ends in "\n" */
      if (s[i++] == '\n') break;
    }
    t->nfields[r] = nf;
  }
  return 0;
}

static void csv_free(csv_table *t) {
  for (int r = 0; r < t->nrows; r++)
    for (int f = 0; f < t->nfields[r]; f++) free(t->field[r][f]);
}

/* ---- golden files ------------------------------------------------------------ */

Test(golden, text) {
  li_profile p = known_profile();
  check_golden(&p, "text", "profile.txt");
}

Test(golden, csv) {
  li_profile p = known_profile();
  check_golden(&p, "csv", "profile.csv");
}

Test(golden, folded) {
  li_profile p = known_profile();
  check_golden(&p, "folded", "profile.folded");
  check_golden(&p, "folded-calls", "profile.folded-calls");
}

Test(golden, callgrind) {
  li_profile p = known_profile();
  check_golden(&p, "callgrind", "profile.callgrind");
}

Test(golden, json) {
  li_profile p = known_profile();
  check_golden(&p, "json", "profile.json");
}

Test(golden, zero_functions) {
  li_profile p = empty_profile();
  check_golden(&p, "text", "empty.txt");
  check_golden(&p, "csv", "empty.csv");
  check_golden(&p, "folded", "empty.folded");
  check_golden(&p, "callgrind", "empty.callgrind");
  check_golden(&p, "json", "empty.json");
}

/* ---- csv ------------------------------------------------------------------- */

Test(csv, reads_back_exactly) {
  static const int order[] = { 3, 6, 4, 7, 5, 2, 1 };
  li_profile p = known_profile();
  size_t len;
  char *out = report(&p, "csv", &len);
  csv_table t;
  cr_assert_eq(csv_parse(out, len, &t), 0, "not RFC 4180:\n%s", out);
  cr_assert_eq(t.nrows, 8);
  for (int r = 0; r < t.nrows; r++) cr_assert_eq(t.nfields[r], 21, "row %d", r);
  cr_assert_str_eq(t.field[0][0], "name");
  cr_assert_str_eq(t.field[0][9], "errors");
  cr_assert_str_eq(t.field[0][10], "alloc_bytes");
  cr_assert_str_eq(t.field[0][15], "max_alloc_bytes");
  cr_assert_str_eq(t.field[0][16], "total_err_ns");
  cr_assert_str_eq(t.field[0][19], "max_err_ns");
  for (int r = 1; r < t.nrows; r++) {
    const li_pfunc *fn = &funcs[order[r - 1]];
    char num[18][32];
    cr_assert_eq(t.flen[r][0], strlen(fn->name), "row %d", r);
    cr_assert_str_eq(t.field[r][0], fn->name, "row %d", r);
    cr_assert_str_eq(t.field[r][1], fn->source, "row %d", r);
    snprintf(num[0], 32, "%u", (unsigned)fn->line);
    snprintf(num[1], 32, "%u", (unsigned)fn->lastline);
    snprintf(num[2], 32, "%llu", (unsigned long long)fn->calls);
    snprintf(num[3], 32, "%llu", (unsigned long long)fn->total_ns);
    snprintf(num[4], 32, "%llu", (unsigned long long)fn->self_ns);
    snprintf(num[5], 32, "%llu", (unsigned long long)fn->min_ns);
    snprintf(num[6], 32, "%llu", (unsigned long long)fn->max_ns);
    snprintf(num[7], 32, "%llu", (unsigned long long)fn->errors);
    snprintf(num[8], 32, "%llu", (unsigned long long)fn->mem.alloc_bytes);
    snprintf(num[9], 32, "%llu", (unsigned long long)fn->mem.alloc_count);
    snprintf(num[10], 32, "%llu", (unsigned long long)fn->mem.free_bytes);
    snprintf(num[11], 32, "%llu", (unsigned long long)fn->mem.live_bytes);
    snprintf(num[12], 32, "%llu", (unsigned long long)fn->mem.peak_live_bytes);
    snprintf(num[13], 32, "%llu", (unsigned long long)fn->mem.max_alloc_bytes);
    snprintf(num[14], 32, "%llu", (unsigned long long)fn->total_err_ns);
    snprintf(num[15], 32, "%llu", (unsigned long long)fn->self_err_ns);
    snprintf(num[16], 32, "%llu", (unsigned long long)fn->min_err_ns);
    snprintf(num[17], 32, "%llu", (unsigned long long)fn->max_err_ns);
    for (int k = 0; k < 18; k++)
      cr_assert_str_eq(t.field[r][2 + k], num[k], "row %d field %d", r, 2 + k);
  }
  csv_free(&t);
  free(out);
}

Test(csv, quotes_only_what_needs_it) {
  static li_pfunc f[] = {
    { "plain", "a.lua", 0, 1, 2, 5, 0, 50, 50, 10, 10, {0}, 0, 0, 0, 0, 0 },
    { "a\"b", "lead sp", 0, 1, 2, 4, 0, 40, 40, 10, 10, {0}, 0, 0, 0, 0, 0 },
    { " lead", "trail ", 0, 1, 2, 3, 0, 30, 30, 10, 10, {0}, 0, 0, 0, 0, 0 },
    { "cr\rx", "", 0, 1, 2, 2, 0, 20, 20, 10, 10, {0}, 0, 0, 0, 0, 0 },
    { "semi;colon", "tab\tinside", 0, 1, 2, 1, 0, 10, 10, 10, 10, {0}, 0, 0, 0, 0, 0 },
  };
  li_profile p = empty_profile();
  p.funcs = f;
  p.nfuncs = 5;
  size_t len;
  char *out = report(&p, "csv", &len);
  cr_assert_str_eq(out,
    "name,source,line,lastline,calls,total_ns,self_ns,min_ns,max_ns,errors,"
    "alloc_bytes,alloc_count,free_bytes,live_bytes,peak_live_bytes,max_alloc_bytes,"
    "total_err_ns,self_err_ns,min_err_ns,max_err_ns,counted\n"
    "plain,a.lua,1,2,5,50,50,10,10,0,0,0,0,0,0,0,0,0,0,0,0\n"
    "\"a\"\"b\",lead sp,1,2,4,40,40,10,10,0,0,0,0,0,0,0,0,0,0,0,0\n"
    "\" lead\",\"trail \",1,2,3,30,30,10,10,0,0,0,0,0,0,0,0,0,0,0,0\n"
    "\"cr\rx\",,1,2,2,20,20,10,10,0,0,0,0,0,0,0,0,0,0,0,0\n"
    "semi;colon,tab\tinside,1,2,1,10,10,10,10,0,0,0,0,0,0,0,0,0,0,0,0\n");
  free(out);
}

/* ---- text ------------------------------------------------------------------- */

Test(text, one_row_per_function_and_no_control_bytes) {
  li_profile p = known_profile();
  size_t len;
  char *out = report(&p, "text", &len);
  int lines = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)out[i];
    cr_assert(c >= 0x20 || c == '\n', "control byte 0x%02x at %zu", c, i);
    cr_assert(c != 0x7f);
    lines += c == '\n';
  }
  /* summary, blank, heading, 7 rows, blank, "warnings:", 2 warnings */
  cr_assert_eq(lines, 14);
  cr_assert_null(strstr(out, "never"));
  free(out);
}

/* One function of the given duration; the text must show want as a cell. */
static void check_duration(uint64_t ns, const char *want) {
  li_pfunc f = { "f", "f.lua", 0, 1, 2, 1, 0, ns, ns, ns, ns, {0}, 0, 0, 0, 0, 0 };
  li_profile p = empty_profile();
  p.funcs = &f;
  p.nfuncs = 1;
  p.wall_ns = ns;
  size_t len;
  char *out = report(&p, "text", &len);
  char cell[64];
  snprintf(cell, sizeof cell, "  %s  ", want);
  cr_assert_not_null(strstr(out, cell), "%llu ns: want '%s' in\n%s",
                     (unsigned long long)ns, want, out);
  free(out);
}

Test(text, durations_have_three_significant_digits) {
  check_duration(0, "0 ns");
  check_duration(999, "999 ns");
  check_duration(1000, "1.00 us");
  check_duration(1004, "1.00 us");
  check_duration(1005, "1.01 us");
  check_duration(9994, "9.99 us");
  check_duration(9995, "10.0 us");
  check_duration(99949, "99.9 us");
  check_duration(99950, "100 us");
  check_duration(999499, "999 us");
  check_duration(999500, "1.00 ms");
  check_duration(12345678, "12.3 ms");
  check_duration(123456789, "123 ms");
  check_duration(1500000000, "1.50 s");
  check_duration(999499999999ull, "999 s");
  check_duration(999500000000ull, "1000 s");
  check_duration(1234567000000ull, "1235 s");
  check_duration(UINT64_MAX, "18446744074 s");
}

/* Calls not yet returned are "calls still open": "frames" are frame
** mode's. */
Test(text, open_calls_and_no_wall_time) {
  li_pfunc f[] = {
    { "a", "a.lua", 0, 1, 2, 1, 0, 300, 300, 300, 300, {0}, 0, 0, 0, 0, 0 },
    { "b", "a.lua", 0, 5, 6, 1, 0, 100, 100, 100, 100, {0}, 0, 0, 0, 0, 0 },
  };
  li_profile p = empty_profile();
  p.funcs = f;
  p.nfuncs = 2;
  p.open_calls = 2;
  p.clock = NULL;
  size_t len;
  char *out = report(&p, "text", &len);
  cr_assert_not_null(strstr(out, "clock unknown, 2 calls still open\n"), "%s", out);
  cr_assert_null(strstr(out, "frame"), "%s", out);
  /* without a wall time, shares are of the total self time */
  cr_assert_not_null(strstr(out, "75.0%"), "%s", out);
  cr_assert_not_null(strstr(out, "25.0%"), "%s", out);
  free(out);
  p.open_calls = 1;
  out = report(&p, "text", &len);
  cr_assert_not_null(strstr(out, "clock unknown, 1 call still open\n"), "%s", out);
  free(out);
}

Test(text, callers_data_is_not_reordered) {
  li_profile p = known_profile();
  li_pfunc copy[NFUNCS];
  memcpy(copy, funcs, sizeof copy);
  size_t len;
  free(report(&p, "text", &len));
  free(report(&p, "csv", &len));
  cr_assert(memcmp(copy, funcs, sizeof copy) == 0);
}

/* ---- the format table ------------------------------------------------------ */

Test(formats, known_and_unknown) {
  li_profile p = known_profile();
  char *out = (char *)1, err[256] = "";
  size_t len = 1;
  cr_assert_str_eq(li_report_formats(),
                   "text, csv, folded, folded-calls, folded-alloc, callgrind, chrome, html, json"
#ifdef LI_PPROF
                   ", pprof"                /* (helper-pprof) where it is built */
#endif
                   );
  cr_assert(li_report_known("folded-calls"));
  cr_assert(!li_report_known("folded_calls"));
  cr_assert(li_report_known("text"));
  cr_assert(li_report_known("csv"));
  cr_assert(!li_report_known("xml"));
  cr_assert(!li_report_known("Text"));
  cr_assert(!li_report_known(""));
  cr_assert(!li_report_known(NULL));
  errno = 0;
  cr_assert_eq(li_report_write(&p, "xml", stdout), -1);
  cr_assert_eq(errno, EINVAL);
  cr_assert_eq(li_report_to_string(&p, "xml", &out, &len), -1);
  cr_assert_null(out);
  char *dir = temp_dir(), path[1100];
  snprintf(path, sizeof path, "%s/r.xml", dir);
  cr_assert_eq(li_report_to_path(&p, "xml", path, err, sizeof err), -1);
  cr_assert_str_eq(err, "unknown format 'xml' (formats: text, csv, folded, "
                       "folded-calls, folded-alloc, callgrind, chrome, html, json"
#ifdef LI_PPROF
                       ", pprof"
#endif
                       ")");
  /* every caller's message is this one */
  char why[300];
  cr_assert_null(li_report_format_error("csv", why, sizeof why));
  cr_assert_eq(li_report_format_error("xml", why, sizeof why), why);
  cr_assert_str_eq(why, err);
  cr_assert_not_null(li_report_format_error(NULL, why, sizeof why));
  cr_assert(strncmp(why, "unknown format '' (formats: text, ", 34) == 0, "%s", why);
  /* (helper-pprof) a format this build leaves out says why */
#ifdef LI_PPROF
  cr_assert_null(li_report_format_error("pprof", why, sizeof why));
#else
  cr_assert_str_eq(li_report_format_error("pprof", why, sizeof why),
                   "pprof: this build has no protobuf-c");
  cr_assert_eq(li_report_to_path(&p, "pprof", path, err, sizeof err), -1);
  cr_assert_str_eq(err, "pprof: this build has no protobuf-c");
#endif
  cr_assert_eq(count_entries(dir), 0);
  remove_tree(dir);
  free(dir);
}

/* ---- a consistent profile: recursion, two files ---------------------------- */

/* Times add up (a node's total is its self time plus its children's totals):
**   main chunk (app.lua)          1 call   total 1000 us, self 100 us
**     fib (app.lua:3)             1 call   total  600 us, self 100 us
**       fib (recursive)           2 calls  total  500 us, self 200 us
**         helper (lib.lua:10)     2 calls  total  300 us, self 300 us
**     helper                      3 calls  total  300 us, self 300 us
** so fib's total is its outermost activation's, 600 us, and helper's is
** 300 + 300 us. */
static li_pfunc tree_funcs[] = {
  { "helper", "lib.lua", 0, 10, 12, 5, 0, 600000, 600000, 100000, 150000, {0}, 0, 0, 0, 0, 0 },
  { "main chunk", "app.lua", 0, 0, 0, 1, 0, 1000000, 100000, 1000000, 1000000, {0}, 0, 0, 0, 0, 0 },
  { "fib", "app.lua", 0, 3, 6, 3, 0, 600000, 300000, 100000, 600000, {0}, 0, 0, 0, 0, 0 },
};

static li_pnode tree_nodes[] = {
  { UINT32_MAX, 0, 0, 0, 0, 0, {0}, 0, 0 },
  { 1, 0, 1, 0, 1000000, 100000, {0}, 0, 0 },
  { 2, 1, 1, 0, 600000, 100000, {0}, 0, 0 },
  { 2, 2, 2, 0, 500000, 200000, {0}, 0, 0 },
  { 0, 3, 2, 0, 300000, 300000, {0}, 0, 0 },
  { 0, 1, 3, 0, 300000, 300000, {0}, 0, 0 },
};

static li_profile tree_profile(void) {
  li_profile p = empty_profile();
  p.funcs = tree_funcs;
  p.nfuncs = 3;
  p.nodes = tree_nodes;
  p.nnodes = 6;
  p.wall_ns = 1100000;
  p.clock = "tsc";
  return p;
}

/* ---- frames, spikes, zones and memory ------------------------------------- */

/* A game loop (times add up as in the tree profile):
**   main chunk (game.lua)        total 100 ms, self 35 ms, alloc 1000 B
**     update (game.lua:3)        total  60 ms, self 35 ms, alloc 50000 B
**       leak (game.lua:22)       total   5 ms, self  5 ms, alloc 30000 B, all live
**       zone physics (a zone)    total  20 ms, self 20 ms, alloc 80000 B
**     draw (game.lua:30)         total   5 ms, self  5 ms, nothing allocated
** By allocated bytes: physics, update, leak, main; by live bytes: leak
** 30000, update 2000, physics 1000.  Frames: 20 kept of 24 (5..24), in ms
** 16 17 15 16 48 16 17 16 15 16 16 17 33 16 16 15 17 16 16 20, so sorted
** 15x3 16x10 17x4 20 33 48: mean 374/20 = 18.7, p50 (rank 10) 16, p95
** (rank 19) 33, p99 = max 48.  Spikes kept: frame 9 (48 ms: physics 30+4,
** update 10, main 2, leak 1, draw 1) and frame 17 (33 ms: leak 25, draw 4,
** update 3, main 1). */
#define MS 1000000u
static li_pfunc game_funcs[] = {
  { "main chunk", "game.lua", 0, 0, 0, 1, 0, 100 * MS, 35 * MS, 100 * MS, 100 * MS,
    { 1000, 10, 161000, 540, 1000, 0, 600, 200 }, 0, 0, 0, 0, 0 },
  { "update", "game.lua", 0, 3, 20, 10, 0, 60 * MS, 35 * MS, 5 * MS, 7 * MS,
    { 50000, 100, 160000, 530, 48000, 2000, 9000, 4096 }, 0, 0, 0, 0, 0 },
  { "leak", "game.lua", 0, 22, 25, 10, 0, 5 * MS, 5 * MS, MS / 10, MS,
    { 30000, 30, 30000, 30, 0, 30000, 30000, 1000 }, 0, 0, 0, 0, 0 },
  { "zone physics", "zone", 1, 0, 0, 10, 0, 20 * MS, 20 * MS, MS, 3 * MS,
    { 80000, 400, 80000, 400, 79000, 1000, 8000, 512 }, 0, 0, 0, 0, 0 },
  { "draw", "game.lua", 0, 30, 40, 10, 0, 5 * MS, 5 * MS, MS / 5, MS,
    { 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 0, 0, 0, 0 },
  { "never", "game.lua", 0, 50, 51, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 0, 0, 0, 0 },
};

static li_pnode game_nodes[] = {
  { UINT32_MAX, 0, 0, 0, 0, 0, { 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 0 },
  { 0, 0, 1, 0, 100 * MS, 35 * MS, { 1000, 10, 161000, 540, 1000, 0, 0, 200 }, 0, 0 },
  { 1, 1, 10, 0, 60 * MS, 35 * MS, { 50000, 100, 160000, 530, 48000, 2000, 0, 4096 }, 0, 0 },
  { 2, 2, 10, 0, 5 * MS, 5 * MS, { 30000, 30, 30000, 30, 0, 30000, 0, 1000 }, 0, 0 },
  { 3, 2, 10, 0, 20 * MS, 20 * MS, { 80000, 400, 80000, 400, 79000, 1000, 0, 512 }, 0, 0 },
  { 4, 1, 10, 0, 5 * MS, 5 * MS, { 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 0 },
};

static li_pnode spike9_nodes[] = {
  { UINT32_MAX, 0, 0, 0, 0, 0, { 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 0 },
  { 0, 0, 1, 0, 48 * MS, 2 * MS, { 100, 1, 9100, 31, 0, 0, 0, 100 }, 0, 0 },
  { 1, 1, 1, 0, 41 * MS, 10 * MS, { 1000, 5, 8000, 25, 0, 0, 0, 300 }, 0, 0 },
  { 3, 2, 1, 0, 30 * MS, 30 * MS, { 6000, 18, 6000, 18, 0, 0, 0, 512 }, 0, 0 },
  { 2, 2, 1, 0, 1 * MS, 1 * MS, { 1000, 2, 1000, 2, 0, 1000, 0, 500 }, 0, 0 },
  { 3, 1, 1, 0, 4 * MS, 4 * MS, { 1000, 5, 1000, 5, 0, 0, 0, 200 }, 0, 0 },
  { 4, 1, 1, 0, 1 * MS, 1 * MS, { 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 0 },
};

static li_pnode spike17_nodes[] = {
  { UINT32_MAX, 0, 0, 0, 0, 0, { 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 0 },
  { 0, 0, 1, 0, 33 * MS, 1 * MS, { 0, 0, 3000, 3, 0, 0, 0, 0 }, 0, 0 },
  { 1, 1, 1, 0, 28 * MS, 3 * MS, { 0, 0, 3000, 3, 0, 0, 0, 0 }, 0, 0 },
  { 2, 2, 1, 0, 25 * MS, 25 * MS, { 3000, 3, 3000, 3, 0, 3000, 0, 1000 }, 0, 0 },
  { 4, 1, 1, 0, 4 * MS, 4 * MS, { 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 0 },
};

static const li_pspike game_spikes[] = {
  { 9, 48 * MS, spike9_nodes, 7 },
  { 17, 33 * MS, spike17_nodes, 5 },
};

static const uint64_t game_ms[20] = {
  16, 17, 15, 16, 48, 16, 17, 16, 15, 16, 16, 17, 33, 16, 16, 15, 17, 16, 16, 20
};

static li_pframe game_frames[20];

static li_profile game_profile(void) {
  li_profile p = empty_profile();
  uint64_t t = 70 * MS;               /* frames 1..4 left the ring buffer */
  for (int i = 0; i < 20; i++) {
    li_pframe *fr = &game_frames[i];
    fr->index = (uint64_t)i + 5;
    fr->start_ns = t;
    fr->duration_ns = game_ms[i] * MS;
    fr->calls = 41;
    fr->alloc_bytes = 8050;
    fr->spike = fr->index == 9 ? 1 : fr->index == 17 ? 2 : 0;
    t += fr->duration_ns + 1000;      /* the probes' cost between frames */
  }
  p.funcs = game_funcs;
  p.nfuncs = sizeof game_funcs / sizeof game_funcs[0];
  p.nodes = game_nodes;
  p.nnodes = sizeof game_nodes / sizeof game_nodes[0];
  p.wall_ns = 450 * MS;
  p.probes = 2 * 41;
  p.clock = "tsc";
  p.framing = 1;
  p.frames = game_frames;
  p.nframes = 20;
  p.frames_marked = 24;
  p.frame_capacity = 20;
  p.spike_factor = 2;
  p.spike_min_ns = 25 * MS;
  p.spike_keep = 2;
  p.spikes = game_spikes;
  p.nspikes = 2;
  p.spikes_seen = 3;
  p.memory = 1;
  p.mem_outside = (li_pmem){ 4096, 3, 4096, 3, 3584, 512, 4096, 2048 };
  p.mem_blocks = 77;
  p.mem_map_bytes = 65536;
  p.mem_untracked_frees = 5;
  return p;
}

/* ---- li_profile_check ------------------------------------------------------ */

/* The tree profile, in copies a test may change. */
typedef struct tree_copy {
  li_pfunc f[3];
  li_pnode n[6];
  li_profile p;
} tree_copy;

static void tree_copy_init(tree_copy *t) {
  memcpy(t->f, tree_funcs, sizeof t->f);
  memcpy(t->n, tree_nodes, sizeof t->n);
  t->p = tree_profile();
  t->p.funcs = t->f;
  t->p.nodes = t->n;
}

/* The check finds p contradicting itself, and says what with `want`. */
static void check_fails(const li_profile *p, const char *want) {
  char why[512];
  cr_assert_eq(li_profile_check(p, why, sizeof why), -1, "passed; want %s", want);
  cr_assert_not_null(strstr(why, want), "why: %s; want %s", why, want);
}

Test(check, consistent_profiles_pass) {
  li_profile t = tree_profile(), g = game_profile(), k = known_profile(),
             e = empty_profile();
  char why[512];
  cr_assert_eq(li_profile_check(&t, why, sizeof why), 0, "%s", why);
  cr_assert_eq(li_profile_check(&g, why, sizeof why), 0, "%s", why);
  cr_assert_eq(li_profile_check(&k, why, sizeof why), 0, "%s", why);
  cr_assert_eq(li_profile_check(&e, why, sizeof why), 0, "%s", why);
}

Test(check, finds_each_contradiction) {
  tree_copy t;
  tree_copy_init(&t);
  t.n[4].self_ns = 300001;                     /* self > total */
  check_fails(&t.p, "node 4 (helper): self_ns 300001 > total_ns 300000");
  tree_copy_init(&t);
  t.n[4].total_ns = 500002;                    /* a child outgrows it (1 ns: rounding) */
  check_fails(&t.p, "node 3 (fib): its 1 children's total_ns add up to 500002");
  tree_copy_init(&t);
  t.n[2].self_ns = 99990;                      /* total != self + children */
  check_fails(&t.p, "node 2 (fib): total_ns 600000 is not self_ns 99990");
  tree_copy_init(&t);
  t.n[5].errors = 4;
  check_fails(&t.p, "node 5 (helper): errors 4 > calls 3");
  tree_copy_init(&t);
  t.f[0].calls = 6;                            /* not its nodes' sum */
  check_fails(&t.p, "function 'helper' (lib.lua:10): calls 6");
  tree_copy_init(&t);
  t.f[2].self_ns = 300003;                     /* 2 nodes: 2 ns of rounding */
  check_fails(&t.p, "function 'fib' (app.lua:3): self_ns 300003, but its 2 nodes'");
  tree_copy_init(&t);
  t.f[2].total_ns = 1100000;                   /* the inner node counted */
  check_fails(&t.p, "total_ns 1100000, but its 1 outermost nodes' add up to 600000");
  tree_copy_init(&t);
  t.f[0].min_ns = 120002;                      /* above the mean, 120000 */
  t.f[0].max_ns = 150000;
  check_fails(&t.p, "function 'helper' (lib.lua:10): min_ns 120002");
  tree_copy_init(&t);
  t.f[0].max_ns = 119998;                      /* below it */
  t.f[0].min_ns = 100000;
  check_fails(&t.p, "max_ns 119998, but 5 calls took 600000 ns");
  tree_copy_init(&t);
  t.f[1].min_ns = 999999;                      /* one call: min = total */
  check_fails(&t.p, "function 'main chunk' (app.lua:0): one call");
  tree_copy_init(&t);
  t.f[2].max_ns = 600001;
  check_fails(&t.p, "out of order");
  tree_copy_init(&t);
  t.p.wall_ns = 999998;
  check_fails(&t.p, "node 1 (main chunk): total_ns 1000000 > wall_ns 999998");
  tree_copy_init(&t);
  t.n[5].parent = 5;
  check_fails(&t.p, "node 5 has parent 5");
}

Test(check, recursion_and_unknown_figures) {
  tree_copy t;
  char why[512];
  /* fib's 3 calls took 1100 us in all (the inner ones inside the outer):
     a min of 300 us is below that mean though above total/calls, 200 us */
  tree_copy_init(&t);
  t.f[2].min_ns = 300000;
  cr_assert_eq(li_profile_check(&t.p, why, sizeof why), 0, "%s", why);
  /* pprof knows no min or max, nor the wall time */
  tree_copy_init(&t);
  for (int i = 0; i < 3; i++) t.f[i].min_ns = t.f[i].max_ns = 0;
  t.p.wall_ns = 0;
  cr_assert_eq(li_profile_check(&t.p, why, sizeof why), 0, "%s", why);
  /* without a tree, a function's own figures still have to agree */
  tree_copy_init(&t);
  t.p.nnodes = 0;
  t.f[0].self_ns = 600001;
  check_fails(&t.p, "function 'helper' (lib.lua:10): self_ns 600001 > total_ns");
}

Test(check, frames_and_spike_trees) {
  li_profile g = game_profile();
  li_pnode spike[7];
  li_pspike sp[2];
  memcpy(spike, spike9_nodes, sizeof spike);
  memcpy(sp, game_spikes, sizeof sp);
  spike[3].self_ns = 31 * MS;                  /* physics: self > total */
  sp[0].nodes = spike;
  g.spikes = sp;
  check_fails(&g, "spike frame 9's tree: node 3 (zone physics): self_ns");
  g = game_profile();
  game_frames[3].idle_ns = game_frames[3].duration_ns + 1;
  check_fails(&g, "frame 8: idle_ns");
  game_frames[3].idle_ns = 0;
}

/* ---- helpers for outside tools ---------------------------------------------- */

/* The report in a new temporary file; its path, malloc'd. */
static char *report_file(const li_profile *p, const char *format) {
  char *dir = temp_dir(), *path = malloc(1100), err[256] = "";
  snprintf(path, 1100, "%s/report.%s", dir, format);
  cr_assert_eq(li_report_to_path(p, format, path, err, sizeof err), 0, "%s", err);
  free(dir);
  return path;
}

static void remove_report_file(char *path) {
  char *slash = strrchr(path, '/');
  *slash = '\0';
  remove_tree(path);
  free(path);
}

/* Run cmd (a shell command line); its stdout as a string, stderr checked
** empty, exit status 0. */
static char *run_tool(const char *cmd, const char *what) {
  char full[4096], errpath[64] = "/tmp/li_report_err_XXXXXX";
  int fd = mkstemp(errpath);
  cr_assert_geq(fd, 0);
  close(fd);
  snprintf(full, sizeof full, "%s 2>%s", cmd, errpath);
  FILE *pipe = popen(full, "r");
  cr_assert_not_null(pipe, "%s", cmd);
  size_t cap = 4096, n = 0, k;
  char *out = malloc(cap + 1);
  while ((k = fread(out + n, 1, cap - n, pipe)) > 0)
    if ((n += k) == cap) out = realloc(out, (cap *= 2) + 1);
  out[n] = '\0';
  int st = pclose(pipe);
  size_t elen;
  char *err = read_file(errpath, &elen);
  unlink(errpath);
  cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
            "%s failed (status %d; is %s installed?):\n%s%s", cmd, st, what,
            out, err);
  cr_assert_eq(elen, 0, "%s complained:\n%s", cmd, err);
  free(err);
  return out;
}

/* A line of the listing that holds both the figure and the name. */
static int listing_has(const char *out, const char *figure, const char *name) {
  for (const char *l = out; l != NULL && *l != '\0';) {
    const char *nl = strchr(l, '\n');
    size_t len = nl != NULL ? (size_t)(nl - l) : strlen(l);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)len, l);
    char *at = strstr(line, figure);
    if (at != NULL && strstr(line, name) != NULL &&
        (at == line || at[-1] == ' ') && at[strlen(figure)] == ' ')
      return 1;
    l = nl != NULL ? nl + 1 : NULL;
  }
  return 0;
}

/* ---- folded ------------------------------------------------------------------ */

/* Each line: frames, one space, an integer; the values, summed. */
static uint64_t check_folded_lines(const char *out, size_t len, int *lines) {
  uint64_t sum = 0;
  *lines = 0;
  cr_assert(len == 0 || out[len - 1] == '\n', "no final line break");
  for (const char *l = out; l < out + len;) {
    const char *nl = memchr(l, '\n', (size_t)(out + len - l));
    const char *sp = nl - 1;
    while (sp > l && *sp != ' ') sp--;
    cr_assert(sp > l && sp + 1 < nl, "line %d: no value", *lines);
    for (const char *d = sp + 1; d < nl; d++)
      cr_assert(*d >= '0' && *d <= '9', "line %d: value not an integer", *lines);
    cr_assert_eq(sp[-1], ')', "line %d: a frame must end the stack", *lines);
    for (const char *c = l; c < nl; c++)
      cr_assert((unsigned char)*c >= 0x20 && *c != 0x7f, "line %d: control byte", *lines);
    sum += strtoull(sp + 1, NULL, 10);
    (*lines)++;
    l = nl + 1;
  }
  return sum;
}

Test(folded, values_add_up_to_the_self_time) {
  li_profile p = known_profile();
  size_t len;
  int lines;
  char *out = report(&p, "folded", &len);
  /* nodes' self time: 100 ms + 800 ms + 400 ms + 5 us + 5 us + 4999 ns
  ** (" spaced " took none and has no line) */
  cr_assert_eq(check_folded_lines(out, len, &lines), 1300015);
  cr_assert_eq(lines, 6);
  /* ';' inside a name is escaped, so each line has the frames it should */
  const char *last = strstr(out, "<script>");
  cr_assert_not_null(last);
  cr_assert_not_null(strstr(out, "alert(1)\\x3B</script> (web.lua:7)"), "%s", out);
  free(out);
  out = report(&p, "folded-calls", &len);
  cr_assert_eq(check_folded_lines(out, len, &lines), 1 + 1000 + 250000 + 3 + 3 + 7 + 1);
  cr_assert_eq(lines, 7);
  free(out);
}

/* Many nodes under 1 us: rounded one by one they would all vanish. */
Test(folded, rounding_is_carried) {
  static li_pfunc f[] = { { "tiny", "t.lua", 0, 1, 2, 10, 0, 4400, 4400, 440, 4400, {0}, 0, 0, 0, 0, 0 } };
  li_pnode n[11];
  memset(n, 0, sizeof n);
  n[0].func = UINT32_MAX;
  for (int i = 1; i <= 10; i++) {
    n[i].func = 0;
    n[i].parent = (uint32_t)(i - 1);
    n[i].calls = 1;
    n[i].self_ns = 440;                     /* 4400 ns in all: 4 us */
    n[i].total_ns = 440u * (uint32_t)(11 - i);
  }
  li_profile p = empty_profile();
  p.funcs = f;
  p.nfuncs = 1;
  p.nodes = n;
  p.nnodes = 11;
  size_t len;
  int lines;
  char *out = report(&p, "folded", &len);
  cr_assert_eq(check_folded_lines(out, len, &lines), 4, "%s", out);
  cr_assert_eq(lines, 4);
  /* 1x440 = 0.44 -> 0; 2x -> 0.88 -> 1 (the 2nd node); 3x 1.32 -> 1; 4x
  ** 1.76 -> 2 (the 4th); 5x 2.2; 6x 2.64 -> 3 (the 6th); 7x 3.08; 8x 3.52
  ** -> 4 (the 8th) */
  cr_assert(strncmp(out, "tiny (t.lua:1);tiny (t.lua:1) 1\n", 32) == 0, "%s", out);
  free(out);
}

Test(folded, tree_profile) {
  li_profile p = tree_profile();
  size_t len;
  char *out = report(&p, "folded", &len);
  cr_assert_str_eq(out,
    "main chunk (app.lua) 100\n"
    "main chunk (app.lua);fib (app.lua:3) 100\n"
    "main chunk (app.lua);fib (app.lua:3);fib (app.lua:3) 200\n"
    "main chunk (app.lua);fib (app.lua:3);fib (app.lua:3);helper (lib.lua:10) 300\n"
    "main chunk (app.lua);helper (lib.lua:10) 300\n");
  free(out);
}


/* ---- frames, spikes, zones and memory: what each format shows ------------- */

Test(golden, frames_and_memory) {
  li_profile p = game_profile();
  check_golden(&p, "text", "frames.txt");
  check_golden(&p, "csv", "frames.csv");
  check_golden(&p, "json", "frames.json");
  check_golden(&p, "folded-alloc", "frames.folded-alloc");
  check_golden(&p, "callgrind", "frames.callgrind");
}


/* ---- the version of luainstr that took the profile -------------------------- */

/* Where each format states li_profile.version (V below): the report with a
** version is the one without it plus one insertion after `after` (NULL:
** the format has no room for it, the two are the same).  The goldens above
** have no version (NULL: left out), so they hold across releases; the
** version a real run states is CMake's (tests/version/installed.sh). */
typedef struct version_place {
  const char *format;
  const char *after;    /* text in the report without a version */
  const char *insert;   /* what the version adds there, V for the version */
} version_place;

static const version_place version_places[] = {
  { "text", NULL, NULL },                 /* (end of its first line: below) */
  { "json", "  \"version\": 1,\n", "  \"luainstr\": \"V\",\n" },
  { "callgrind", "creator: luainstr", " V" },
  { "chrome", "\"otherData\":{\"generator\":\"luainstr\",", "\"luainstr\":\"V\"," },
  { "html", "id=\"li-data\">{\"version\":1,\n", "\"luainstr\":\"V\",\n" },
  { "csv", NULL, NULL },
  { "folded", NULL, NULL },
  { "folded-calls", NULL, NULL },
  { "folded-alloc", NULL, NULL },
};

/* without, with the insertion of place (V replaced by version). */
static char *with_insertion(const char *without, const version_place *pl,
                            const char *version) {
  const char *at;
  if (strcmp(pl->format, "text") == 0) {
    at = strchr(without, '\n');                 /* the summary line's end */
    cr_assert_not_null(at);
  } else {
    at = strstr(without, pl->after);
    cr_assert_not_null(at, "%s: no '%s' in\n%s", pl->format, pl->after, without);
    at += strlen(pl->after);
  }
  const char *ins = strcmp(pl->format, "text") == 0 ? ", luainstr V" : pl->insert;
  size_t n = strlen(without) + strlen(ins) + strlen(version) + 1;
  char *out = malloc(n), *o = out;
  memcpy(o, without, (size_t)(at - without));
  o += at - without;
  for (const char *c = ins; *c != '\0'; c++) {
    if (*c == 'V') {
      strcpy(o, version);
      o += strlen(version);
    } else {
      *o++ = *c;
    }
  }
  strcpy(o, at);
  return out;
}

static void check_version_places(li_profile p) {
  const char *version = "9.8.7-rc1+test";   /* any version: its places */
  char *list = strdup(li_report_formats()), *save = NULL;
  int checked = 0;
  for (char *name = strtok_r(list, ", ", &save); name != NULL;
       name = strtok_r(NULL, ", ", &save)) {
    const version_place *pl = NULL;
    for (size_t i = 0; i < sizeof version_places / sizeof version_places[0]; i++)
      if (strcmp(version_places[i].format, name) == 0) pl = &version_places[i];
    /* pprof's version is a comment string in a gzipped message: read
    ** back by `go tool pprof -comments` in tests/version/installed.sh */
    if (strcmp(name, "pprof") == 0) continue;
    cr_assert_not_null(pl, "format %s: where does it state the version? "
                       "(add it to version_places)", name);
    size_t len0, len1;
    p.version = NULL;
    char *without = report(&p, name, &len0);
    p.version = version;
    char *with = report(&p, name, &len1);
    if (pl->after == NULL && strcmp(name, "text") != 0) {
      cr_assert(len0 == len1 && memcmp(without, with, len0) == 0,
                "%s has no room for the version, yet it changed:\n%s", name, with);
    } else {
      char *want = with_insertion(without, pl, version);
      cr_assert(strlen(want) == len1 && memcmp(want, with, len1) == 0,
                "%s: the version is not where it belongs:\n%s", name, with);
      free(want);
    }
    free(without);
    free(with);
    checked++;
  }
  cr_assert_geq(checked, 9);
  free(list);
}

Test(version, in_every_report_with_room) {
  check_version_places(known_profile());
  check_version_places(game_profile());
}

/* A version read back from a file (luainstr merge) may hold anything: it
** stays one line of text and one JSON string. */
Test(version, any_bytes_stay_in_their_place) {
  li_profile p = known_profile();
  size_t len;
  p.version = "1.0\n\"</script>\x01\xff";
  char *out = report(&p, "text", &len);
  const char *end = ", luainstr 1.0\\n\"</script>\\x01\\xFF\n";  /* line's end */
  char *nl = strchr(out, '\n');
  cr_assert(nl != NULL && (size_t)(nl + 1 - out) >= strlen(end) &&
            strncmp(nl + 1 - strlen(end), end, strlen(end)) == 0, "%s", out);
  free(out);
  out = report(&p, "callgrind", &len);
  cr_assert_not_null(strstr(out, "\ncreator: luainstr 1.0\\n\"</script>\\x01\\xFF\n"), "%s", out);
  free(out);
  out = report(&p, "json", &len);
  cr_assert_not_null(strstr(out, "\n  \"luainstr\": \"1.0\\n\\\"\\u003c/script\\u003e\\u0001\\u00ff\",\n"),
                     "%s", out);
  free(out);
}

Test(text, frame_summary_and_spikes) {
  li_profile p = game_profile();
  size_t len;
  char *out = report(&p, "text", &len);
  cr_assert_not_null(strstr(out, "\nframes: 24 marked, 20 kept: mean 18.7 ms, "
                                 "p50 16.0 ms, p95 33.0 ms, p99 48.0 ms, max 48.0 ms\n"), "%s", out);
  cr_assert_not_null(strstr(out, "\nspikes: frames over 2x the running median and "
                                 "over 25.0 ms; 3 seen, 2 kept"), "%s", out);
  /* the top three by self time summed over each spike's own tree: physics
  ** twice in frame 9 (30 + 4 ms); a zone shows no source line */
  cr_assert_not_null(strstr(out, "\n  frame 9  48.0 ms: zone physics 34.0 ms, update "
                                 "(game.lua:3) 10.0 ms, main chunk (game.lua:main) "
                                 "2.00 ms\n"), "%s", out);
  cr_assert_not_null(strstr(out, "\n  frame 17  33.0 ms: leak (game.lua:22) 25.0 ms, "
                                 "draw (game.lua:30) 4.00 ms, update (game.lua:3) "
                                 "3.00 ms\n"), "%s", out);
  free(out);
}

Test(text, memory_tables) {
  li_profile p = game_profile();
  size_t len;
  char *out = report(&p, "text", &len);
  cr_assert_not_null(strstr(out, "\nmemory: 157 KiB allocated by user code in 540 "
                                 "allocations, 32.2 KiB of it live; outside user code "
                                 "4.00 KiB in 3 allocations, 512 B live\n"), "%s", out);
  cr_assert_not_null(strstr(out, "block map: 77 blocks tracked in 64.0 KiB; 5 frees"), "%s", out);
  /* by allocated bytes: physics, update, leak, main; draw allocated nothing */
  const char *table = strstr(out, "max alloc  function");
  cr_assert_not_null(table, "%s", out);
  const char *live = strstr(table, "\nlive at the end, most first:\n");
  cr_assert_not_null(live, "%s", out);
  const char *a1 = strstr(table, "\n78.1 KiB"), *a2 = strstr(table, "\n48.8 KiB"),
             *a3 = strstr(table, "\n29.3 KiB"), *a4 = strstr(table, "\n  1000 B");
  cr_assert(a1 && a2 && a3 && a4 && a1 < a2 && a2 < a3 && a3 < a4 && a4 < live, "%s", out);
  cr_assert(strstr(table, "draw") == NULL || strstr(table, "draw") > live, "%s", out);
  /* by live bytes: the leak first */
  cr_assert_not_null(strstr(live, ":\n   29.3 KiB  leak  game.lua:22\n"
                                  "   1.95 KiB  update  game.lua:3\n"
                                  "     1000 B  zone physics  zone\n"), "%s", out);
  free(out);
}

Test(text, no_frames_no_memory_no_sections) {
  li_profile p = known_profile();
  size_t len;
  char *out = report(&p, "text", &len);
  cr_assert_null(strstr(out, "frames:"));
  cr_assert_null(strstr(out, "memory:"));
  free(out);
  /* framing on but nothing marked yet */
  p.framing = 1;
  out = report(&p, "text", &len);
  cr_assert_not_null(strstr(out, "\nframes: 0 marked, 0 kept\nspikes: frames over 0x"), "%s", out);
  free(out);
}

Test(csv, memory_columns) {
  li_profile p = game_profile();
  size_t len;
  char *out = report(&p, "csv", &len);
  csv_table t;
  cr_assert_eq(csv_parse(out, len, &t), 0, "not RFC 4180:\n%s", out);
  cr_assert_eq(t.nrows, 6);
  /* report order: main chunk and update (35 ms, main's total larger), physics */
  cr_assert_str_eq(t.field[3][0], "zone physics");
  cr_assert_str_eq(t.field[3][10], "80000");
  cr_assert_str_eq(t.field[3][11], "400");
  cr_assert_str_eq(t.field[3][12], "79000");
  cr_assert_str_eq(t.field[3][13], "1000");
  cr_assert_str_eq(t.field[3][14], "8000");
  cr_assert_str_eq(t.field[3][15], "512");
  csv_free(&t);
  free(out);
}

Test(folded, alloc_sums_the_nodes_bytes) {
  li_profile p = game_profile();
  uint64_t want = 0;
  int lines, with = 0;
  size_t len;
  for (uint32_t i = 1; i < p.nnodes; i++) {
    want += p.nodes[i].mem.alloc_bytes;
    with += p.nodes[i].mem.alloc_bytes > 0;
  }
  char *out = report(&p, "folded-alloc", &len);
  cr_assert_eq(check_folded_lines(out, len, &lines), want, "%s", out);
  cr_assert_eq(want, 161000);
  cr_assert_eq(lines, with);                /* draw allocated nothing */
  cr_assert_not_null(strstr(out, "main chunk (game.lua);update (game.lua:3);"
                                 "zone physics (zone) 80000\n"), "%s", out);
  free(out);
  p = known_profile();                      /* no memory mode: nothing */
  out = report(&p, "folded-alloc", &len);
  cr_assert_eq(len, 0, "%s", out);
  free(out);
}

/* ---- callgrind ------------------------------------------------------------- */

Test(callgrind, annotate_reads_the_known_profile) {
  li_profile p = known_profile();
  char *path = report_file(&p, "callgrind"), cmd[1400];
  snprintf(cmd, sizeof cmd, "callgrind_annotate --threshold=100 '%s'", path);
  char *out = run_tool(cmd, "callgrind_annotate (valgrind)");
  cr_assert_not_null(strstr(out, "1,300,014,999 (100.0%)  PROGRAM TOTALS"), "%s", out);
  cr_assert(listing_has(out, "800,000,000", "main.lua:M.parse:10"), "%s", out);
  cr_assert(listing_has(out, "400,000,000", "[string \"x\"]:t[\"a,b\"]:3"), "%s", out);
  cr_assert(listing_has(out, "5,000", "web.lua:<script>alert(1);</script>:7"), "%s", out);
  cr_assert(listing_has(out, "5,000", "dir,x/odd.lua:multi\\nline\\r\\n\\tname:30"), "%s", out);
  cr_assert(listing_has(out, "4,999", "utf.lua:caf\\xE9 \xcf\x80:20"), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "callgrind_annotate --inclusive=yes --threshold=100 '%s'", path);
  out = run_tool(cmd, "callgrind_annotate (valgrind)");
  /* the main chunk node's total: its self time and its callees' totals */
  cr_assert(listing_has(out, "1,300,014,999", "main.lua:main chunk"), "%s", out);
  cr_assert(listing_has(out, "1,200,000,000", "main.lua:M.parse:10"), "%s", out);
  cr_assert(listing_has(out, "5,000", "web.lua:<script>alert(1);</script>:7"), "%s", out);
  cr_assert(listing_has(out, "9,999", "dir,x/odd.lua:multi\\nline\\r\\n\\tname:30"), "%s", out);
  free(out);
  remove_report_file(path);
}

/* With times that add up, annotate's inclusive figures are the profile's
** totals, recursion included. */
Test(callgrind, inclusive_totals_with_recursion) {
  li_profile p = tree_profile();
  char *path = report_file(&p, "callgrind"), cmd[1400];
  snprintf(cmd, sizeof cmd, "callgrind_annotate --inclusive=yes --threshold=100 '%s'", path);
  char *out = run_tool(cmd, "callgrind_annotate (valgrind)");
  cr_assert_not_null(strstr(out, "1,000,000 (100.0%)  PROGRAM TOTALS"), "%s", out);
  cr_assert(listing_has(out, "1,000,000", "app.lua:main chunk"), "%s", out);
  cr_assert(listing_has(out, "600,000", "app.lua:fib:3"), "%s", out);
  cr_assert(listing_has(out, "600,000", "lib.lua:helper:10"), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "callgrind_annotate --threshold=100 '%s'", path);
  out = run_tool(cmd, "callgrind_annotate (valgrind)");
  cr_assert(listing_has(out, "100,000", "app.lua:main chunk"), "%s", out);
  cr_assert(listing_has(out, "300,000", "app.lua:fib:3"), "%s", out);
  cr_assert(listing_has(out, "600,000", "lib.lua:helper:10"), "%s", out);
  free(out);
  remove_report_file(path);
  size_t len;
  out = report(&p, "callgrind", &len);
  /* the recursive call is counted, and costs nothing more */
  cr_assert_not_null(strstr(out, "cfn=(2)\ncalls=2 3\n3 0\n"), "%s", out);
  free(out);
}

Test(callgrind, same_name_same_file_stays_apart) {
  static li_pfunc f[] = {
    { "f", "=x", 0, 1, 2, 1, 0, 30, 30, 30, 30, {0}, 0, 0, 0, 0, 0 },
    { "f", "=x", 0, 1, 3, 1, 0, 20, 20, 20, 20, {0}, 0, 0, 0, 0, 0 },
    { "main chunk", "=x", 0, 0, 0, 1, 0, 60, 10, 60, 60, {0}, 0, 0, 0, 0, 0 },
  };
  li_pnode n[] = {
    { UINT32_MAX, 0, 0, 0, 0, 0, {0}, 0, 0 }, { 2, 0, 1, 0, 60, 10, {0}, 0, 0 },
    { 0, 1, 1, 0, 30, 30, {0}, 0, 0 }, { 1, 1, 1, 0, 20, 20, {0}, 0, 0 },
  };
  li_profile p = empty_profile();
  p.funcs = f;
  p.nfuncs = 3;
  p.nodes = n;
  p.nnodes = 4;
  size_t len;
  char *out = report(&p, "callgrind", &len);
  cr_assert_not_null(strstr(out, "fn=(1) f:1\n"), "%s", out);
  cr_assert_not_null(strstr(out, "fn=(2) f:1 #2\n"), "%s", out);
  free(out);
}

/* Memory mode adds the event alloc: self bytes per function, each call's
** bytes including its callees', so the main chunk holds them all. */
Test(callgrind, annotate_reads_the_alloc_event) {
  li_profile p = game_profile();
  char *path = report_file(&p, "callgrind"), cmd[1400];
  snprintf(cmd, sizeof cmd, "callgrind_annotate --threshold=100 '%s'", path);
  char *out = run_tool(cmd, "callgrind_annotate (valgrind)");
  cr_assert_not_null(strstr(out, "Events recorded:  ns alloc\n"), "%s", out);
  cr_assert_not_null(strstr(out, "100,000,000 (100.0%) 161,000 (100.0%)  PROGRAM TOTALS"), "%s", out);
  cr_assert_not_null(strstr(out, "20,000,000 (20.00%) 80,000 (49.69%)  zone:zone physics"), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "callgrind_annotate --inclusive=yes --threshold=100 '%s'", path);
  out = run_tool(cmd, "callgrind_annotate (valgrind)");
  cr_assert_not_null(strstr(out, "100,000,000 (100.0%) 161,000 (100.0%)  game.lua:main chunk"), "%s", out);
  cr_assert_not_null(strstr(out, "60,000,000 (60.00%) 160,000 (99.38%)  game.lua:update:3"), "%s", out);
  free(out);
  remove_report_file(path);
  p.memory = 0;                 /* without memory mode: one event, as before */
  size_t len;
  out = report(&p, "callgrind", &len);
  cr_assert_not_null(strstr(out, "\nevents: ns\nsummary: 100000000\n"), "%s", out);
  free(out);
}

/* ---- json ------------------------------------------------------------------ */

/* Parse the report with Python's json module, check some values and write
** every function name back as UTF-8, each followed by a NUL. */
static const char json_check[] =
  "import json, sys\n"
  "d = json.load(open(sys.argv[1], encoding='utf-8', errors='strict'))\n"
  "assert d['format'] == 'luainstr-profile' and d['version'] == 1\n"
  "s = d['summary']\n"
  "assert s['wall_ns'] == int(sys.argv[2]) and s['clock'] == sys.argv[3]\n"
  "t = d['tree']\n"
  "assert not t or (t[0]['parent'] is None and t[0]['function'] is None)\n"
  "for n in d['tree'][1:]:\n"
  "    assert 0 <= n['parent'] < n['id']\n"
  "    assert 0 <= n['function'] < len(d['functions'])\n"
  "for i, f in enumerate(d['functions']):\n"
  "    assert f['id'] == i\n"
  "sys.stdout.buffer.write(b''.join(f['name'].encode('utf-8') + b'\\0'\n"
  "                                 for f in d['functions']))\n";

static char *parse_json_names(const li_profile *p, size_t *len) {
  char *path = report_file(p, "json"), *script = strdup("/tmp/li_json_XXXXXX");
  char cmd[1600];
  int fd = mkstemp(script);
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, json_check, sizeof json_check - 1),
               (ssize_t)(sizeof json_check - 1));
  close(fd);
  snprintf(cmd, sizeof cmd, "python3 '%s' '%s' %llu '%s'", script, path,
           (unsigned long long)p->wall_ns, p->clock);
  char *out = run_tool(cmd, "python3");
  unlink(script);
  free(script);
  /* NUL-separated: the length is where the last name ends */
  size_t n = 0;
  for (uint32_t i = 0; i < p->nfuncs; i++) n += strlen(out + n) + 1;
  *len = n;
  remove_report_file(path);
  return out;
}

Test(json, parses_and_names_round_trip) {
  li_profile p = known_profile();
  size_t len;
  char *names = parse_json_names(&p, &len), *at = names;
  for (uint32_t i = 0; i < p.nfuncs; i++) {
    /* the one name that is not UTF-8 reads back with 0xE9 as U+00E9 */
    const char *want = i == 2 ? "caf\xc3\xa9 \xcf\x80" : funcs[i].name;
    cr_assert_str_eq(at, want, "function %u", i);
    at += strlen(at) + 1;
  }
  free(names);
}

Test(json, any_bytes_stay_valid_and_safe_in_html) {
  static li_pfunc f[] = {
    { "</script><!-- x", "a.lua", 0, 1, 2, 1, 0, 1, 1, 1, 1, {0}, 0, 0, 0, 0, 0 },
    { "q\"b\\s/\x01\x1f\x7f\b\f", "a.lua", 0, 3, 4, 1, 0, 1, 1, 1, 1, {0}, 0, 0, 0, 0, 0 },
    { "ls\xe2\x80\xa8ps\xe2\x80\xa9 \xf0\x9f\x98\x80", "a.lua", 0, 5, 6, 1, 0, 1, 1, 1, 1, {0}, 0, 0, 0, 0, 0 },
    { "bad \xc0\xaf \xed\xa0\x80 \xf5 \xe2\x82", "b\xff.lua", 0, 7, 8, 1, 0, 1, 1, 1, 1, {0}, 0, 0, 0, 0, 0 },
  };
  li_profile p = empty_profile();
  p.funcs = f;
  p.nfuncs = 4;
  p.probe_pair_ns = 0.1;
  size_t len;
  char *out = report(&p, "json", &len);
  cr_assert_null(strstr(out, "</"), "%s", out);
  cr_assert_null(strstr(out, "<!"), "%s", out);
  cr_assert_not_null(strstr(out, "\"probe_pair_ns\": 0.1,"), "%s", out);
  cr_assert_not_null(strstr(out, "\"q\\\"b\\\\s/\\u0001\\u001f\\u007f\\b\\f\""), "%s", out);
  cr_assert_not_null(strstr(out, "\"ls\\u2028ps\\u2029 \xf0\x9f\x98\x80\""), "%s", out);
  cr_assert_not_null(strstr(out, "\"bad \\u00c0\\u00af \\u00ed\\u00a0\\u0080 \\u00f5 "
                                 "\\u00e2\\u0082\""), "%s", out);
  cr_assert_not_null(strstr(out, "\"source\": \"b\\u00ff.lua\""), "%s", out);
  free(out);
  char *names = parse_json_names(&p, &len), *at = names;
  for (uint32_t i = 0; i < 3; i++) {
    cr_assert_str_eq(at, f[i].name, "function %u", i);
    at += strlen(at) + 1;
  }
  cr_assert_str_eq(at, "bad \xc3\x80\xc2\xaf \xc3\xad\xc2\xa0\xc2\x80 \xc3\xb5 "
                       "\xc3\xa2\xc2\x82");
  free(names);
}

/* open_calls, and its old name open_frames (deprecated, kept one release)
** with the same value, as a JSON parser reads them. */
Test(json, open_calls_and_its_old_name) {
  li_profile p = known_profile();
  p.open_calls = 3;
  char *path = report_file(&p, "json");
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "python3 -c 'import json, sys; "
           "s = json.load(open(sys.argv[1]))[\"summary\"]; "
           "print(s[\"open_calls\"], s[\"open_frames\"])' '%s'", path);
  char *out = run_tool(cmd, "python3");
  cr_assert_str_eq(out, "3 3\n");
  free(out);
  remove_report_file(path);
}

Test(json, trace_events) {
  static const li_pevent ev[] = {
    { 0, 1, 0, 'B' }, { 10, 2, 0, 'B' }, { 15, UINT32_MAX, 1, 'Y' },
    { 20, 2, 0, 'X' }, { 30, 1, 0, 'E' },
  };
  li_profile p = tree_profile();
  p.tracing = 1;
  p.events = ev;
  p.nevents = 5;
  p.trace_capacity = 1024;
  p.events_dropped = 7;
  size_t len;
  char *out = report(&p, "json", &len);
  cr_assert_not_null(strstr(out, "\"tracing\": true, \"events\": 5, "
                                 "\"events_dropped\": 7, \"trace_capacity\": 1024,"), "%s", out);
  cr_assert_not_null(strstr(out, "{\"ts_ns\": 10, \"kind\": \"B\", \"thread\": 0, \"function\": 2}"), "%s", out);
  cr_assert_not_null(strstr(out, "{\"ts_ns\": 15, \"kind\": \"Y\", \"thread\": 1, \"function\": null}"), "%s", out);
  free(out);
  free(parse_json_names(&p, &len));
}

/* The frames and spikes of a json report, read by Python's json module:
** frames in order, spike flags matching the spikes, each spike's tree well
** formed, zone and memory fields on every function and node. */
static const char json_frames_check[] =
  "import json, sys\n"
  "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
  "s = d['summary']\n"
  "assert s['framing'] is True and s['memory'] is True, s\n"
  "assert s['frames_marked'] == 24 and s['spikes_seen'] == 3, s\n"
  "assert s['spike_factor'] == 2 and s['spike_min_ns'] == 25000000, s\n"
  "assert s['mem_outside']['live_bytes'] == 512 and s['mem_blocks'] == 77, s\n"
  "fr = d['frames']\n"
  "assert [f['index'] for f in fr] == list(range(5, 25)), fr\n"
  "assert all(a['start_ns'] + a['duration_ns'] <= b['start_ns']\n"
  "           for a, b in zip(fr, fr[1:]))\n"
  "sp = d['spikes']\n"
  "assert [x['frame'] for x in sp] == [f['index'] for f in fr if f['spike']] == [9, 17]\n"
  "byindex = {f['index']: f for f in fr}\n"
  "for x in sp:\n"
  "    assert x['duration_ns'] == byindex[x['frame']]['duration_ns']\n"
  "    t = x['tree']\n"
  "    assert t[0]['parent'] is None and t[0]['function'] is None\n"
  "    for i, n in enumerate(t):\n"
  "        assert n['id'] == i\n"
  "        assert i == 0 or 0 <= n['parent'] < i\n"
  "        assert i == 0 or 0 <= n['function'] < len(d['functions'])\n"
  "zones = [f['name'] for f in d['functions'] if f['zone']]\n"
  "assert zones == ['zone physics'], zones\n"
  "mem = ('alloc_bytes', 'alloc_count', 'alloc_bytes_total', 'alloc_count_total',\n"
  "       'free_bytes', 'live_bytes', 'peak_live_bytes', 'max_alloc_bytes')\n"
  "for o in d['functions'] + d['tree'] + [n for x in sp for n in x['tree']]:\n"
  "    assert all(isinstance(o[k], int) for k in mem), o\n"
  "assert sum(n['alloc_bytes'] for n in d['tree']) == 161000\n"
  "leak = max(d['functions'], key=lambda f: f['live_bytes'])\n"
  "assert leak['name'] == 'leak', leak\n"
  "print(len(fr), len(sp))\n";

Test(json, frames_spikes_and_memory_parse) {
  li_profile p = game_profile();
  char *path = report_file(&p, "json"), *script = strdup("/tmp/li_json_XXXXXX");
  char cmd[1600];
  int fd = mkstemp(script);
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, json_frames_check, sizeof json_frames_check - 1),
               (ssize_t)(sizeof json_frames_check - 1));
  close(fd);
  snprintf(cmd, sizeof cmd, "python3 '%s' '%s'", script, path);
  char *out = run_tool(cmd, "python3");
  cr_assert_str_eq(out, "20 2\n");
  free(out);
  unlink(script);
  free(script);
  remove_report_file(path);
}

Test(json, frame_mark_events_have_no_function) {
  static const li_pevent ev[] = {
    { 0, 0, 0, 'B' }, { 10, UINT32_MAX, 0, 'F' }, { 20, 0, 0, 'E' },
  };
  li_profile p = game_profile();
  p.tracing = 1;
  p.events = ev;
  p.nevents = 3;
  size_t len;
  char *out = report(&p, "json", &len);
  cr_assert_not_null(strstr(out, "{\"ts_ns\": 10, \"kind\": \"F\", \"thread\": 0, "
                                 "\"function\": null}"), "%s", out);
  free(out);
}

/* ---- li_report_to_path ------------------------------------------------------- */

static void check_file_is_report(const li_profile *p, const char *format,
                                 const char *path) {
  size_t len, flen;
  char *want = report(p, format, &len);
  char *got = read_file(path, &flen);
  cr_assert_not_null(got, "%s", path);
  cr_assert(flen == len && memcmp(got, want, len) == 0, "%s differs", path);
  free(got);
  free(want);
}

Test(to_path, new_regular_file) {
  li_profile p = known_profile();
  char *dir = temp_dir(), path[1100], err[256] = "";
  struct stat st;
  umask(022);
  snprintf(path, sizeof path, "%s/report.txt", dir);
  cr_assert_eq(li_report_to_path(&p, "text", path, err, sizeof err), 0, "%s", err);
  check_file_is_report(&p, "text", path);
  cr_assert_eq(stat(path, &st), 0);
  cr_assert(S_ISREG(st.st_mode));
  cr_assert_eq(st.st_mode & 07777, 0644, "mode %o", st.st_mode & 07777);
  cr_assert_eq(count_entries(dir), 1, "temporary file left");
  umask(077);
  snprintf(path, sizeof path, "%s/report.csv", dir);
  cr_assert_eq(li_report_to_path(&p, "csv", path, err, sizeof err), 0, "%s", err);
  check_file_is_report(&p, "csv", path);
  cr_assert_eq(stat(path, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
  cr_assert_eq(count_entries(dir), 2, "temporary file left");
  remove_tree(dir);
  free(dir);
}

Test(to_path, replaces_an_existing_report_keeping_its_mode) {
  li_profile p = known_profile();
  char *dir = temp_dir(), path[1100], err[256] = "";
  struct stat st;
  snprintf(path, sizeof path, "%s/report.csv", dir);
  write_text(path, "an older, much longer report that must disappear entirely "
                   "............................................................"
                   "............................................................"
                   "............................................................"
                   "............................................................"
                   "............................................................"
                   "............................................................"
                   "............................................................"
                   "............................................................"
                   "............................................................"
                   "............................................................\n");
  cr_assert_eq(chmod(path, 0640), 0);
  cr_assert_eq(li_report_to_path(&p, "csv", path, err, sizeof err), 0, "%s", err);
  check_file_is_report(&p, "csv", path);
  cr_assert_eq(stat(path, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0640, "mode %o", st.st_mode & 07777);
  cr_assert_eq(count_entries(dir), 1);
  remove_tree(dir);
  free(dir);
}

Test(to_path, dev_null_is_written_not_replaced) {
  li_profile p = known_profile();
  char err[256] = "";
  struct stat st;
  cr_assert_eq(li_report_to_path(&p, "text", "/dev/null", err, sizeof err), 0, "%s", err);
  cr_assert_eq(li_report_to_path(&p, "csv", "/dev/null", err, sizeof err), 0, "%s", err);
  cr_assert_eq(stat("/dev/null", &st), 0);
  cr_assert(S_ISCHR(st.st_mode), "/dev/null is no longer a character device");
}

Test(to_path, dev_full_reports_the_write_error) {
  li_profile p = known_profile();
  char err[256] = "";
  struct stat st;
  if (stat("/dev/full", &st) != 0) cr_skip_test("no /dev/full");
  cr_assert_eq(li_report_to_path(&p, "text", "/dev/full", err, sizeof err), -1);
  cr_assert_str_eq(err, "cannot write report to '/dev/full': No space left on device");
  cr_assert_eq(stat("/dev/full", &st), 0);
  cr_assert(S_ISCHR(st.st_mode));
}

Test(to_path, fifo_is_written_directly) {
  li_profile p = known_profile();
  char *dir = temp_dir(), path[1100], err[256] = "", buf[65536];
  struct stat st;
  size_t len;
  snprintf(path, sizeof path, "%s/pipe", dir);
  cr_assert_eq(mkfifo(path, 0600), 0);
  /* a reader first, so the writer's open does not wait; the report fits
  ** in the pipe's buffer */
  int rd = open(path, O_RDONLY | O_NONBLOCK);
  cr_assert_geq(rd, 0);
  cr_assert_eq(li_report_to_path(&p, "csv", path, err, sizeof err), 0, "%s", err);
  ssize_t n = read(rd, buf, sizeof buf);
  close(rd);
  char *want = report(&p, "csv", &len);
  cr_assert_eq((size_t)n, len);
  cr_assert(memcmp(buf, want, len) == 0);
  cr_assert_eq(stat(path, &st), 0);
  cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
  cr_assert_eq(count_entries(dir), 1);
  free(want);
  remove_tree(dir);
  free(dir);
}

Test(to_path, symlink_keeps_the_link) {
  li_profile p = known_profile();
  char *dir = temp_dir(), link[1100], target[1100], err[256] = "";
  struct stat st;
  snprintf(target, sizeof target, "%s/real.txt", dir);
  snprintf(link, sizeof link, "%s/link.txt", dir);
  write_text(target, "old\n");
  cr_assert_eq(symlink("real.txt", link), 0);
  cr_assert_eq(li_report_to_path(&p, "text", link, err, sizeof err), 0, "%s", err);
  cr_assert_eq(lstat(link, &st), 0);
  cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
  check_file_is_report(&p, "text", target);
  cr_assert_eq(count_entries(dir), 2);
  remove_tree(dir);
  free(dir);
}

Test(to_path, missing_directory_fails_cleanly) {
  li_profile p = known_profile();
  char *dir = temp_dir(), path[1100], want[1400], err[1400] = "";
  snprintf(path, sizeof path, "%s/no/such/dir/report.txt", dir);
  cr_assert_eq(li_report_to_path(&p, "text", path, err, sizeof err), -1);
  snprintf(want, sizeof want, "cannot write report to '%s': No such file or directory", path);
  cr_assert_str_eq(err, want);
  cr_assert_eq(count_entries(dir), 0);
  remove_tree(dir);
  free(dir);
}

Test(to_path, path_under_a_regular_file_fails_cleanly) {
  li_profile p = known_profile();
  char *dir = temp_dir(), file[1100], path[1200], want[1400], err[1400] = "";
  snprintf(file, sizeof file, "%s/somefile", dir);
  snprintf(path, sizeof path, "%s/x", file);
  write_text(file, "keep me\n");
  cr_assert_eq(li_report_to_path(&p, "csv", path, err, sizeof err), -1);
  snprintf(want, sizeof want, "cannot write report to '%s': Not a directory", path);
  cr_assert_str_eq(err, want);
  cr_assert_eq(count_entries(dir), 1);
  size_t len;
  char *kept = read_file(file, &len);
  cr_assert_str_eq(kept, "keep me\n");
  free(kept);
  remove_tree(dir);
  free(dir);
}

Test(to_path, directory_is_not_replaced) {
  li_profile p = known_profile();
  char *dir = temp_dir(), want[1400], err[1400] = "";
  struct stat st;
  cr_assert_eq(li_report_to_path(&p, "text", dir, err, sizeof err), -1);
  snprintf(want, sizeof want, "cannot write report to '%s': Is a directory", dir);
  cr_assert_str_eq(err, want);
  cr_assert_eq(stat(dir, &st), 0);
  cr_assert(S_ISDIR(st.st_mode));
  remove_tree(dir);
  free(dir);
}

/* A write that fails half way (the file size limit stands in for a full
** disk): the old report stays whole and no temporary file is left. */
Test(to_path, failed_write_leaves_old_report_and_no_temp_file) {
  li_profile p = known_profile();
  char *dir = temp_dir(), path[1100], fresh[1100], err[1400] = "";
  struct rlimit rl = { 200, 200 };
  size_t len;
  snprintf(path, sizeof path, "%s/report.txt", dir);
  snprintf(fresh, sizeof fresh, "%s/new.txt", dir);
  write_text(path, "old report\n");
  signal(SIGXFSZ, SIG_IGN);
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
  cr_assert_eq(li_report_to_path(&p, "text", path, err, sizeof err), -1);
  cr_assert_not_null(strstr(err, "cannot write report to '"), "%s", err);
  cr_assert_not_null(strstr(err, "File too large"), "%s", err);
  cr_assert_eq(li_report_to_path(&p, "csv", fresh, err, sizeof err), -1);
  cr_assert_not_null(strstr(err, fresh), "%s", err);
  char *old = read_file(path, &len);
  cr_assert_str_eq(old, "old report\n");
  free(old);
  cr_assert_eq(count_entries(dir), 1, "a temporary or partial file was left");
  remove_tree(dir);
  free(dir);
}

Test(to_path, zero_functions) {
  li_profile p = empty_profile();
  char *dir = temp_dir(), path[1100], err[256] = "";
  snprintf(path, sizeof path, "%s/empty.csv", dir);
  cr_assert_eq(li_report_to_path(&p, "csv", path, err, sizeof err), 0, "%s", err);
  size_t len;
  char *got = read_file(path, &len);
  cr_assert_str_eq(got, "name,source,line,lastline,calls,total_ns,self_ns,min_ns,max_ns,errors,"
    "alloc_bytes,alloc_count,free_bytes,live_bytes,peak_live_bytes,max_alloc_bytes,"
    "total_err_ns,self_err_ns,min_err_ns,max_err_ns,counted\n");
  free(got);
  remove_tree(dir);
  free(dir);
}

Test(to_path, unwritable_directory_fails_cleanly) {
  li_profile p = known_profile();
  char *dir = temp_dir(), path[1100], want[1400], err[1400] = "";
  if (geteuid() == 0) {
    remove_tree(dir);
    free(dir);
    cr_skip_test("root ignores directory permissions");
  }
  cr_assert_eq(chmod(dir, 0555), 0);
  snprintf(path, sizeof path, "%s/report.txt", dir);
  cr_assert_eq(li_report_to_path(&p, "text", path, err, sizeof err), -1);
  snprintf(want, sizeof want, "cannot write report to '%s': Permission denied", path);
  cr_assert_str_eq(err, want);
  cr_assert_eq(count_entries(dir), 0);
  cr_assert_eq(chmod(dir, 0755), 0);
  remove_tree(dir);
  free(dir);
}

/* /dev/stderr redirected to a file: stat() sees a regular file there, but
** the report must be added to the stream, and the /dev link left alone. */
Test(to_path, dev_stderr_redirected_to_a_file_is_appended_to) {
  li_profile p = known_profile();
  char *dir = temp_dir(), path[1100], err[256] = "";
  struct stat before, after;
  size_t len, flen;
  snprintf(path, sizeof path, "%s/log", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  cr_assert_geq(fd, 0);
  cr_assert_eq(lstat("/dev/stderr", &before), 0);
  fflush(stderr);
  int saved = dup(2);
  cr_assert_eq(dup2(fd, 2), 2);
  cr_assert_eq(write(2, "before\n", 7), 7);
  int st = li_report_to_path(&p, "csv", "/dev/stderr", err, sizeof err);
  dup2(saved, 2);
  close(saved);
  close(fd);
  cr_assert_eq(st, 0, "%s", err);
  cr_assert_eq(lstat("/dev/stderr", &after), 0);
  cr_assert_eq((before.st_mode & S_IFMT), (after.st_mode & S_IFMT));
  cr_assert_eq(before.st_ino, after.st_ino, "/dev/stderr was replaced");
  char *want = report(&p, "csv", &len);
  char *got = read_file(path, &flen);
  cr_assert_eq(flen, 7 + len);
  cr_assert(memcmp(got, "before\n", 7) == 0 && memcmp(got + 7, want, len) == 0);
  cr_assert_eq(count_entries(dir), 1);
  free(got);
  free(want);
  remove_tree(dir);
  free(dir);
}
