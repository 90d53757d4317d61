/*
** test_readpprof.c -- Criterion tests of li_read_pprof (report/readpprof.c):
**
**   round trip   the known profile written as pprof, read back and written
**                again: the same bytes (so the same samples), and the
**                functions' figures summed again from the tree as the
**                runtime sums them (recursion counted once in a total);
**   malformed    every truncation of a real file, every byte of it
**                changed, bytes that are not gzip, a bare message cut
**                anywhere, references to nothing, foreign sample types:
**                a message naming the file, or (where the format cannot
**                tell: a bare message cut between two fields, a gzip
**                header's free bytes) a profile that keeps report.h's
**                invariants; never a crash (the ASan build runs this).
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "known_profile.h"
#include "profile.pb-c.h"
#include "reader.h"
#include "report.h"

typedef Perftools__Profiles__Profile pb_profile;

static li_pfunc funcs[] = { LI_KNOWN_FUNCS };
#define NFUNCS (sizeof funcs / sizeof funcs[0])
static li_pnode nodes[] = { LI_KNOWN_NODES };
#define NNODES (sizeof nodes / sizeof nodes[0])

static li_profile known_profile(void) {
  li_profile p;
  memset(&p, 0, sizeof p);
  p.funcs = funcs;
  p.nfuncs = (uint32_t)NFUNCS;
  p.nodes = nodes;
  p.nnodes = (uint32_t)NNODES;
  p.wall_ns = 2000000000;
  p.time_ns = 1700000000123456789u;
  p.version = "9.8.7";
  return p;
}

static char *pprof_of(const li_profile *p, size_t *len) {
  char *out;
  cr_assert_eq(li_report_to_string(p, "pprof", &out, len), 0);
  return out;
}

/* report.h's invariants, which every writer relies on */
static void check_model(const li_profile *p) {
  cr_assert_gt(p->nnodes, 0);
  cr_assert_eq(p->nodes[0].func, UINT32_MAX);
  for (uint32_t i = 1; i < p->nnodes; i++) {
    cr_assert_lt(p->nodes[i].parent, i);
    cr_assert_lt(p->nodes[i].func, p->nfuncs);
  }
  for (uint32_t i = 0; i < p->nfuncs; i++)
    cr_assert(p->funcs[i].name != NULL && p->funcs[i].source != NULL);
}

/* ---- round trip ----------------------------------------------------------- */

Test(readpprof, round_trip_same_bytes) {
  li_profile p = known_profile();
  size_t len, len2;
  char *a = pprof_of(&p, &len), err[256] = "x";
  li_profile *q = li_read_pprof(a, len, "a.pb.gz", err, sizeof err);
  cr_assert_not_null(q, "%s", err);
  check_model(q);
  char *b = pprof_of(q, &len2);
  cr_assert_eq(len2, len);
  cr_assert(memcmp(a, b, len) == 0, "written again, the file differs");
  /* what the format holds came back */
  cr_assert_eq(q->nfuncs, NFUNCS);
  cr_assert_eq(q->nnodes, NNODES);
  cr_assert_eq(q->wall_ns, p.wall_ns);
  cr_assert_eq(q->time_ns, p.time_ns);
  cr_assert_str_eq(q->version, "9.8.7");
  for (uint32_t i = 0; i < NFUNCS; i++) {
    uint64_t calls = 0, self = 0;
    cr_assert_str_eq(q->funcs[i].name, funcs[i].name);
    cr_assert_str_eq(q->funcs[i].source, funcs[i].source);
    cr_assert_eq(q->funcs[i].line, funcs[i].line);
    cr_assert_eq(q->funcs[i].lastline, funcs[i].lastline);
    cr_assert_eq(q->funcs[i].zone, funcs[i].zone);
    /* a function's figures are its paths' (the file has no others) */
    for (uint32_t k = 1; k < NNODES; k++)
      if (nodes[k].func == i) {
        calls += nodes[k].calls;
        self += nodes[k].self_ns;
      }
    cr_assert_eq(q->funcs[i].calls, calls, "%s", funcs[i].name);
    cr_assert_eq(q->funcs[i].self_ns, self, "%s", funcs[i].name);
  }
  /* totals: main chunk (4) holds its tree's self time, M.parse (3) its own
  ** and t["a,b"]'s (6) */
  cr_assert_eq(q->funcs[4].total_ns, 100000000 + 800000000 + 400000000 + 5000 + 5000 + 4999);
  cr_assert_eq(q->funcs[3].total_ns, 800000000 + 400000000);
  for (uint32_t i = 1; i < NNODES; i++) {
    cr_assert_eq(q->nodes[i].func, nodes[i].func);
    cr_assert_eq(q->nodes[i].parent, nodes[i].parent);
    cr_assert_eq(q->nodes[i].calls, nodes[i].calls);
    cr_assert_eq(q->nodes[i].self_ns, nodes[i].self_ns);
  }
  li_profile_free(q);
  free(a);
  free(b);
}

/* A recursion and a repeated path: the function's total counts its
** outermost activations only, and samples on the same path add up. */
Test(readpprof, totals_as_the_runtime_counts) {
  /* (min and max unknown, as pprof leaves them) */
  li_pfunc f[2] = { { "main chunk", "r.lua", 0, 0, 0, 1, 0, 11117, 10, 11117, 11117, {0}, 0, 0, 0, 0, 0 },
                    { "local rec", "r.lua", 0, 3, 9, 5, 0, 11107, 11107, 0, 0, {0}, 0, 0, 0, 0, 0 } };
  /* main -> rec -> rec -> rec, then main -> rec again (a second node for
  ** the same path, as a merged file may have) */
  li_pnode n[6] = { { UINT32_MAX, 0, 0, 0, 0, 0, {0}, 0, 0 },
                    { 0, 0, 1, 0, 11117, 10, {0}, 0, 0 },
                    { 1, 1, 1, 0, 11100, 100, {0}, 0, 0 },
                    { 1, 2, 1, 0, 11000, 1000, {0}, 0, 0 },
                    { 1, 3, 1, 0, 10000, 10000, {0}, 0, 0 },
                    { 1, 1, 2, 0, 7, 7, {0}, 0, 0 } };
  li_profile p;
  memset(&p, 0, sizeof p);
  p.funcs = f;
  p.nfuncs = 2;
  p.nodes = n;
  p.nnodes = 6;
  size_t len;
  char *a = pprof_of(&p, &len), err[256];
  li_profile *q = li_read_pprof(a, len, "r.pb.gz", err, sizeof err);
  cr_assert_not_null(q, "%s", err);
  check_model(q);
  cr_assert_eq(q->nnodes, 5, "the repeated path is one node");
  cr_assert_eq(q->funcs[1].calls, 5);
  cr_assert_eq(q->funcs[1].self_ns, 11107);
  cr_assert_eq(q->funcs[1].total_ns, 11107, "recursion counted once");
  cr_assert_eq(q->funcs[0].total_ns, 11117);
  cr_assert_eq(q->nodes[1].total_ns, 11117);
  li_profile_free(q);
  free(a);
}

/* protobuf-c reads the string table's "" with no data: a function of
** source "" is no error (the fuzz target's profiles found it) */
Test(readpprof, empty_source) {
  li_pfunc f[1] = { { "f", "", 0, 1, 2, 1, 0, 5, 5, 5, 5, {0}, 0, 0, 0, 0, 0 } };
  li_pnode n[2] = { { UINT32_MAX, 0, 0, 0, 5, 0, {0}, 0, 0 },
                    { 0, 0, 1, 0, 5, 5, {0}, 0, 0 } };
  li_profile p;
  memset(&p, 0, sizeof p);
  p.funcs = f;
  p.nfuncs = 1;
  p.nodes = n;
  p.nnodes = 2;
  size_t len;
  char *a = pprof_of(&p, &len), err[256];
  li_profile *q = li_read_pprof(a, len, "e.pb.gz", err, sizeof err);
  cr_assert_not_null(q, "%s", err);
  cr_assert_str_eq(q->funcs[0].name, "f");
  cr_assert_str_eq(q->funcs[0].source, "");
  cr_assert_eq(q->funcs[0].total_ns, 5);
  li_profile_free(q);
  free(a);
}

Test(readpprof, memory_mode) {
  li_profile p = known_profile();
  li_pnode mem[NNODES];
  memcpy(mem, nodes, sizeof nodes);
  for (size_t i = 1; i < NNODES; i++) {
    mem[i].mem.alloc_bytes = 1000 * i;
    mem[i].mem.alloc_count = i;
  }
  p.nodes = mem;
  p.memory = 1;
  size_t len;
  char *a = pprof_of(&p, &len), err[256];
  li_profile *q = li_read_pprof(a, len, "m.pb.gz", err, sizeof err);
  cr_assert_not_null(q, "%s", err);
  cr_assert(q->memory);
  for (uint32_t i = 1; i < NNODES; i++) {
    cr_assert_eq(q->nodes[i].mem.alloc_bytes, 1000 * i);
    cr_assert_eq(q->nodes[i].mem.alloc_count, i);
  }
  /* main chunk (function 4, node 1) holds everything below it */
  cr_assert_eq(q->funcs[4].mem.alloc_bytes_total, 1000 * (1 + 2 + 3 + 4 + 5 + 6 + 7));
  li_profile_free(q);
  free(a);
}

/* the same message, not gzipped, reads the same */
Test(readpprof, bare_message) {
  li_profile p = known_profile();
  size_t len;
  char *a = pprof_of(&p, &len), err[256];
  unsigned char raw[1 << 16];
  uLongf rawlen = sizeof raw;
  z_stream z;
  memset(&z, 0, sizeof z);
  cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = (unsigned char *)a;
  z.avail_in = (uInt)len;
  z.next_out = raw;
  z.avail_out = (uInt)rawlen;
  cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
  rawlen = z.total_out;
  inflateEnd(&z);
  li_profile *q = li_read_pprof(raw, rawlen, "bare.pb", err, sizeof err);
  cr_assert_not_null(q, "%s", err);
  cr_assert_eq(q->nnodes, NNODES);
  li_profile_free(q);
  free(a);
}

/* ---- malformed input -------------------------------------------------------- */

/* a message that names the file, or a profile that keeps the invariants */
static int read_or_say(const void *d, size_t n) {
  char err[300] = "";
  li_profile *q = li_read_pprof(d, n, "bad.pb.gz", err, sizeof err);
  if (q == NULL) {
    cr_assert(strncmp(err, "bad.pb.gz: ", 11) == 0 && strlen(err) > 11,
              "no message: '%s'", err);
    return 0;
  }
  check_model(q);
  li_profile_free(q);
  return 1;
}

Test(readpprof, every_truncation_of_a_file) {
  li_profile p = known_profile();
  size_t len;
  char *a = pprof_of(&p, &len);
  for (size_t n = 0; n < len; n++) {
    char *cut = malloc(n + 1);      /* (its own block: ASan sees overreads) */
    memcpy(cut, a, n);
    cr_assert_eq(read_or_say(cut, n), 0, "%zu of %zu bytes read", n, len);
    free(cut);
  }
  free(a);
}

Test(readpprof, every_byte_changed) {
  li_profile p = known_profile();
  size_t len, failed = 0;
  char *a = pprof_of(&p, &len);
  for (size_t i = 0; i < len; i++) {
    char *bad = malloc(len);
    memcpy(bad, a, len);
    bad[i] ^= 0x5a;
    failed += !read_or_say(bad, len);
    free(bad);
  }
  /* only the gzip header's time, flags of the compressor and OS bytes
  ** (4 to 9) may change unseen; everything else is in the CRC */
  cr_assert_geq(failed, len - 6, "%zu of %zu changes read", len - failed, len);
  free(a);
}

Test(readpprof, a_bare_message_cut_anywhere) {
  li_profile p = known_profile();
  size_t len;
  char *a = pprof_of(&p, &len);
  unsigned char raw[1 << 16];
  z_stream z;
  memset(&z, 0, sizeof z);
  cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = (unsigned char *)a;
  z.avail_in = (uInt)len;
  z.next_out = raw;
  z.avail_out = sizeof raw;
  cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
  for (size_t n = 0; n < z.total_out; n++) {
    unsigned char *cut = malloc(n + 1);
    memcpy(cut, raw, n);
    read_or_say(cut, n);            /* (cut between fields, it still reads) */
    free(cut);
  }
  inflateEnd(&z);
  free(a);
}

Test(readpprof, not_pprof) {
  static const char *const inputs[] = {
    "", "hello", "{\"format\": \"luainstr-profile\", \"version\": 1}",
    "\x1f\x8b", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage" };
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    char err[300] = "";
    size_t n = i == 4 ? 17 : strlen(inputs[i]);
    cr_assert_null(li_read_pprof(inputs[i], n, "x", err, sizeof err), "%zu", i);
    cr_assert(strncmp(err, "x: ", 3) == 0, "%s", err);
  }
  char err[300];
  cr_assert_null(li_read_pprof("hello", 5, "x", err, sizeof err));
  cr_assert_str_eq(err, "x: not a pprof profile (neither gzip data nor a "
                        "protocol buffer message)");
}

/* ---- messages built here, each wrong in one way ------------------------------ */

typedef struct made {
  pb_profile pr;
  Perftools__Profiles__ValueType t[2], *tp[2];
  Perftools__Profiles__Function f, *fp;
  Perftools__Profiles__Line l, *lp;
  Perftools__Profiles__Location loc, *locp;
  Perftools__Profiles__Sample s, *sp;
  uint64_t stack[1];
  int64_t value[2];
  ProtobufCBinaryData str[7];
} made;

/* a valid profile: one function, one sample (calls 3, wall 40) */
static void make(made *m) {
  static const char *const s[] = { "", "calls", "count", "wall",
                                   "nanoseconds", "f", "f.lua" };
  memset(m, 0, sizeof *m);
  perftools__profiles__profile__init(&m->pr);
  for (int i = 0; i < 7; i++) {
    m->str[i].data = (uint8_t *)(uintptr_t)s[i];
    m->str[i].len = strlen(s[i]);
  }
  m->pr.n_string_table = 7;
  m->pr.string_table = m->str;
  for (int i = 0; i < 2; i++) {
    perftools__profiles__value_type__init(&m->t[i]);
    m->t[i].type = 1 + 2 * i;
    m->t[i].unit = 2 + 2 * i;
    m->tp[i] = &m->t[i];
  }
  m->pr.n_sample_type = 2;
  m->pr.sample_type = m->tp;
  perftools__profiles__function__init(&m->f);
  m->f.id = 7;
  m->f.name = 5;
  m->f.filename = 6;
  m->f.start_line = 2;
  m->fp = &m->f;
  m->pr.n_function = 1;
  m->pr.function = &m->fp;
  perftools__profiles__line__init(&m->l);
  m->l.function_id = 7;
  m->lp = &m->l;
  perftools__profiles__location__init(&m->loc);
  m->loc.id = 9;
  m->loc.n_line = 1;
  m->loc.line = &m->lp;
  m->locp = &m->loc;
  m->pr.n_location = 1;
  m->pr.location = &m->locp;
  perftools__profiles__sample__init(&m->s);
  m->stack[0] = 9;
  m->s.n_location_id = 1;
  m->s.location_id = m->stack;
  m->value[0] = 3;
  m->value[1] = 40;
  m->s.n_value = 2;
  m->s.value = m->value;
  m->sp = &m->s;
  m->pr.n_sample = 1;
  m->pr.sample = &m->sp;
}

/* read m's message: the profile, or NULL with the message in err */
static li_profile *read_made(made *m, char *err, size_t errlen) {
  size_t n = perftools__profiles__profile__get_packed_size(&m->pr);
  uint8_t *buf = malloc(n + 1);
  perftools__profiles__profile__pack(&m->pr, buf);
  li_profile *q = li_read_pprof(buf, n, "m", err, errlen);
  free(buf);
  return q;
}

static void refused(made *m, const char *want) {
  char err[300] = "";
  li_profile *q = read_made(m, err, sizeof err);
  cr_assert_null(q, "read, but: %s", want);
  cr_assert_str_eq(err, want);
}

Test(readpprof, made_valid) {
  made m;
  char err[300];
  make(&m);
  li_profile *q = read_made(&m, err, sizeof err);
  cr_assert_not_null(q, "%s", err);
  cr_assert_eq(q->nfuncs, 1);
  cr_assert_str_eq(q->funcs[0].name, "f");
  cr_assert_eq(q->funcs[0].calls, 3);
  cr_assert_eq(q->funcs[0].self_ns, 40);
  cr_assert_eq(q->funcs[0].lastline, 0, "no luainstr field: 0");
  li_profile_free(q);
}

Test(readpprof, made_wrong) {
  made m;
  make(&m);
  m.f.name = 99;
  refused(&m, "m: function name: string 99 is not in the string table (of 7)");
  make(&m);
  m.l.function_id = 8;
  refused(&m, "m: location 9: no function with id 8");
  make(&m);
  m.stack[0] = 10;
  refused(&m, "m: sample 0: no location with id 10");
  make(&m);
  m.s.n_value = 1;
  refused(&m, "m: sample 0 has 1 values for 2 sample types");
  make(&m);
  m.value[1] = -5;
  refused(&m, "m: sample 0 has a negative value (-5)");
  make(&m);
  m.f.id = 0;
  refused(&m, "m: function 0: id 0 (ids are 1 to 4294967295)");
  make(&m);
  m.loc.n_line = 0;
  refused(&m, "m: location 9 names no function (no line)");
  make(&m);
  m.f.start_line = -1;
  refused(&m, "m: function 7: start line -1 out of range");
  make(&m);
  m.str[0].len = 1;
  refused(&m, "m: not a pprof profile: its string table does not begin with \"\"");
  make(&m);
  m.t[0].type = 5;                   /* f/count, f.lua/nanoseconds... */
  m.t[1].type = 6;
  refused(&m, "m: not a luainstr profile: no sample type calls/count or "
              "wall/nanoseconds (it has: f/count, f.lua/nanoseconds)");
}

Test(readpprof, made_duplicates) {
  made m;
  Perftools__Profiles__Function g, *fps[2];
  make(&m);
  g = m.f;                           /* a second function with id 7 */
  fps[0] = &m.f;
  fps[1] = &g;
  m.pr.n_function = 2;
  m.pr.function = fps;
  refused(&m, "m: two functions with id 7");
}
