/*
** test_html.c -- Criterion tests of the `html` report: a profile whose names
** hold markup, quotes, line breaks, semicolons and bytes that are not UTF-8
** renders to valid UTF-8 in which no name can open or close an element;
** the data block reads back; a profile of 10,000 functions and 100,000
** call-tree nodes stays small; frames, spike trees, zones and memory
** figures go into the data, and nothing of them without framing or memory
** mode.  Heap snapshots (docs/heap.md): luaheap's summary of each and its
** diff of the first and the last go into the data exactly as luaheap
** writes them, markup in a path or a file name escaped; a snapshot that
** cannot be read is an error in its place and the rest is unaffected.
** With LI_HTML_DIR set, the html_files tests also write nasty.html,
** large.html and frames.html there for a real browser
** (tests/report/html_chromium.sh), and heap.html and heap_nasty.html with
** their snapshots (tests/report/html_heap_chromium.sh).
*/
#define _XOPEN_SOURCE 700
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "heap.h"
#include "report.h"
#include "writers.h"
#include "known_profile.h"

/* ---- profiles ------------------------------------------------------------ */

/* test_report.c's known profile, plus names built to run script if a
** writer let markup through. */
static li_pfunc funcs[] = {
  LI_KNOWN_FUNCS,
  { "t[\"<img src=x onerror=\\\"document.title='pwned'\\\">\"]", "<b>evil</b>.lua", 0,
    60, 61, 2, 0, 90000000, 90000000, 40000000, 50000000, {0}, 0, 0, 0, 0, 0 },
  { "</script><script>document.title='pwned'</script>", "a&amp;b;c.lua", 0,
    70, 71, 2, 0, 80000000, 80000000, 40000000, 40000000, {0}, 0, 0, 0, 0, 0 },
  { "<!-- x --> \xe2\x80\xa8 \xff\xfe ]]></title>", "\xc0\xaf.lua", 0,
    80, 81, 1, 0, 70000000, 70000000, 70000000, 70000000, {0}, 0, 0, 0, 0, 0 },
};
#define NFUNCS (sizeof funcs / sizeof funcs[0])

static li_pnode nodes[] = {
  LI_KNOWN_NODES,
  { 8, 1, 2, 0, 90000000, 90000000, {0}, 0, 0 },
  { 9, 1, 2, 0, 80000000, 80000000, {0}, 0, 0 },
  { 10, 1, 1, 0, 70000000, 70000000, {0}, 0, 0 },
  { 2, 2, 7, 0, 5000, 5000, {0}, 0, 0 },
};

/* The extra nodes' times added up the tree, once, so that the figures
** agree (li_profile_check): main chunk calls the three new functions,
** M.parse calls caf\xe9 a second time. */
static void nasty_add_up(void) {
  static int done;
  uint64_t extra = 90000000 + 80000000 + 70000000;
  if (done++) return;
  nodes[1].total_ns += extra + 5000;             /* main chunk */
  funcs[4].total_ns = funcs[4].min_ns = funcs[4].max_ns = nodes[1].total_ns;
  nodes[2].total_ns += 5000;                     /* M.parse */
  funcs[3].total_ns += 5000;
  funcs[2].calls += 7;                           /* caf\xe9 */
  funcs[2].total_ns += 5000;
  funcs[2].self_ns += 5000;
}

static li_profile nasty_profile(void) {
  li_profile p;
  nasty_add_up();
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
    fn->max_ns = nd->total_ns > fn->max_ns ? nd->total_ns : fn->max_ns;
    fn->min_ns = fn->min_ns == 0 || nd->total_ns / nd->calls < fn->min_ns
                 ? nd->total_ns / nd->calls : fn->min_ns;
  }
  /* a function's total is its outermost nodes' (none of it above them) */
  for (uint32_t i = 1; i < nn; i++) {
    uint32_t up = p.nodes[i].parent;
    while (up != 0 && p.nodes[up].func != p.nodes[i].func) up = p.nodes[up].parent;
    if (up == 0) p.funcs[p.nodes[i].func].total_ns += p.nodes[i].total_ns;
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

/* A game's profile with frames, spikes, zones and memory figures (issue
** 12), built by hand until the runtime fills them: 36,000 frames kept of
** 40,000 marked (the ring wrapped), about 16.6 ms each; frames 8000, 20000
** (120 ms, the slowest, 119 ms of it in functions) and 30000 are spikes
** with their own call trees,
** 12000 and 33000 are over the threshold without one.  Time goes mostly to
** Game.update; bytes mostly to local make_garbage, which takes almost no
** time.  The spike of frame 20000 runs Game.update and Level.load_chunk
** but no Game.draw.  One zone's name is markup and not UTF-8. */
enum { F_MAIN, F_UPDATE, F_DRAW, F_GARBAGE, F_PHYSICS, F_COLLIDE, F_RENDER,
       F_LOAD, F_NASTY, F_N };

static li_pfunc game_funcs[F_N] = {
  [F_MAIN] = { .name = "main chunk", .source = "game.lua" },
  [F_UPDATE] = { .name = "Game.update", .source = "game.lua", .line = 10, .lastline = 38 },
  [F_DRAW] = { .name = "Game.draw", .source = "game.lua", .line = 40, .lastline = 68 },
  [F_GARBAGE] = { .name = "local make_garbage", .source = "game.lua", .line = 70, .lastline = 80 },
  [F_PHYSICS] = { .name = "zone physics", .source = "zone", .zone = 1 },
  [F_COLLIDE] = { .name = "local collide", .source = "physics.lua", .line = 5, .lastline = 30 },
  [F_RENDER] = { .name = "zone render", .source = "zone", .zone = 1 },
  [F_LOAD] = { .name = "Level.load_chunk", .source = "level.lua", .line = 12, .lastline = 90 },
  [F_NASTY] = { .name = "zone <img src=x onerror=\"document.title='pwned'\">\xff", .source = "zone",
                .zone = 1 },
};

/* node: function, parent, calls, self time, self bytes allocated */
#define NODE(f, par, c, self, ab) \
  { .func = (f), .parent = (par), .calls = (c), .self_ns = (self), \
    .mem = { .alloc_bytes = (ab), .alloc_count = (ab) / 64 + ((ab) > 0) } }
#define MS 1000000u
#define S_ 1000000000u
#define MB (1u << 20)

static li_pnode game_nodes[] = {
  { .func = UINT32_MAX, .mem = { .alloc_bytes = 64 << 10, .alloc_count = 30 } },
  NODE(F_MAIN, 0, 1, 5ull * S_, 200 << 10),
  NODE(F_UPDATE, 1, 40000, 100ull * S_, 2 * MB),
  NODE(F_PHYSICS, 2, 40000, 20ull * S_, MB / 2),
  NODE(F_COLLIDE, 3, 4000000, 180ull * S_, MB),
  NODE(F_LOAD, 2, 3, 50ull * S_, 8 * MB),
  NODE(F_DRAW, 1, 40000, 40ull * S_, MB),
  NODE(F_RENDER, 6, 40000, 170ull * S_, 3 * MB),
  NODE(F_NASTY, 7, 40000, 10ull * S_, 100 << 10),
  NODE(F_GARBAGE, 1, 40000, 15ull * S_, 900ull * MB),
};

static li_pnode spike8000[] = {
  { .func = UINT32_MAX },
  NODE(F_MAIN, 0, 1, MS / 2, 0),
  NODE(F_UPDATE, 1, 1, 9 * MS / 2, 64 << 10),
  NODE(F_LOAD, 2, 1, 55 * MS, 3 * MB),
};
static li_pnode spike20000[] = {
  { .func = UINT32_MAX },
  NODE(F_MAIN, 0, 1, MS / 10, 0),
  NODE(F_UPDATE, 1, 1, 4 * MS, 80 << 10),
  NODE(F_LOAD, 2, 1, 100 * MS, 6 * MB),
  NODE(F_PHYSICS, 2, 1, MS, 1 << 10),
  NODE(F_COLLIDE, 4, 100, 13 * MS + 9 * MS / 10, 10 << 10),
};
static li_pnode spike30000[] = {
  { .func = UINT32_MAX },
  NODE(F_MAIN, 0, 1, MS, 0),
  NODE(F_DRAW, 1, 1, 4 * MS, 20 << 10),
  NODE(F_RENDER, 2, 1, 30 * MS, 40 << 10),
  NODE(F_NASTY, 3, 1, 10 * MS, 1 << 10),
};

/* Inclusive figures from the self ones, children after parents; 9 in 10
** bytes freed. */
static void finish_tree(li_pnode *nd, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    nd[i].total_ns = nd[i].self_ns;
    nd[i].mem.alloc_bytes_total = nd[i].mem.alloc_bytes;
    nd[i].mem.alloc_count_total = nd[i].mem.alloc_count;
    nd[i].mem.free_bytes = nd[i].mem.alloc_bytes / 10 * 9;
    nd[i].mem.live_bytes = nd[i].mem.alloc_bytes - nd[i].mem.free_bytes;
  }
  for (uint32_t i = n - 1; i >= 1; i--) {
    li_pnode *par = &nd[nd[i].parent];
    par->total_ns += nd[i].total_ns;
    par->mem.alloc_bytes_total += nd[i].mem.alloc_bytes_total;
    par->mem.alloc_count_total += nd[i].mem.alloc_count_total;
  }
}

static li_pspike game_spikes[] = {
  { 8000, 60 * MS, spike8000, sizeof spike8000 / sizeof spike8000[0] },
  { 20000, 120 * MS, spike20000, sizeof spike20000 / sizeof spike20000[0] },
  { 30000, 45 * MS, spike30000, sizeof spike30000 / sizeof spike30000[0] },
};
#define GAME_FIRST 4001u
#define GAME_FRAMES 36000u

/* free p->frames after use */
static li_profile frames_profile(void) {
  li_profile p;
  li_pframe *fr = calloc(GAME_FRAMES, sizeof *fr);
  uint64_t seed = 12345, t = 0;
  uint32_t nnodes = (uint32_t)(sizeof game_nodes / sizeof game_nodes[0]);
  cr_assert_not_null(fr);
  memset(&p, 0, sizeof p);
  finish_tree(game_nodes, nnodes);
  /* a spike's root holds no time of its own: the frame's duration (120 ms
  ** for frame 20000, whose functions took 119 ms) is what the page shows */
  for (uint32_t i = 0; i < 3; i++) {
    finish_tree(game_spikes[i].nodes, game_spikes[i].nnodes);
    game_spikes[i].nodes[0].total_ns = 0;
  }
  for (uint32_t f = 0; f < F_N; f++) {
    li_pfunc *fn = &game_funcs[f];
    memset(&fn->calls, 0, sizeof *fn - offsetof(li_pfunc, calls));
  }
  for (uint32_t i = 1; i < nnodes; i++) {   /* no recursion: sums are right */
    li_pfunc *fn = &game_funcs[game_nodes[i].func];
    const li_pmem *m = &game_nodes[i].mem;
    fn->calls += game_nodes[i].calls;
    fn->total_ns += game_nodes[i].total_ns;
    fn->self_ns += game_nodes[i].self_ns;
    fn->min_ns = game_nodes[i].total_ns / game_nodes[i].calls / 3;
    fn->max_ns = game_nodes[i].total_ns / game_nodes[i].calls * 7;
    if (fn->max_ns > fn->total_ns) fn->max_ns = fn->total_ns;  /* one call's */
    if (fn->calls == 1) fn->min_ns = fn->max_ns = fn->total_ns;
    fn->mem.alloc_bytes += m->alloc_bytes;
    fn->mem.alloc_count += m->alloc_count;
    fn->mem.alloc_bytes_total += m->alloc_bytes_total;
    fn->mem.alloc_count_total += m->alloc_count_total;
    fn->mem.free_bytes += m->free_bytes;
    fn->mem.live_bytes += m->live_bytes;
    fn->mem.peak_live_bytes = m->live_bytes * 2;
    fn->mem.max_alloc_bytes = m->alloc_bytes / (m->alloc_count + 1) * 4;
  }
  for (uint32_t i = 0; i < GAME_FRAMES; i++) {
    uint64_t index = GAME_FIRST + i;
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    uint32_t r = (uint32_t)(seed >> 33);
    fr[i].index = index;
    fr[i].start_ns = t;
    fr[i].duration_ns = 15100000 + r % 3000000;
    fr[i].calls = 200 + r % 100;
    fr[i].alloc_bytes = 16000 + (r >> 8) % 16000;
    for (uint32_t k = 0; k < 3; k++)
      if (game_spikes[k].frame == index) {
        fr[i].duration_ns = game_spikes[k].duration_ns;
        fr[i].alloc_bytes = game_spikes[k].nodes[0].mem.alloc_bytes_total;
        fr[i].spike = k + 1;
      }
    if (index == 12000) fr[i].duration_ns = 40 * MS;
    if (index == 33000) fr[i].duration_ns = 38 * MS;
    t += fr[i].duration_ns;
  }
  p.funcs = game_funcs;
  p.nfuncs = F_N;
  p.nodes = game_nodes;
  p.nnodes = nnodes;
  p.wall_ns = t;
  p.probes = 2 * 4360000;
  p.overhead_ns = 4360000ull * 40;
  p.probe_pair_ns = 40.0;
  p.clock = "tsc";
  p.framing = 1;
  p.frames = fr;
  p.nframes = GAME_FRAMES;
  p.frames_marked = GAME_FIRST - 1 + GAME_FRAMES;
  p.frame_capacity = GAME_FRAMES;
  p.spike_factor = 2.0;
  p.spike_min_ns = 20 * MS;
  p.spike_keep = 3;
  p.spikes = game_spikes;
  p.nspikes = 3;
  p.spikes_seen = 5;
  p.memory = 1;
  p.mem_outside = game_nodes[0].mem;     /* its own, not its callees' */
  p.mem_outside.alloc_bytes_total = p.mem_outside.alloc_bytes;
  p.mem_outside.alloc_count_total = p.mem_outside.alloc_count;
  p.mem_blocks = 51234;
  p.mem_map_bytes = 3 * MB;
  p.mem_untracked_frees = 17;
  return p;
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

/* The live page (li_write_html_live): the same application, no profile, a
** policy that allows its own script and a connection to its own origin,
** the report formats a command may ask for. */
Test(html, live_page) {
  char *out = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&out, &len);
  cr_assert_not_null(m);
  cr_assert_eq(li_write_html_live(m), 0);
  cr_assert_eq(fclose(m), 0);
  cr_assert_eq(strlen(out), len, "a NUL byte in the page");
  cr_assert_eq(bad_utf8_at(out, len), -1);
  cr_assert_not_null(strstr(out, "<meta http-equiv=\"Content-Security-Policy\" "
                                 "content=\"default-src 'none'; script-src 'sha256-"));
  cr_assert_not_null(strstr(out, "'; style-src 'unsafe-inline'; connect-src 'self'\">"));
  cr_assert_not_null(strstr(out, "<title>luainstr live</title>"));
  cr_assert_eq(count_ci(out, "<script"), 2);
  cr_assert_eq(count_ci(out, "http://"), 0);
  cr_assert_eq(count_ci(out, " src="), 0);
  cr_assert_eq(count_ci(out, "innerHTML"), 0);
  /* the views the report has, and the live ones */
  static const char *const ids[] = { "id=\"frc\"", "id=\"fg\"", "id=\"rows\"",
    "id=\"spikes\"", "id=\"memc\"", "id=\"lstate\"", "id=\"conn\"",
    "id=\"selftest\"" };
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
    cr_assert_eq(count_ci(out, ids[i]), 1, "%s", ids[i]);
  /* no profile: no function, no node but the root's place */
  char *data = data_block(out);
  cr_assert_not_null(strstr(data, "\"names\":[],\"funcs\":[]"), "%s", data);
  /* every format, in the report's order */
  char want[512] = "\"formats\":[\"";
  size_t w = strlen(want);
  for (const char *f = li_report_formats(); *f != '\0' && w + 4 < sizeof want; f++) {
    if (*f == ',') { memcpy(want + w, "\",\"", 3); w += 3; if (f[1] == ' ') f++; }
    else want[w++] = *f;
  }
  memcpy(want + w, "\"]", 3);
  cr_assert_not_null(strstr(data, want), "%s not in %s", want, data);
  free(data);
  free(out);
}

Test(html, data_numbers) {
  li_profile p = nasty_profile();
  size_t len;
  char *out = html(&p, &len);
  char *data = data_block(out);
  cr_assert_not_null(strstr(data, "\"wall_ns\":2000000000,\"probes\":502030,"
                                  "\"overhead_ns\":987654,\"probe_pair_ns\":3.930,"
                                  "\"clock\":\"tsc\",\"open_calls\":0"), "%s", data);
  /* root, then main chunk (function 4) under it, M.parse (3) one back */
  cr_assert_not_null(strstr(data, "\"nodes\":[\n-1,0,0,0,0,\n4,1,1,1540019999,100000000,\n"
                                  "3,1,1000,1200005000,800000000,\n"), "%s", data);
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
  cr_assert_not_null(strstr(data, "\"zones\":[]"));
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

Test(html, frames_spikes_zones_memory) {
  li_profile p = frames_profile();
  size_t len;
  char *out = html(&p, &len);
  char *data = data_block(out);
  cr_log_info("frames profile: %zu bytes", len);
  cr_assert_lt(len, 4u << 20, "%zu bytes for 36,000 frames", len);
  cr_assert_eq(bad_utf8_at(out, len), -1);
  cr_assert_eq(count_ci(out, "<script"), 2);
  cr_assert_eq(count_ci(out, "<img"), 0);
  cr_assert_null(strpbrk(data, "<>&"), "markup characters in the data");
  cr_assert_not_null(strstr(data, "\"framing\":{\"frames_marked\":40000,\"frame_capacity\":36000,"
                                  "\"spike_factor\":2.000,\"spike_min_ns\":20000000,"
                                  "\"spike_keep\":3,\"spikes_seen\":5}"), "%.600s", data);
  cr_assert_not_null(strstr(data, "\"memory\":{\"outside\":[65536,30,65536,30,58977,6559,0,0],"
                                  "\"blocks\":51234,\"map_bytes\":3145728,\"untracked_frees\":17}"));
  cr_assert_not_null(strstr(data, "\"zones\":[4,6,8]"));
  cr_assert_not_null(strstr(data, "\"zone \\u003cimg src=x onerror=\\\"document.title='pwned'\\\"\\u003e\\u00ff\""));
  cr_assert_not_null(strstr(data, "\"fmem\":[\n"));
  cr_assert_not_null(strstr(data, "\"nmem\":[\n"));
  /* the first kept frame, the slowest spike's frame and its tree's root */
  cr_assert_not_null(strstr(data, "\"frames\":[\n4001,0,"));
  cr_assert_not_null(strstr(data, ",20000,"));
  cr_assert_not_null(strstr(data, ",120000000,"));
  cr_assert_not_null(strstr(data, "{\"frame\":20000,\"duration_ns\":120000000,\n\"nodes\":[\n"
                                  "-1,0,0,0,0,\n0,1,1,119000000,100000,\n"), "%s",
                     strstr(data, "{\"frame\":20000"));
  cr_assert_eq(count_ci(data, "{\"frame\":"), 3);
  free(data);
  free(out);
  free((void *)p.frames);
}

/* Without frames or memory mode the data holds none of their keys. */
Test(html, no_frames_no_memory) {
  li_profile p = nasty_profile();
  size_t len;
  char *out = html(&p, &len);
  char *data = data_block(out);
  static const char *const absent[] = {
    "\"framing\"", "\"memory\"", "\"frames\"", "\"spikes\"", "\"fmem\"", "\"nmem\""
  };
  for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
    cr_assert_null(strstr(data, absent[i]), "%s in the data", absent[i]);
  free(data);
  free(out);
}

/* A frame's spike index past the spikes kept reads as no spike; framing
** with no frames or spikes at all is an empty chart. */
Test(html, frames_out_of_range) {
  li_profile p = frames_profile();
  li_pframe *fr = (li_pframe *)p.frames;
  size_t len;
  fr[0].spike = 4;
  p.nspikes = 3;
  char *out = html(&p, &len);
  char *data = data_block(out);
  cr_assert_not_null(strstr(data, "\"frames\":[\n4001,0,"));
  char *first = strstr(data, "\"frames\":[\n") + 11, *comma = first;
  for (int k = 0; k < 5; k++) comma = strchr(comma, ',') + 1;
  cr_assert_eq(strtoul(comma, NULL, 10), 0, "%.60s", first);
  free(data);
  free(out);
  p.frames = NULL;
  p.spikes = NULL;
  p.memory = 0;
  out = html(&p, &len);
  data = data_block(out);
  cr_assert_not_null(strstr(data, "\"frames\":[],\n\"spikes\":[]"), "%s", data);
  free(data);
  free(out);
  free(fr);
}

/* ---- figures: the page's are the text report's -------------------------- */

/* The page's own fmtUnits, fmtNs and fmtBytes, cut from the page. */
static char *page_formatters(void) {
  li_profile p = nasty_profile();
  size_t len;
  char *out = html(&p, &len);
  const char *a = strstr(out, "function fmtUnits(");
  const char *b = a != NULL ? strstr(a, "function fmtBytes(") : NULL;
  const char *e = b != NULL ? strstr(b, "}\n") : NULL;
  cr_assert(a != NULL && e != NULL, "no fmtUnits ... fmtBytes in the page");
  char *js = strndup(a, (size_t)(e + 2 - a));
  free(out);
  return js;
}

/* Values on both sides of every unit and rounding step of both steps
** (1000 and 1024), then some of every size below 2^53 (where a JavaScript
** number holds an integer exactly). */
static size_t figure_values(uint64_t *v, size_t cap) {
  static const uint64_t edges[] = {
    0, 1, 9, 10, 99, 100, 999, 1000, 1001, 1004, 1005, 1006, 1023, 1024,
    1025, 1029, 1030, 1535, 1536, 9994, 9995, 9996, 10234, 10235, 99949,
    99950, 102348, 102349, 999499, 999500, 1047552, 1048063, 1048064,
    1048575, 1048576, 1073217536, 1073741823, 1073741824, 999499999,
    999500000, 999499999999, 999500000000, 1234567000000,
    1125899906842623, 1125899906842624, 9007199254740991,
  };
  size_t n = 0;
  for (size_t i = 0; i < sizeof edges / sizeof edges[0] && n < cap; i++)
    v[n++] = edges[i];
  uint64_t x = 88172645463325252u;   /* xorshift64: the same values each run */
  while (n < cap) {
    x ^= x << 13;  x ^= x >> 7;  x ^= x << 17;
    v[n++] = (x >> 11) >> (x % 53);  /* below 2^53, of every magnitude */
  }
  return n;
}

/* A byte count or a time reads the same in the text report and in the
** page: the page's fmtNs and fmtBytes, run by node, against li_fmt_ns and
** li_fmt_bytes (the text report's). */
Test(html, figures_read_as_in_the_text_report) {
  if (system("node --version >/dev/null 2>&1") != 0)
    cr_skip_test("node not installed (scripts/js.sh installs it)");
  uint64_t v[400];
  size_t n = figure_values(v, 400);
  char *js = page_formatters();
  char script[] = "/tmp/li_fmt_XXXXXX";
  int fd = mkstemp(script);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "%s\nvar V = [", js);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s%" PRIu64, i > 0 ? "," : "", v[i]);
  fputs("];\nV.forEach(function (v) { console.log(fmtNs(v) + '|' + fmtBytes(v)); });\n", f);
  fclose(f);
  free(js);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "node %s", script);
  FILE *pipe = popen(cmd, "r");
  cr_assert_not_null(pipe);
  char line[256], want[256], ns[32], bytes[32];
  size_t i = 0;
  while (fgets(line, sizeof line, pipe) != NULL && i < n) {
    li_fmt_ns(ns, sizeof ns, v[i]);
    li_fmt_bytes(bytes, sizeof bytes, v[i]);
    snprintf(want, sizeof want, "%s|%s\n", ns, bytes);
    cr_expect_str_eq(line, want, "value %" PRIu64 ": page %s text %s", v[i], line, want);
    i++;
  }
  int status = pclose(pipe);
  unlink(script);
  cr_assert_eq(status, 0, "node failed");
  cr_assert_eq(i, n, "node printed %zu lines of %zu", i, n);
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

/* with its text report beside it (frames.txt), whose figures the browser
** test compares with the page's; two calls still open */
Test(html_files, frames, .timeout = 60) {
  li_profile p = frames_profile();
  char path[4096], err[512] = "";
  p.open_calls = 2;
  write_page(&p, "frames.html");
  snprintf(path, sizeof path, "%s/frames.txt", getenv("LI_HTML_DIR"));
  cr_assert_eq(li_report_to_path(&p, "text", path, err, sizeof err), 0, "%s", err);
  free((void *)p.frames);
}

/* ---- heap snapshots ------------------------------------------------------- */

/* Markup in a table key (a path segment) and in a string's name. */
#define NASTY_KEY "</script><script>document.title='pwned'</script>"
#define NASTY_STR "<img src=x onerror=\"document.title='pwned'\"> <!--"

/* A JSON string literal of s (", \ and control bytes escaped). */
static void put_str(FILE *f, const char *s) {
  putc('"', f);
  for (; *s != '\0'; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", (unsigned)*s);
    else putc(*s, f);
  }
  putc('"', f);
}

/* A snapshot as docs/heap.md says of a heap where the upvalue cache of
** Game.remember holds `leak` tables under integer keys (the planted leak),
** and _G holds a string under a key, both markup.  Ids are addresses, the
** same in every file made: the leak's tables are new in a file made with
** more of them.
**   0 (GC roots) -> 1 (registry) -_G-> 2 table -Game-> 3 table
**   -remember-> 4 function <upvalue cache> 5 table -[i]-> 7.. tables;
**   2 -NASTY_KEY-> 6 string NASTY_STR */
static void write_snapshot(const char *path, unsigned leak) {
  static const char *const strs[] = {
    "(GC roots)", "(registry)", "table", "function Game.remember (game.lua:3)",
    NASTY_STR, "_G", "Game", NASTY_KEY, "remember", "cache"
  };
  const uint64_t at = 0x55d04a2c0000u;
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s: %s", path, strerror(errno));
  fprintf(f, "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
          "\"edge_count\",\"trace_node_id\",\"detachedness\"],\"node_types\":[[\"hidden\","
          "\"array\",\"string\",\"object\",\"code\",\"closure\",\"regexp\",\"number\",\"native\","
          "\"synthetic\",\"concatenated string\",\"sliced string\",\"symbol\",\"bigint\","
          "\"object shape\"],\"string\",\"number\",\"number\",\"number\",\"number\",\"number\"],"
          "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\"edge_types\":[[\"context\","
          "\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],"
          "\"string_or_number\",\"node\"],\"trace_function_info_fields\":[\"function_id\","
          "\"name\",\"script_name\",\"script_id\",\"line\",\"column\"],\"trace_node_fields\":"
          "[\"id\",\"function_info_index\",\"count\",\"size\",\"children\"],\"sample_fields\":"
          "[\"timestamp_us\",\"last_assigned_id\"],\"location_fields\":[\"object_index\","
          "\"script_id\",\"line\",\"column\"]},\n\"node_count\":%u,\"edge_count\":%u,"
          "\"trace_function_count\":0,\n\"lua\":{\"version\":\"5.4\",\"exact\":true,"
          "\"collected\":false,\"gc_count_bytes\":%u,\"taken_ns\":0}},\n\"nodes\":[",
          7 + leak, 6 + leak, 1088 + 120 + 48 + 88 + 16 * leak + 60 + 56 * leak);
  /* type, name, id, self size, edge count */
  fprintf(f, "9,0,1,0,1,0,0,\n9,1,3,0,1,0,0,\n");
  fprintf(f, "3,2,%" PRIu64 ",1088,2,0,0,\n3,2,%" PRIu64 ",120,1,0,0,\n", at + 0x100, at + 0x200);
  fprintf(f, "5,3,%" PRIu64 ",48,1,0,0,\n3,2,%" PRIu64 ",%u,%u,0,0,\n", at + 0x300, at + 0x400,
          88 + 16 * leak, leak);
  fprintf(f, "2,4,%" PRIu64 ",60,0,0,0", at + 0x500);
  for (unsigned i = 0; i < leak; i++)
    fprintf(f, ",\n3,2,%" PRIu64 ",56,0,0,0", at + 0x1000 + 0x40 * (uint64_t)i);
  /* type, name or index, target node * 7 */
  fprintf(f, "],\n\"edges\":[1,1,7,\n2,5,14,\n2,6,21,\n2,7,42,\n2,8,28,\n0,9,35");
  for (unsigned i = 0; i < leak; i++) fprintf(f, ",\n1,%u,%u", i + 1, (7 + i) * 7);
  fprintf(f, "],\n\"trace_function_infos\":[],\"trace_tree\":[],\"samples\":[],\"locations\":[],\n"
          "\"strings\":[");
  for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
    if (i > 0) fputs(",\n", f);
    put_str(f, strs[i]);
  }
  fputs("]}\n", f);
  cr_assert_eq(fclose(f), 0);
}

/* A fresh directory for snapshot files (under LI_HTML_DIR when set, so the
** browser test finds them beside the pages), its path in dir. */
static void snapshot_dir(char *dir, size_t size, const char *name) {
  const char *base = getenv("LI_HTML_DIR");
  if (base != NULL) {
    snprintf(dir, size, "%s/%s", base, name);
    cr_assert(mkdir(dir, 0700) == 0 || errno == EEXIST, "%s: %s", dir, strerror(errno));
    return;
  }
  snprintf(dir, size, "%s/li_html_heap_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  cr_assert_not_null(mkdtemp(dir), "%s", strerror(errno));
}

/* luaheap's summary (b NULL) or diff of a and b, as the page must hold it:
** its JSON with '<', '>' and '&' as \u003c, \u003e, \u0026.  malloc'd. */
static char *luaheap_json(const char *a, const char *b) {
  char *buf = NULL, err[512] = "";
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  cr_assert_not_null(m);
  int st = b == NULL ? lh_write_summary_json(m, a, err, sizeof err)
                     : lh_write_diff_json(m, a, b, NULL, err, sizeof err);
  cr_assert_eq(fclose(m), 0);
  cr_assert_eq(st, 0, "%s", err);
  char *out = malloc(6 * len + 1), *o = out;
  cr_assert_not_null(out);
  for (size_t i = 0; i < len; i++) {
    if (buf[i] == '<' || buf[i] == '>' || buf[i] == '&') o += sprintf(o, "\\u%04x", (unsigned)buf[i]);
    else *o++ = buf[i];
  }
  *o = '\0';
  free(buf);
  return out;
}

static void remove_dir(const char *dir, const char *const *files, size_t n) {
  if (getenv("LI_HTML_DIR") != NULL) return;   /* the browser test's */
  for (size_t i = 0; i < n; i++) unlink(files[i]);
  rmdir(dir);
}

/* Two snapshots 50 leaked tables apart: the page holds luaheap's summary
** of each and its diff, exactly; the figures are the heap's. */
Test(html, heap_view_data) {
  char dir[4096], a[4200], b[4200];
  snapshot_dir(dir, sizeof dir, "heap_data");
  snprintf(a, sizeof a, "%s/before.heapsnapshot", dir);
  snprintf(b, sizeof b, "%s/after.heapsnapshot", dir);
  write_snapshot(a, 2);
  write_snapshot(b, 52);
  const char *files[] = { a, b };
  li_profile p = nasty_profile();
  p.heap_files = files;
  p.nheap_files = 2;
  size_t len;
  char *out = html(&p, &len);
  char *data = data_block(out);
  cr_assert_eq(count_ci(out, "<script"), 2);
  cr_assert_null(strpbrk(data, "<>&"), "markup characters in the data");
  cr_assert_eq(bad_utf8_at(out, len), -1);
  char *sa = luaheap_json(a, NULL), *sb = luaheap_json(b, NULL), *d = luaheap_json(a, b);
  cr_assert_not_null(strstr(data, sa), "summary of A not in the data");
  cr_assert_not_null(strstr(data, sb), "summary of B not in the data");
  cr_assert_not_null(strstr(data, d), "diff not in the data:\n%s\nwant\n%s", data, d);
  /* the heap's own figures: 55 tables in B (_G, Game, cache, 52 leaked) */
  cr_assert_not_null(strstr(sb, "{\"type\":\"table\",\"count\":55,\"bytes\":5040}"), "%s", sb);
  cr_assert_not_null(strstr(sb, "\"path\":\"_G.Game.remember \\u003cupvalue cache\\u003e\""), "%s", sb);
  cr_assert_not_null(strstr(d, "\"new\":{\"count\":50,\"bytes\":2800}"), "%s", d);
  cr_assert_not_null(strstr(d, "\"path\":\"_G.Game.remember \\u003cupvalue cache\\u003e[*]\","
                               "\"count\":50,\"bytes\":2800"), "%s", d);
  /* the markup key: a path, escaped */
  cr_assert_not_null(strstr(sb, "_G[\\\"\\u003c/script\\u003e\\u003cscript\\u003edocument.title="
                                "'pwned'\\u003c/script\\u003e\\\"]"), "%s", sb);
  /* the rest of the page as without snapshots */
  cr_assert_not_null(strstr(data, "\"nodes\":[\n-1,0,0,0,0,\n4,1,1,1540019999,100000000,\n"));
  free(sa);
  free(sb);
  free(d);
  free(data);
  free(out);
  remove_dir(dir, files, 2);
}

/* Snapshots that cannot be read, among readable ones: an error with the
** file and luaheap's reason in their place, the others and the rest of the
** page as they would be; a file name with markup escaped. */
Test(html, heap_unreadable_and_nasty_names) {
  char dir[4096], sub[4200], good[4300], missing[4300], junk[4300];
  snapshot_dir(dir, sizeof dir, "heap_bad");
  snprintf(sub, sizeof sub, "%s/<", dir);     /* the file: .../</script>.heapsnapshot */
  cr_assert(mkdir(sub, 0700) == 0 || errno == EEXIST, "%s", strerror(errno));
  snprintf(good, sizeof good, "%s/script>.heapsnapshot", sub);
  snprintf(missing, sizeof missing, "%s/missing.heapsnapshot", dir);
  snprintf(junk, sizeof junk, "%s/junk.heapsnapshot", dir);
  write_snapshot(good, 3);
  FILE *f = fopen(junk, "w");
  cr_assert_not_null(f);
  fputs("{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\"]},\"node_count\":1,\"nodes\":[", f);
  cr_assert_eq(fclose(f), 0);
  const char *files[] = { good, missing, junk };
  li_profile p = nasty_profile();
  p.heap_files = files;
  p.nheap_files = 3;
  size_t len;
  char *out = html(&p, &len);
  char *data = data_block(out);
  cr_assert_eq(count_ci(out, "<script"), 2);
  cr_assert_eq(count_ci(out, "</script"), 2);
  cr_assert_null(strpbrk(data, "<>&"), "markup characters in the data");
  char *sg = luaheap_json(good, NULL);
  cr_assert_not_null(strstr(data, sg), "the readable snapshot's summary is not in the data");
  cr_assert_not_null(strstr(data, "/\\u003c/script\\u003e.heapsnapshot\""), "%s", data);
  /* each unreadable one: its file and why */
  char want[9000];
  snprintf(want, sizeof want, "{\"file\":\"%s\",\"error\":\"%s", missing, missing);
  cr_assert_not_null(strstr(data, want), "no error for the missing file in\n%s", data);
  snprintf(want, sizeof want, "{\"file\":\"%s\",\"error\":\"%s:", junk, junk);
  cr_assert_not_null(strstr(data, want), "no error for the junk file in\n%s", data);
  /* the diff of the first and the last: the last cannot be read */
  cr_assert_not_null(strstr(data, "\"diff\":{\"file\":"), "%s", data);
  cr_assert_not_null(strstr(data, "\"nodes\":[\n-1,0,0,0,0,\n4,1,1,1540019999,100000000,\n"));
  cr_assert_eq(bad_utf8_at(out, len), -1);
  free(sg);
  free(data);
  free(out);
  const char *all[] = { good, junk };
  remove_dir(sub, all, 1);
  remove_dir(dir, all + 1, 1);
}

/* No snapshots: no heap key, as before issue 21. */
Test(html, no_heap) {
  li_profile p = nasty_profile();
  size_t len;
  char *out = html(&p, &len);
  char *data = data_block(out);
  cr_assert_null(strstr(data, "\"heap\""));
  free(data);
  free(out);
}

/* Pages for the browser: heap.html (three snapshots, the middle one
** unreadable: 2, then 52 tables leaked), heap_nasty.html (markup in a
** path and a file name). */
Test(html_files, heap) {
  char dir[4096], a[4200], mid[4200], b[4200];
  if (getenv("LI_HTML_DIR") == NULL) cr_skip_test("LI_HTML_DIR not set");
  snapshot_dir(dir, sizeof dir, "heap_page");
  snprintf(a, sizeof a, "%s/start.heapsnapshot", dir);
  snprintf(mid, sizeof mid, "%s/gone.heapsnapshot", dir);
  snprintf(b, sizeof b, "%s/end.heapsnapshot", dir);
  write_snapshot(a, 2);
  write_snapshot(b, 52);
  const char *files[] = { a, mid, b };
  li_profile p = nasty_profile();
  p.heap_files = files;
  p.nheap_files = 3;
  write_page(&p, "heap.html");
}

Test(html_files, heap_nasty) {
  char dir[4096], sub[4200], good[4300];
  if (getenv("LI_HTML_DIR") == NULL) cr_skip_test("LI_HTML_DIR not set");
  snapshot_dir(dir, sizeof dir, "heap_nasty");
  snprintf(sub, sizeof sub, "%s/<", dir);
  cr_assert(mkdir(sub, 0700) == 0 || errno == EEXIST, "%s", strerror(errno));
  snprintf(good, sizeof good, "%s/script>.heapsnapshot", sub);
  write_snapshot(good, 3);
  const char *files[] = { good };
  li_profile p = nasty_profile();
  p.heap_files = files;
  p.nheap_files = 1;
  write_page(&p, "heap_nasty.html");
}
