/*
** test_pprof.c -- Criterion tests of the `pprof` writer (report/pprof.c):
** the known profile written, gunzipped with zlib and decoded with
** protobuf-c from the same profile.proto, then every field checked against
** the profile it came from: sample types and their order, one sample per
** node with a figure, stacks leaf first, one Function and one Location per
** function, times, the version comment, memory mode.  (`go tool pprof`
** reads real profiles in tests/pprof/go_pprof.sh.)
*/
#define _POSIX_C_SOURCE 200809L  /* unsetenv */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "known_profile.h"
#include "profile.pb-c.h"
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
  p.clock = "tsc";
  return p;
}

/* p written as pprof, gunzipped and decoded (the caller frees it with
** perftools__profiles__profile__free_unpacked). */
static pb_profile *written(const li_profile *p) {
  char *gz;
  size_t gzlen, cap = 1 << 20;
  unsigned char *raw = malloc(cap);
  z_stream z;
  memset(&z, 0, sizeof z);
  cr_assert_eq(li_report_to_string(p, "pprof", &gz, &gzlen), 0);
  cr_assert_geq(gzlen, 18);
  cr_assert(gz[0] == (char)0x1f && gz[1] == (char)0x8b, "not gzip");
  cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = (unsigned char *)gz;
  z.avail_in = (uInt)gzlen;
  z.next_out = raw;
  z.avail_out = (uInt)cap;
  cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END, "%s", z.msg ? z.msg : "");
  cr_assert_eq(z.avail_in, 0, "bytes after the gzip stream");
  pb_profile *pr = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
  cr_assert_not_null(pr, "not a Profile message");
  inflateEnd(&z);
  free(raw);
  free(gz);
  return pr;
}

static const char *str(const pb_profile *pr, int64_t i) {
  static char buf[4][256];
  static int k;
  cr_assert(i >= 0 && (size_t)i < pr->n_string_table, "string %lld", (long long)i);
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%.*s", (int)pr->string_table[i].len,
           (const char *)pr->string_table[i].data);
  return buf[k];
}

static void check_types(const pb_profile *pr, const char *const *want, size_t n) {
  cr_assert_eq(pr->n_sample_type, n);
  for (size_t i = 0; i < n; i++) {
    char got[64];
    snprintf(got, sizeof got, "%s/%s", str(pr, pr->sample_type[i]->type),
             str(pr, pr->sample_type[i]->unit));
    cr_assert_str_eq(got, want[i]);
  }
  cr_assert_str_eq(str(pr, pr->period_type->type), "wall");
  cr_assert_str_eq(str(pr, pr->period_type->unit), "nanoseconds");
  cr_assert_eq(pr->period, 1);
  cr_assert_str_eq(str(pr, pr->default_sample_type), "wall");
}

/* The function of location id lid. */
static const Perftools__Profiles__Function *func_at(const pb_profile *pr,
                                                    uint64_t lid) {
  for (size_t i = 0; i < pr->n_location; i++)
    if (pr->location[i]->id == lid) {
      cr_assert_eq(pr->location[i]->n_line, 1);
      for (size_t k = 0; k < pr->n_function; k++)
        if (pr->function[k]->id == pr->location[i]->line[0]->function_id)
          return pr->function[k];
    }
  cr_assert_fail("no location %llu", (unsigned long long)lid);
  return NULL;
}

Test(pprof, header_functions_locations) {
  static const char *const types[] = { "calls/count", "wall/nanoseconds" };
  li_profile p = known_profile();
  pb_profile *pr = written(&p);
  cr_assert_eq(pr->string_table[0].len, 0, "string 0 must be \"\"");
  check_types(pr, types, 2);
  cr_assert_eq(pr->time_nanos, 1700000000123456789 - 2000000000);
  cr_assert_eq(pr->duration_nanos, 2000000000);
  cr_assert_eq(pr->n_comment, 1);
  cr_assert_str_eq(str(pr, pr->comment[0]), "luainstr 9.8.7");
  /* one Function and one Location per function, ids unique and nonzero */
  cr_assert_eq(pr->n_function, NFUNCS);
  cr_assert_eq(pr->n_location, NFUNCS);
  for (size_t i = 0; i < NFUNCS; i++) {
    const Perftools__Profiles__Function *f = pr->function[i];
    const li_pfunc *w = &funcs[i];
    char name[256];
    cr_assert_neq(f->id, 0);
    for (size_t k = 0; k < i; k++) cr_assert_neq(pr->function[k]->id, f->id);
    /* pprof's name: `name (source:line)`, `name (source)` for a main
    ** chunk; system_name: the function's own */
    if (w->line != 0)
      snprintf(name, sizeof name, "%s (%s:%u)", w->name, w->source, (unsigned)w->line);
    else
      snprintf(name, sizeof name, "%s (%s)", w->name, w->source);
    cr_assert_str_eq(str(pr, f->name), name);
    cr_assert_str_eq(str(pr, f->system_name), w->name);
    cr_assert_str_eq(str(pr, f->filename), w->source);
    cr_assert_eq(f->start_line, w->line);
    cr_assert_eq(f->luainstr_last_line, w->lastline);
    cr_assert_eq(f->luainstr_zone, w->zone != 0);
    cr_assert_eq(func_at(pr, pr->location[i]->id), f);
    cr_assert_eq(pr->location[i]->line[0]->line, w->line);
  }
  perftools__profiles__profile__free_unpacked(pr, NULL);
}

/* One sample per node with a figure, its stack the node's path. */
Test(pprof, samples_are_the_tree) {
  li_profile p = known_profile();
  li_pnode extra[NNODES + 1];
  memcpy(extra, nodes, sizeof nodes);
  /* a node with nothing (no calls, no time): no sample */
  extra[NNODES] = (li_pnode){ 1, 2, 0, 0, 0, 0, {0}, 0, 0 };
  p.nodes = extra;
  p.nnodes = NNODES + 1;
  pb_profile *pr = written(&p);
  cr_assert_eq(pr->n_sample, NNODES - 1);        /* every node but the root */
  for (size_t s = 0; s < pr->n_sample; s++) {
    const Perftools__Profiles__Sample *sm = pr->sample[s];
    const li_pnode *n = &nodes[s + 1];      /* (written in the tree's order) */
    uint32_t i = (uint32_t)(s + 1);
    cr_assert_eq(sm->n_value, 2);
    cr_assert_eq(sm->value[0], (int64_t)n->calls);
    cr_assert_eq(sm->value[1], (int64_t)n->self_ns);
    for (size_t d = 0; d < sm->n_location_id; d++, i = nodes[i].parent) {
      cr_assert_neq(i, 0, "stack deeper than the node");
      cr_assert_str_eq(str(pr, func_at(pr, sm->location_id[d])->system_name),
                       funcs[nodes[i].func].name);
    }
    cr_assert_eq(i, 0, "stack shorter than the node's path");
  }
  perftools__profiles__profile__free_unpacked(pr, NULL);
}

Test(pprof, memory_mode) {
  static const char *const types[] = { "calls/count", "wall/nanoseconds",
                                       "alloc_space/bytes", "alloc_objects/count" };
  li_profile p = known_profile();
  li_pnode mem[NNODES];
  memcpy(mem, nodes, sizeof nodes);
  for (size_t i = 1; i < NNODES; i++) {
    mem[i].mem.alloc_bytes = 1000 * i;
    mem[i].mem.alloc_count = i;
  }
  /* allocations without calls or time still make a sample: " spaced "'s
     node (a leaf that took no time) with no call, and so its function */
  li_pfunc fn[NFUNCS];
  memcpy(fn, funcs, sizeof funcs);
  mem[7].calls = 0;
  fn[1].calls = 0;
  p.funcs = fn;
  p.nodes = mem;
  p.memory = 1;
  pb_profile *pr = written(&p);
  check_types(pr, types, 4);
  cr_assert_eq(pr->n_sample, NNODES - 1);
  for (size_t s = 0; s < pr->n_sample; s++) {
    cr_assert_eq(pr->sample[s]->n_value, 4);
    cr_assert_eq(pr->sample[s]->value[2], (int64_t)(1000 * (s + 1)));
    cr_assert_eq(pr->sample[s]->value[3], (int64_t)(s + 1));
  }
  perftools__profiles__profile__free_unpacked(pr, NULL);
}

Test(pprof, empty_and_unknown) {
  li_profile p;
  memset(&p, 0, sizeof p);
  pb_profile *pr = written(&p);        /* no functions, no version, no time */
  cr_assert_eq(pr->n_sample, 0);
  cr_assert_eq(pr->n_function, 0);
  cr_assert_eq(pr->n_comment, 0);
  cr_assert_eq(pr->time_nanos, 0);
  perftools__profiles__profile__free_unpacked(pr, NULL);
}

/* pprof's values are int64: larger figures are written as the largest */
Test(pprof, figures_past_int64) {
  li_profile p = known_profile();
  li_pnode big[NNODES];
  memcpy(big, nodes, sizeof nodes);
  big[1].self_ns = UINT64_MAX;
  /* a self time above the node's total: no runtime makes it, and the
     suite's check of every report would stop the writer at it */
  unsetenv("LUAINSTR_CHECK");
  p.nodes = big;
  pb_profile *pr = written(&p);
  cr_assert_eq(pr->sample[0]->value[1], INT64_MAX);
  perftools__profiles__profile__free_unpacked(pr, NULL);
}

/* a profile whose strings repeat (as sources do) lists each once */
Test(pprof, strings_once) {
  li_profile p = known_profile();
  pb_profile *pr = written(&p);
  for (size_t i = 0; i < pr->n_string_table; i++)
    for (size_t k = 0; k < i; k++)
      cr_assert(pr->string_table[i].len != pr->string_table[k].len ||
                memcmp(pr->string_table[i].data, pr->string_table[k].data,
                       pr->string_table[i].len) != 0, "string %zu twice", i);
  perftools__profiles__profile__free_unpacked(pr, NULL);
}
