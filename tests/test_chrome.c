/*
** test_chrome.c -- the `chrome` writer on a known trace: golden output,
** balance when the trace starts inside a frame and ends with frames open,
** dropped events said, names escaped, trace mode off said; frame marking's
** frames on a track of their own (also without trace mode), frame marks as
** global instants, zones in a category of their own.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report.h"
#include "chrome_check.h"

static li_pfunc funcs[] = {
  {"main chunk", "m.lua", 0, 0, 0, 1, 0, 0, 0, 0, 0, {0}, 0, 0, 0, 0, 0},
  {"M.f", "m.lua", 0, 3, 5, 2, 1, 0, 0, 0, 0, {0}, 0, 0, 0, 0, 0},
  {"t[\"</script>\"]", "m.lua", 0, 7, 9, 1, 0, 0, 0, 0, 0, {0}, 0, 0, 0, 0, 0},
  {"bad\xff\n", "m.lua", 0, 11, 12, 1, 0, 0, 0, 0, 0, {0}, 0, 0, 0, 0, 0},
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

/* ---- frames and zones ------------------------------------------------------ */

static li_pfunc game_funcs[] = {
  {"main chunk", "g.lua", 0, 0, 0, 1, 0, 0, 0, 0, 0, {0}, 0, 0, 0, 0, 0},
  {"zone physics", "zone", 1, 0, 0, 2, 0, 0, 0, 0, 0, {0}, 0, 0, 0, 0, 0},
};

static li_pevent game_events[] = {
  {1000, 0, 0, 'B'},
  {1500, 1, 0, 'B'},
  {2500, 1, 0, 'E'},
  {3000, UINT32_MAX, 0, 'F'},
  {3500, 1, 0, 'B'},
  {9000, 1, 0, 'E'},
  {9500, UINT32_MAX, 0, 'F'},
  {9700, 0, 0, 'E'},
};

static li_pframe game_frames[] = {
  {1, 0, 3000, 2, 0, 0, 0},
  {2, 3000, 6500, 1, 4096, 1, 0},  /* a spike, its tree kept */
};

static li_profile game_profile(int with_events) {
  li_profile p;
  memset(&p, 0, sizeof p);
  p.funcs = game_funcs;
  p.nfuncs = 2;
  p.tracing = with_events;
  if (with_events) {
    p.events = game_events;
    p.nevents = sizeof game_events / sizeof game_events[0];
    p.trace_capacity = 100;
  }
  p.framing = 1;
  p.frames = game_frames;
  p.nframes = 2;
  p.frames_marked = 2;
  p.frame_capacity = 10;
  p.spikes_seen = 1;
  return p;
}

Test(chrome, frames_track_without_trace) {
  li_profile p = game_profile(0);
  cr_assert_eq(chrome_check(&p,
    "fr = [e for e in ev if e.get(\"cat\") == \"frame\"]\n"
    "assert [e[\"name\"] for e in fr] == [\"frame 1\", \"frame 2\"], fr\n"
    "assert all(e[\"ph\"] == \"X\" and e[\"tid\"] == fr[0][\"tid\"] for e in fr)\n"
    "assert fr[1][\"ts\"] == 3.0 and fr[1][\"dur\"] == 6.5, fr\n"
    "assert fr[1][\"args\"][\"spike\"] is True and \"cname\" in fr[1], fr\n"
    "assert fr[0][\"args\"][\"spike\"] is False and \"cname\" not in fr[0]\n"
    "names = {e[\"args\"][\"name\"] for e in ev if e[\"name\"] == \"thread_name\"}\n"
    "assert names == {\"frames\"}, names\n"
    "assert d[\"otherData\"][\"framing\"] is True and d[\"otherData\"][\"frames\"] == 2\n"), 0);
}

Test(chrome, frame_marks_and_zones) {
  li_profile p = game_profile(1);
  cr_assert_eq(chrome_check(&p,
    "marks = [e for e in ev if e[\"name\"] == \"frame mark\"]\n"
    "assert [(m[\"ph\"], m[\"s\"], m[\"ts\"]) for m in marks] == "
    "[(\"i\", \"g\", 3.0), (\"i\", \"g\", 9.5)], marks\n"
    "z = [e for e in ev if e.get(\"cat\") == \"zone\"]\n"
    "assert len(z) == 4 and all(e[\"name\"] == \"zone physics\" for e in z), z\n"
    "assert [e[\"ph\"] for e in z] == [\"B\", \"E\", \"B\", \"E\"]\n"
    "lua = [e for e in ev if e.get(\"cat\") == \"lua\"]\n"
    "assert [e[\"name\"] for e in lua] == [\"main chunk (g.lua)\"] * 2, lua\n"
    "assert len([e for e in ev if e.get(\"cat\") == \"frame\" and e[\"ph\"] == \"X\"]) == 2\n"), 0);
}

/* The note on dropped events was written last and left the separator
** state as it was: frames after it broke the JSON (found by fuzz_report). */
Test(chrome, frames_after_dropped_events) {
  li_profile p = game_profile(1);
  p.events_dropped = 3;
  cr_assert_eq(chrome_check(&p,
    "assert any(\"events dropped\" in e[\"name\"] for e in ev)\n"
    "assert len([e for e in ev if e.get(\"cat\") == \"frame\" and e[\"ph\"] == \"X\"]) == 2\n"), 0);
}
