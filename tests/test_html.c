/*
** test_html.c -- Criterion tests of the `html` report: a profile whose names
** hold markup, quotes, line breaks, semicolons and bytes that are not UTF-8
** renders to valid UTF-8 in which no name can open or close an element;
** the data block reads back; a profile of 10,000 functions and 100,000
** call-tree nodes stays small.  With LI_HTML_DIR set, the html_files tests
** also write nasty.html and large.html there for a real browser
** (tests/report/html_chromium.sh).
*/
#define _XOPEN_SOURCE 700
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "report.h"
#include "known_profile.h"

/* ---- profiles ------------------------------------------------------------ */

/* test_report.c's known profile, plus names built to run script if a
** writer let markup through. */
static li_pfunc funcs[] = {
  LI_KNOWN_FUNCS,
  { "t[\"<img src=x onerror=\\\"document.title='pwned'\\\">\"]", "<b>evil</b>.lua",
    60, 61, 2, 0, 90000000, 90000000, 40000000, 50000000 },
  { "</script><script>document.title='pwned'</script>", "a&amp;b;c.lua",
    70, 71, 2, 0, 80000000, 80000000, 40000000, 40000000 },
  { "<!-- x --> \xe2\x80\xa8 \xff\xfe ]]></title>", "\xc0\xaf.lua",
    80, 81, 1, 0, 70000000, 70000000, 70000000, 70000000 },
};
#define NFUNCS (sizeof funcs / sizeof funcs[0])

static li_pnode nodes[] = {
  LI_KNOWN_NODES,
  { 8, 1, 2, 0, 90000000, 90000000 },
  { 9, 1, 2, 0, 80000000, 80000000 },
  { 10, 1, 1, 0, 70000000, 70000000 },
  { 2, 2, 7, 0, 5000, 5000 },
};

static li_profile nasty_profile(void) {
  li_profile p;
  memset(&p, 0, sizeof p);
  p.funcs = funcs;
  p.nfuncs = (uint32_t)NFUNCS;
  p.nodes = nodes;
  p.nnodes = (uint32_t)(sizeof nodes / sizeof nodes[0]);
  p.wall_ns = 2000000000;
  p.probes = 502030;
  p.overhead_ns = 987654;
  p.probe_pair_ns = 3.93;
  p.clock = "tsc";
  p.warnings = "main.lua:3: function 'big' left without probes: too many upvalues\n"
               "web.lua:1: odd\tname \x1b[31mred <script>document.title='pwned'</script>\n";
  return p;
}

/* A random-looking but fixed profile of nf functions and nn nodes (a random
** recursive tree, so about 30 levels deep); free with free_large. */
static li_profile large_profile(uint32_t nf, uint32_t nn) {
  li_profile p;
  uint64_t seed = 0x9e3779b97f4a7c15u;
  char buf[64];
  memset(&p, 0, sizeof p);
  p.funcs = calloc(nf, sizeof *p.funcs);
  p.nodes = calloc(nn, sizeof *p.nodes);
  cr_assert(p.funcs != NULL && p.nodes != NULL);
  p.nfuncs = nf;
  p.nnodes = nn;
  for (uint32_t i = 0; i < nf; i++) {
    if (i == 0) snprintf(buf, sizeof buf, "main chunk");
    else if (i % 1000 == 7) snprintf(buf, sizeof buf, "<script>document.title='pwned%u'</script>", i);
    else snprintf(buf, sizeof buf, "mod%u.fn_%u", i % 97, i);
    p.funcs[i].name = strdup(buf);
    snprintf(buf, sizeof buf, "src/module_%u.lua", i % 97);
    p.funcs[i].source = strdup(buf);
    p.funcs[i].line = i == 0 ? 0 : 1 + i % 5000;
    p.funcs[i].lastline = i == 0 ? 0 : 3 + i % 5000;
  }
  p.nodes[0].func = UINT32_MAX;
  for (uint32_t i = 1; i < nn; i++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    uint32_t r = (uint32_t)(seed >> 33);
    p.nodes[i].parent = i == 1 ? 0 : 1 + r % (i - 1);
    p.nodes[i].func = i == 1 ? 0 : 1 + r % (nf - 1);
    p.nodes[i].calls = 1 + r % 50;
    p.nodes[i].errors = r % 101 == 0;
    p.nodes[i].self_ns = 1000 + (uint64_t)(r % 100000) * (r % 7 == 0 ? 100 : 1);
  }
  for (uint32_t i = nn - 1; i >= 1; i--) {
    li_pnode *nd = &p.nodes[i];
    li_pfunc *fn = &p.funcs[nd->func];
    nd->total_ns += nd->self_ns;
    if (i > 1) p.nodes[nd->parent].total_ns += nd->total_ns;
    fn->calls += nd->calls;
    fn->errors += nd->errors;
    fn->self_ns += nd->self_ns;
    fn->total_ns += nd->total_ns;
    fn->max_ns = nd->total_ns > fn->max_ns ? nd->total_ns : fn->max_ns;
    fn->min_ns = fn->min_ns == 0 || nd->total_ns / nd->calls < fn->min_ns
                 ? nd->total_ns / nd->calls : fn->min_ns;
  }
  p.wall_ns = p.nodes[1].total_ns + 1000000;
  p.probes = 2 * (uint64_t)nn;
  p.overhead_ns = 42 * (uint64_t)nn;
  p.probe_pair_ns = 42.0;
  p.clock = "tsc";
  return p;
}

static void free_large(li_profile *p) {
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    free((char *)p->funcs[i].name);
    free((char *)p->funcs[i].source);
  }
  free(p->funcs);
  free(p->nodes);
}

/* ---- helpers ------------------------------------------------------------- */

static char *html(const li_profile *p, size_t *len) {
  char *out;
  cr_assert_eq(li_report_to_string(p, "html", &out, len), 0, "%s", strerror(errno));
  cr_assert_not_null(out);
  cr_assert_eq(strlen(out), *len, "a NUL byte in the page");
  return out;
}

/* Offset of the first byte that is not well-formed UTF-8, or -1. */
static long bad_utf8_at(const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < len;) {
    unsigned c = p[i], lo = 0x80, hi = 0xbf;
    size_t n;
    if (c < 0x80) { i++; continue; }
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) n = 3;
    else if (c >= 0xf0 && c <= 0xf4) n = 4;
    else return (long)i;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (i + n > len || p[i + 1] < lo || p[i + 1] > hi) return (long)i;
    for (size_t k = 2; k < n; k++)
      if ((p[i + k] & 0xc0) != 0x80) return (long)i;
    i += n;
  }
  return -1;
}

/* Occurrences of needle in s, ignoring case. */
static int count_ci(const char *s, const char *needle) {
  int n = 0;
  size_t k = strlen(needle);
  for (; *s != '\0'; s++)
    if (strncasecmp(s, needle, k) == 0) n++;
  return n;
}

/* The JSON data block, malloc'd. */
static char *data_block(const char *page) {
  const char *open = "<script type=\"application/json\" id=\"li-data\">";
  const char *a = strstr(page, open), *b;
  cr_assert_not_null(a, "no data block");
  a += strlen(open);
  b = strstr(a, "</script>");
  cr_assert_not_null(b);
  return strndup(a, (size_t)(b - a));
}

/* ---- tests --------------------------------------------------------------- */

Test(html, nasty_names_are_escaped) {
  li_profile p = nasty_profile();
  size_t len;
  char *out = html(&p, &len);
  long bad = bad_utf8_at(out, len);
  cr_assert_eq(bad, -1, "not UTF-8 at byte %ld", bad);
  cr_assert(strncmp(out, "<!DOCTYPE html>\n", 16) == 0);
  cr_assert(len > 7 && strcmp(out + len - 8, "</html>\n") == 0);
  /* only the page's own two script elements; nothing from the data opens
  ** an element, a comment or a CDATA section */
  cr_assert_eq(count_ci(out, "<script"), 2, "%d", count_ci(out, "<script"));
  cr_assert_eq(count_ci(out, "</script"), 2);
  cr_assert_eq(count_ci(out, "<img"), 0);
  cr_assert_eq(count_ci(out, "<b>"), 0);
  cr_assert_eq(count_ci(out, "<!--"), 0);
  cr_assert_eq(count_ci(out, "</title"), 1);
  cr_assert_eq(count_ci(out, "pwned"), 3);   /* 2 names, 1 warning */
  char *data = data_block(out);
  cr_assert_null(strpbrk(data, "<>&"), "markup characters in the data");
  for (const char *c = data; *c != '\0'; c++)
    cr_assert((unsigned char)*c >= 0x20 || *c == '\n', "control byte in the data");
  /* every name is there, escaped */
  static const char *const want[] = {
    "\"\\u003cscript\\u003ealert(1);\\u003c/script\\u003e\"",
    "\"caf\\u00e9 \xcf\x80\"",
    "\"multi\\nline\\r\\n\\tname\"",
    "\"t[\\\"a,b\\\"]\"",
    "\"[string \\\"x\\\"]\"",
    "\" spaced \"",
    "\"M.parse\"",
    "\"never\"",
    "\"t[\\\"\\u003cimg src=x onerror=\\\\\\\"document.title='pwned'\\\\\\\"\\u003e\\\"]\"",
    "\"\\u003c/script\\u003e\\u003cscript\\u003edocument.title='pwned'\\u003c/script\\u003e\"",
    "\"\\u003c!-- x --\\u003e \\u2028 \\u00ff\\u00fe ]]\\u003e\\u003c/title\\u003e\"",
    "\"\\u003cb\\u003eevil\\u003c/b\\u003e.lua\"",
    "\"a\\u0026amp;b;c.lua\"",
    "\"\\u00c0\\u00af.lua\"",
    "\"web.lua:1: odd\\tname \\u001b[31mred \\u003cscript\\u003edocument.title='pwned'\\u003c/script\\u003e\"",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    cr_assert_not_null(strstr(data, want[i]), "missing %s in\n%s", want[i], data);
  /* each source once */
  cr_assert_eq(count_ci(data, "\"main.lua\""), 1);
  free(data);
  free(out);
}

Test(html, self_contained_and_locked_down) {
  li_profile p = nasty_profile();
  size_t len;
  char *out = html(&p, &len);
  /* the page around the data (which holds " src=" in a name) */
  char *data = data_block(out), *at = strstr(out, data);
  memmove(at, at + strlen(data), strlen(at + strlen(data)) + 1);
  free(data);
  cr_assert_not_null(strstr(out, "<meta http-equiv=\"Content-Security-Policy\" "
                                 "content=\"default-src 'none'; script-src 'sha256-"));
  cr_assert_eq(count_ci(out, "http://"), 0);
  cr_assert_eq(count_ci(out, "https://"), 0);
  cr_assert_eq(count_ci(out, " src="), 0);
  cr_assert_eq(count_ci(out, "innerHTML"), 0);
  cr_assert_eq(count_ci(out, "insertAdjacentHTML"), 0);
  cr_assert_eq(count_ci(out, "document.write"), 0);
  free(out);
}

Test(html, data_numbers) {
  li_profile p = nasty_profile();
  size_t len;
  char *out = html(&p, &len);
  char *data = data_block(out);
  cr_assert_not_null(strstr(data, "\"wall_ns\":2000000000,\"probes\":502030,"
                                  "\"overhead_ns\":987654,\"probe_pair_ns\":3.930,"
                                  "\"clock\":\"tsc\",\"open_frames\":0"), "%s", data);
  /* root, then main chunk (function 4) under it, M.parse (3) one back */
  cr_assert_not_null(strstr(data, "\"nodes\":[\n-1,0,0,0,0,\n4,1,1,1900000000,100000000,\n"
                                  "3,1,1000,1200000000,800000000,\n"), "%s", data);
  cr_assert_not_null(strstr(data, "\"node_errors\":[2,2,3,1,5,3]"), "%s", data);
  free(data);
  free(out);
}

Test(html, empty_profile) {
  li_profile p;
  memset(&p, 0, sizeof p);
  size_t len;
  char *out = html(&p, &len);
  char *data = data_block(out);
  cr_assert_not_null(strstr(data, "\"clock\":\"unknown\""));
  cr_assert_not_null(strstr(data, "\"warnings\":[]"));
  cr_assert_not_null(strstr(data, "\"nodes\":[\n-1,0,0,0,0]"), "%s", data);
  free(data);
  free(out);
}

Test(html, large_profile_stays_small, .timeout = 60) {
  li_profile p = large_profile(10000, 100000);
  size_t len;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  char *out = html(&p, &len);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  cr_log_info("large profile: %zu bytes in %.3f s", len, s);
  cr_assert_lt(len, 10u << 20, "%zu bytes", len);
  cr_assert_eq(count_ci(out, "<script"), 2);
  cr_assert_eq(bad_utf8_at(out, len), -1);
  free(out);
  free_large(&p);
}

/* ---- pages for the browser test ------------------------------------------- */

static void write_page(const li_profile *p, const char *file) {
  const char *dir = getenv("LI_HTML_DIR");
  char path[4096], err[512] = "";
  if (dir == NULL) cr_skip_test("LI_HTML_DIR not set");
  snprintf(path, sizeof path, "%s/%s", dir, file);
  cr_assert_eq(li_report_to_path(p, "html", path, err, sizeof err), 0, "%s", err);
}

Test(html_files, nasty) {
  li_profile p = nasty_profile();
  write_page(&p, "nasty.html");
}

Test(html_files, large, .timeout = 60) {
  li_profile p = large_profile(10000, 100000);
  write_page(&p, "large.html");
  free_large(&p);
}
