/*
** test_chrome.c -- the `chrome` writer on a known trace: golden output,
** balance when the trace starts inside a frame and ends with frames open,
** dropped events said, names escaped, trace mode off said.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report.h"

static li_pfunc funcs[] = {
  {"main chunk", "m.lua", 0, 0, 0, 1, 0, 0, 0, 0, 0, {0}},
  {"M.f", "m.lua", 0, 3, 5, 2, 1, 0, 0, 0, 0, {0}},
  {"t[\"</script>\"]", "m.lua", 0, 7, 9, 1, 0, 0, 0, 0, 0, {0}},
  {"bad\xff\n", "m.lua", 0, 11, 12, 1, 0, 0, 0, 0, 0, {0}},
};

static li_pevent events[] = {
  {500, 1, 0, 'E'},        /* exit of a frame entered before the trace */
  {1000, 0, 0, 'B'},
  {2000, 1, 0, 'B'},
  {2500, 2, 1, 'B'},       /* in coroutine 1 */
  {2600, 0, 1, 'Y'},
  {3000, 1, 0, 'X'},       /* M.f ends by an error */
  {3100, 0, 1, 'R'},
  {3200, 2, 1, 'E'},
  {4001, 3, 0, 'B'},       /* still open when the trace ends */
};

static li_profile profile(int with_events) {
  li_profile p;
  memset(&p, 0, sizeof p);
  p.funcs = funcs;
  p.nfuncs = 4;
  p.tracing = with_events;
  if (with_events) {
    p.events = events;
    p.nevents = sizeof events / sizeof events[0];
    p.events_dropped = 7;
    p.trace_capacity = 9;
  }
  return p;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  char *s;
  long n;
  cr_assert_not_null(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  s = malloc((size_t)n + 1);
  cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = '\0';
  fclose(f);
  return s;
}

Test(chrome, golden) {
  li_profile p = profile(1);
  char *out = NULL, *want;
  size_t n = 0;
  cr_assert_eq(li_report_to_string(&p, "chrome", &out, &n), 0);
  want = read_file(LI_TEST_DIR "/golden/report/trace.chrome");
  cr_assert_str_eq(out, want);
  free(out);
  free(want);
}

Test(chrome, json_parser_reads_it) {
  li_profile p = profile(1);
  char path[] = "/tmp/li-chrome-XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  char cmd[256];
  cr_assert_eq(li_report_write(&p, "chrome", f), 0);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
           "assert d[\"otherData\"][\"events_dropped\"]==7' %s", path);
  cr_assert_eq(system(cmd), 0, "python3's json module rejects the trace");
  remove(path);
}

Test(chrome, off_says_so) {
  li_profile p = profile(0);
  char *out = NULL;
  size_t n = 0;
  cr_assert_eq(li_report_to_string(&p, "chrome", &out, &n), 0);
  cr_assert_not_null(strstr(out, "\"traceEvents\":[\n]"));
  cr_assert_not_null(strstr(out, "trace mode was off"));
  free(out);
}
