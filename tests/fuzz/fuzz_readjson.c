/*
** fuzz_readjson.c -- libFuzzer target: the json report's reader
** (li_read_json, report/readjson.c) and li_merge over any bytes.
**
** Properties: the reader never crashes, leaks or reads past the bytes
** (given in a block of exactly their size, so ASan sees any read beyond);
** it refuses them with "NAME:..." or gives a profile that every writer
** writes, whose `json` report reads back into a profile written the same
** (the reader is a fixed point after one pass), and that li_merge adds to
** itself.  Its seeds are real reports (scripts/fuzz.sh: tests/fuzz/
** readjson/); its dictionary the schema's words.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "json_check.h"
#include "reader.h"
#include "report.h"
#include "writers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
#define FORMAT_NAME(id, name, binary) name,
  static const char *const formats[] = { LI_REPORT_FORMATS(FORMAT_NAME) };
#undef FORMAT_NAME
  char err[512], *once = NULL, *twice = NULL;
  size_t n1 = 0, n2 = 0;
  uint8_t *copy = malloc(size ? size : 1);
  li_profile *p, *back, *m;
  const li_profile *two[2];
  FZ_CHECK(copy != NULL, "malloc");
  if (size) memcpy(copy, data, size);
  err[0] = '\0';
  p = li_read_json(copy, size, "in", err, sizeof err);
  free(copy);
  if (p == NULL) {
    FZ_CHECK(strncmp(err, "in:", 3) == 0 && strlen(err) > 4, "message '%s'", err);
    return 0;
  }
  for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
    char *out = NULL;
    size_t len = 0;
    FZ_CHECK(li_report_to_string(p, formats[i], &out, &len) == 0,
             "%s: the writer failed", formats[i]);
    if (strcmp(formats[i], "chrome") == 0)
      FZ_CHECK(fz_json_valid(out, len, err, sizeof err), "chrome: %s", err);
    free(out);
  }
  FZ_CHECK(li_report_to_string(p, "json", &once, &n1) == 0, "json");
  FZ_CHECK(fz_json_valid(once, n1, err, sizeof err), "json: %s", err);
  back = li_read_json(once, n1, "once", err, sizeof err);
  FZ_CHECK(back != NULL, "its json does not read back: %s\n%.*s", err,
           (int)n1, once);
  FZ_CHECK(li_report_to_string(back, "json", &twice, &n2) == 0, "json");
  FZ_CHECK(n1 == n2 && memcmp(once, twice, n1) == 0,
           "read back, its json differs:\n%.*s\n%.*s", (int)n1, once,
           (int)n2, twice);
  two[0] = p;
  two[1] = back;
  m = li_merge(two, 2, err, sizeof err);
  FZ_CHECK(m != NULL, "li_merge: %s", err);
  FZ_CHECK(m->nnodes <= p->nnodes && m->nfuncs <= p->nfuncs,
           "li_merge of a profile with itself has more nodes or functions");
  li_profile_free(m);
  li_profile_free(back);
  li_profile_free(p);
  free(once);
  free(twice);
  return 0;
}
