/*
** bad_input.c -- real json reports, cut and garbled, read by li_read_json
** (tests/merge/run.sh runs it on the reports it made; the sanitizer build
** runs it under ASan and UBSan).
**
**   bad_input REPORT.json...
**
** For each report: it reads back and writes the same bytes (json); every
** truncation of it, each given in a block of exactly its size (so that
** ASan sees a read past the end), is refused with a message that names
** the report, except those that keep the whole document (the cut falls in
** the white space after it), which read back the same; GARBLES bytes,
** evenly spread, each replaced by each of a few bytes that JSON gives
** meaning to, are either refused with such a message or read into a
** profile that is written (the reader's checks are what the writers rely
** on): in every format the first WRITE_ALL times (html, with its script's
** hash, is most of the test's time), as json after that.
** Then li_merge of all the reports at once gives the csv (and call tree,
** as folded-calls) that merging them one at a time does, as `luainstr
** merge` does.  Prints what it did; exit status 1 on the first failure.
*/
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "report.h"

#define GARBLES 256       /* bytes garbled per report (all: seconds) */
#define WRITE_ALL 16      /* garbled copies that read, written in every
                             format (per report) */

static int failed;

#define CHECK(cond, ...) \
  do { \
    if (!(cond)) { \
      fprintf(stderr, "bad_input: " __VA_ARGS__); \
      fputc('\n', stderr); \
      failed = 1; \
      return -1; \
    } \
  } while (0)

/* The json of p in a malloc'd string. */
static char *json_of(const li_profile *p, size_t *len) {
  char *s = NULL;
  if (li_report_to_string(p, "json", &s, len) != 0) return NULL;
  return s;
}

/* Read len bytes of data (copied into a block of exactly that size).  The
** profile, or NULL with a message that must name name. */
static li_profile *read_exact(const char *name, const char *data, size_t len,
                              char *err, size_t errlen) {
  char *copy = malloc(len ? len : 1);
  li_profile *p;
  if (copy == NULL) return NULL;
  memcpy(copy, data, len);
  err[0] = '\0';
  p = li_read_json(copy, len, name, err, errlen);
  free(copy);
  return p;
}

/* Every format written from p without error (all 0: json only). */
static int write_all_formats(const li_profile *p, const char *what,
                             int all) {
  static const char *const formats[] = {"json", "text", "csv", "folded",
    "folded-calls", "folded-alloc", "callgrind", "chrome", "html"};
  for (size_t i = 0; i < (all ? sizeof formats / sizeof *formats : 1); i++) {
    char *s = NULL;
    size_t n = 0;
    int rc = li_report_to_string(p, formats[i], &s, &n);
    free(s);
    CHECK(rc == 0, "%s: the %s writer failed", what, formats[i]);
  }
  return 0;
}

static int check_report(const char *path, const char *data, size_t size,
                        unsigned long *reads) {
  char err[512];
  size_t len, end = size;
  char *back;
  li_profile *p = read_exact(path, data, size, err, sizeof err);
  CHECK(p != NULL, "%s does not read: %s", path, err);
  back = json_of(p, &len);
  CHECK(back != NULL && len == size && memcmp(back, data, size) == 0,
        "%s: read and written again, it is not the same bytes", path);
  free(back);
  CHECK(write_all_formats(p, path, 1) == 0, "%s: a writer failed", path);
  li_profile_free(p);
  /* the document ends at its closing '}' */
  while (end > 0 && data[end - 1] != '}') end--;
  CHECK(end > 0, "%s: no closing brace", path);
  for (size_t cut = 0; cut < size; cut++) {
    p = read_exact(path, data, cut, err, sizeof err);
    ++*reads;
    if (cut < end) {
      CHECK(p == NULL, "%s cut to %zu bytes (of %zu) reads", path, cut, size);
      CHECK(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':',
            "%s cut to %zu bytes: message '%s' does not name it", path, cut,
            err);
    } else {
      CHECK(p != NULL, "%s cut to %zu bytes (after its end) does not read: "
            "%s", path, cut, err);
      li_profile_free(p);
    }
  }
  {
    static const char bytes[] = {'"', '}', ']', ',', '9', '-', 'n', '\\',
                                 '\0', (char)0xff};
    char *g = malloc(size);
    int read = 0;
    CHECK(g != NULL, "out of memory");
    memcpy(g, data, size);
    size_t stride = size / GARBLES > 0 ? size / GARBLES : 1;
    for (size_t at = 0; at < size; at += stride) {
      for (size_t b = 0; b < sizeof bytes; b++) {
        if (data[at] == bytes[b]) continue;
        g[at] = bytes[b];
        p = read_exact(path, g, size, err, sizeof err);
        ++*reads;
        if (p == NULL) {
          if (strncmp(err, path, strlen(path)) != 0) {
            free(g);
            CHECK(0, "%s garbled at %zu: message '%s' does not name it",
                  path, at, err);
          }
        } else {
          /* a garbled figure reads (the reader checks the document, not
             that its figures agree): the suite's check of every report
             (LUAINSTR_CHECK) would stop at it, so it is off meanwhile */
          const char *check = getenv("LUAINSTR_CHECK");
          char *keep = check != NULL ? strdup(check) : NULL;
          int rc;
          unsetenv("LUAINSTR_CHECK");
          rc = write_all_formats(p, path, read++ < WRITE_ALL);
          if (keep != NULL) setenv("LUAINSTR_CHECK", keep, 1);
          free(keep);
          li_profile_free(p);
          if (rc != 0) {
            free(g);
            return -1;
          }
        }
      }
      g[at] = data[at];
    }
    free(g);
  }
  return 0;
}

/* li_merge of n profiles at once, and one at a time: the same csv and
** folded-calls reports. */
static int check_grouping(li_profile **in, int n) {
  static const char *const formats[] = {"csv", "folded-calls"};
  char err[256];
  li_profile *all = li_merge((const li_profile *const *)in, (size_t)n, err,
                             sizeof err), *acc = NULL;
  CHECK(all != NULL, "li_merge: %s", err);
  for (int k = 1; k < n; k++) {
    const li_profile *two[2];
    li_profile *next;
    two[0] = acc != NULL ? acc : in[0];
    two[1] = in[k];
    next = li_merge(two, 2, err, sizeof err);
    CHECK(next != NULL, "li_merge: %s", err);
    li_profile_free(acc);
    acc = next;
  }
  for (size_t i = 0; i < 2; i++) {
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    int same = li_report_to_string(all, formats[i], &a, &na) == 0 &&
               li_report_to_string(acc, formats[i], &b, &nb) == 0 &&
               na == nb && memcmp(a, b, na) == 0;
    free(a);
    free(b);
    CHECK(same, "%d reports merged at once and one at a time: the %s "
          "reports differ", n, formats[i]);
  }
  li_profile_free(all);
  li_profile_free(acc);
  return 0;
}

int main(int argc, char **argv) {
  unsigned long reads = 0;
  li_profile *in[16];
  char err[512];
  int nin = 0;
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    char *data;
    long size;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
      fprintf(stderr, "bad_input: cannot read %s\n", argv[i]);
      return 1;
    }
    data = malloc((size_t)size);
    if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) {
      fprintf(stderr, "bad_input: cannot read %s\n", argv[i]);
      return 1;
    }
    fclose(f);
    check_report(argv[i], data, (size_t)size, &reads);
    if (!failed && nin < 16 &&
        (in[nin++] = li_read_json(data, (size_t)size, argv[i], err,
                                  sizeof err)) == NULL) {
      fprintf(stderr, "bad_input: %s\n", err);
      return 1;
    }
    free(data);
    if (failed) return 1;
  }
  if (nin >= 3 && check_grouping(in, nin) != 0) return 1;
  for (int k = 0; k < nin; k++) li_profile_free(in[k]);
  printf("bad_input: %d reports, %lu cut or garbled copies read: each "
         "refused with a message naming it, or read and written\n",
         argc - 1, reads);
  return 0;
}
