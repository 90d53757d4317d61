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
#include <unistd.h>

#include "report.h"

/* ---- the known profile ---------------------------------------------------- */

/* Functions in no particular order, as the model allows.  Report order, by
** self time desc, then total desc, then name (bytes):
**   3 M.parse (800 ms), 6 t["a,b"] (400 ms), 4 main chunk (100 ms),
**   7 multi... (5 us, total 9999 ns), 5 <script>... (5 us, total 5 us,
**   '<' = 0x3c), 2 caf\xe9... (5 us, total 5 us, 'c' = 0x63),
**   1 " spaced " (0); 0 "never" has no calls and is left out. */
static li_pfunc funcs[] = {
  { "never", "main.lua", 50, 52, 0, 0, 0, 0, 0, 0 },
  { " spaced ", "sp ace.lua", 1, 1, 1, 0, 0, 0, 0, 0 },
  { "caf\xe9 \xcf\x80", "utf.lua", 20, 22, 7, 0, 5000, 5000, 700, 800 },
  { "M.parse", "main.lua", 10, 40, 1000, 2, 1200000000, 800000000, 500000, 3456789 },
  { "main chunk", "main.lua", 0, 0, 1, 0, 1900000000, 100000000, 1900000000, 1900000000 },
  { "<script>alert(1);</script>", "web.lua", 7, 9, 3, 0, 5000, 5000, 1000, 2500 },
  { "t[\"a,b\"]", "[string \"x\"]", 3, 5, 250000, 1, 400000000, 400000000, 999, 999999 },
  { "multi\nline\r\n\tname", "dir,x/odd.lua", 30, 31, 3, 3, 9999, 5000, 2000, 4000 },
};
#define NFUNCS (sizeof funcs / sizeof funcs[0])

/* A small call tree: main -> M.parse -> t["a,b"], main -> <script> -> multi. */
static li_pnode nodes[] = {
  { UINT32_MAX, 0, 0, 0, 0, 0 },
  { 4, 0, 1, 0, 1900000000, 100000000 },
  { 3, 1, 1000, 2, 1200000000, 800000000 },
  { 6, 2, 250000, 1, 400000000, 400000000 },
  { 5, 1, 3, 0, 14999, 5000 },
  { 7, 4, 3, 3, 9999, 5000 },
};

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
  p.clock = "tsc";
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

#define MAXF 16
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

Test(golden, zero_functions) {
  li_profile p = empty_profile();
  check_golden(&p, "text", "empty.txt");
  check_golden(&p, "csv", "empty.csv");
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
  for (int r = 0; r < t.nrows; r++) cr_assert_eq(t.nfields[r], 10, "row %d", r);
  cr_assert_str_eq(t.field[0][0], "name");
  cr_assert_str_eq(t.field[0][9], "errors");
  for (int r = 1; r < t.nrows; r++) {
    const li_pfunc *fn = &funcs[order[r - 1]];
    char num[8][32];
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
    for (int k = 0; k < 8; k++)
      cr_assert_str_eq(t.field[r][2 + k], num[k], "row %d field %d", r, 2 + k);
  }
  csv_free(&t);
  free(out);
}

Test(csv, quotes_only_what_needs_it) {
  static li_pfunc f[] = {
    { "plain", "a.lua", 1, 2, 5, 0, 50, 50, 10, 10 },
    { "a\"b", "lead sp", 1, 2, 4, 0, 40, 40, 10, 10 },
    { " lead", "trail ", 1, 2, 3, 0, 30, 30, 10, 10 },
    { "cr\rx", "", 1, 2, 2, 0, 20, 20, 10, 10 },
    { "semi;colon", "tab\tinside", 1, 2, 1, 0, 10, 10, 10, 10 },
  };
  li_profile p = empty_profile();
  p.funcs = f;
  p.nfuncs = 5;
  size_t len;
  char *out = report(&p, "csv", &len);
  cr_assert_str_eq(out,
    "name,source,line,lastline,calls,total_ns,self_ns,min_ns,max_ns,errors\n"
    "plain,a.lua,1,2,5,50,50,10,10,0\n"
    "\"a\"\"b\",lead sp,1,2,4,40,40,10,10,0\n"
    "\" lead\",\"trail \",1,2,3,30,30,10,10,0\n"
    "\"cr\rx\",,1,2,2,20,20,10,10,0\n"
    "semi;colon,tab\tinside,1,2,1,10,10,10,10,0\n");
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
  li_pfunc f = { "f", "f.lua", 1, 2, 1, 0, ns, ns, ns, ns };
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

Test(text, open_frames_and_no_wall_time) {
  li_pfunc f[] = {
    { "a", "a.lua", 1, 2, 1, 0, 300, 300, 300, 300 },
    { "b", "a.lua", 5, 6, 1, 0, 100, 100, 100, 100 },
  };
  li_profile p = empty_profile();
  p.funcs = f;
  p.nfuncs = 2;
  p.open_frames = 2;
  p.clock = NULL;
  size_t len;
  char *out = report(&p, "text", &len);
  cr_assert_not_null(strstr(out, "clock unknown, 2 frames still open\n"), "%s", out);
  /* without a wall time, shares are of the total self time */
  cr_assert_not_null(strstr(out, "75.0%"), "%s", out);
  cr_assert_not_null(strstr(out, "25.0%"), "%s", out);
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
  cr_assert_str_eq(li_report_formats(), "text, csv");
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
  cr_assert_str_eq(err, "unknown report format 'xml' (known: text, csv)");
  cr_assert_eq(count_entries(dir), 0);
  remove_tree(dir);
  free(dir);
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
  cr_assert_str_eq(got, "name,source,line,lastline,calls,total_ns,self_ns,min_ns,max_ns,errors\n");
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
