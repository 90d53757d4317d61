/*
** json.c -- the `json` report: the whole profile as one JSON document
** (RFC 8259), in the schema docs/json-schema.md describes: summary,
** functions (ids are li_profile.funcs indexes), the call tree (ids are
** li_profile.nodes indexes), the frames and the spike frames' own trees,
** warnings and the trace.  Streamed to the FILE
** as it is produced: nothing of the size of the profile is held in memory.
**
** Strings are valid UTF-8 JSON whatever bytes the names hold: well-formed
** UTF-8 passes through; '"', '\' and control characters are escaped; a byte
** that is not part of well-formed UTF-8 becomes the code point of the same
** value (\u0080-\u00ff: Latin-1, the likeliest encoding of such a source),
** so nothing is dropped and a reader can recover the byte.  For embedding
** in HTML, "</" is written "<\/" and "<!" "\u003c!" (no "</script>" and no
** "<!--" can appear), and U+2028, U+2029 as \u2028, \u2029 (line breaks in
** older JavaScript).  Every escape decodes to the same text.
*/
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "writers.h"

/* ---- values --------------------------------------------------------------- */

/* The shortest of %.15g..%.17g that reads back as v; null if v is not a
** number JSON can hold. */
static void put_double(FILE *f, double v) {
  char buf[40];
  if (!isfinite(v)) {
    fputs("null", f);
    return;
  }
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  fputs(buf, f);
}

/* An index, or null when it is none (UINT32_MAX) or out of range. */
static void put_ref(FILE *f, uint32_t i, uint32_t n) {
  if (i >= n) fputs("null", f);
  else fprintf(f, "%" PRIu32, i);
}

/* The memory figures as fields of an object, after sep (all of li_pmem,
** 0 without memory mode: every profile has the same fields). */
static void put_mem(FILE *f, const li_pmem *m, const char *sep) {
  fprintf(f, "%s\"alloc_bytes\": %" PRIu64 ", \"alloc_count\": %" PRIu64
          ", \"alloc_bytes_total\": %" PRIu64 ", \"alloc_count_total\": %" PRIu64
          ", \"free_bytes\": %" PRIu64 ", \"live_bytes\": %" PRIu64
          ", \"peak_live_bytes\": %" PRIu64 ", \"max_alloc_bytes\": %" PRIu64,
          sep, m->alloc_bytes, m->alloc_count, m->alloc_bytes_total,
          m->alloc_count_total, m->free_bytes, m->live_bytes,
          m->peak_live_bytes, m->max_alloc_bytes);
}

static const char *boolean(int b) {
  return b ? "true" : "false";
}

/* ---- sections --------------------------------------------------------- */

static void put_summary(FILE *f, const li_profile *p) {
  fprintf(f, "  \"summary\": {\"wall_ns\": %" PRIu64, p->wall_ns);
  if (p->time_ns != 0)          /* (0: not known, as in a known profile) */
    fprintf(f, ", \"time_ns\": %" PRIu64, p->time_ns);
  fprintf(f, ", \"probes\": %" PRIu64 ", \"overhead_ns\": %" PRIu64
          ", \"preempted_ns\": %" PRIu64 ", \"probe_pair_ns\": ", p->probes,
          p->overhead_ns, p->preempted_ns);
  put_double(f, p->probe_pair_ns);
  fputs(", \"probe_inside_ns\": ", f);
  put_double(f, p->probe_inside_ns);
  fputs(", \"clock\": ", f);
  li_json_string(f, p->clock);
  fputs(", \"clock_resolution_ns\": ", f);
  put_double(f, p->clock_resolution_ns);
  if (p->probe != NULL) {
    fputs(", \"probe\": ", f);
    li_json_string(f, p->probe);
  }
  if (p->count_small > 0) {     /* (only then: older readers see nothing new) */
    fprintf(f, ", \"count_small\": %" PRIu32 ", \"count_probe_ns\": ",
            p->count_small);
    put_double(f, p->count_probe_ns);
  }
  /* open_frames: open_calls's old name, kept one release (deprecated) */
  fprintf(f, ", \"open_calls\": %" PRIu32 ", \"open_frames\": %" PRIu32
          ", \"tracing\": %s, \"events\": %"
          PRIu64 ", \"events_dropped\": %" PRIu64 ", \"trace_capacity\": %"
          PRIu64 ", \"trace_recent\": %s,\n",
          p->open_calls, p->open_calls, boolean(p->tracing),
          p->events != NULL ? p->nevents : 0, p->events_dropped,
          p->trace_capacity, boolean(p->trace_recent));
  fprintf(f, "              \"framing\": %s, \"frames_marked\": %" PRIu64
          ", \"frame_capacity\": %" PRIu64 ", \"spike_factor\": ",
          boolean(p->framing), p->frames_marked, p->frame_capacity);
  put_double(f, p->spike_factor);
  fprintf(f, ", \"spike_min_ns\": %" PRIu64 ", \"spike_keep\": %" PRIu32
          ", \"spikes_seen\": %" PRIu64 ",\n", p->spike_min_ns, p->spike_keep,
          p->spikes_seen);
  fprintf(f, "              \"memory\": %s, \"mem_blocks\": %" PRIu64
          ", \"mem_map_bytes\": %" PRIu64 ", \"mem_untracked_frees\": %" PRIu64
          ", \"mem_outside\": {", boolean(p->memory), p->mem_blocks,
          p->mem_map_bytes, p->mem_untracked_frees);
  put_mem(f, &p->mem_outside, "");
  fputs("}},\n", f);
}

static void put_functions(FILE *f, const li_profile *p) {
  fputs("  \"functions\": [", f);
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    const li_pfunc *fn = &p->funcs[i];
    fprintf(f, "%s\n    {\"id\": %" PRIu32 ", \"name\": ", i ? "," : "", i);
    li_json_string(f, fn->name);
    fputs(", \"source\": ", f);
    li_json_string(f, fn->source);
    fprintf(f, ", \"zone\": %s, \"line\": %" PRIu32 ", \"lastline\": %" PRIu32
            ", \"calls\": %" PRIu64 ", \"errors\": %" PRIu64
            ", \"total_ns\": %" PRIu64 ", \"self_ns\": %" PRIu64
            ", \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64,
            boolean(fn->zone), fn->line, fn->lastline, fn->calls, fn->errors,
            fn->total_ns, fn->self_ns, fn->min_ns, fn->max_ns);
    fprintf(f, ", \"total_err_ns\": %" PRIu64 ", \"self_err_ns\": %" PRIu64
            ", \"min_err_ns\": %" PRIu64 ", \"max_err_ns\": %" PRIu64,
            fn->total_err_ns, fn->self_err_ns, fn->min_err_ns, fn->max_err_ns);
    /* counted, not timed: its times are 0 and not known (its callers') */
    if (fn->counted) fputs(", \"counted\": true", f);
    put_mem(f, &fn->mem, ", ");
    putc('}', f);
  }
  fputs(p->nfuncs ? "\n  ],\n" : "],\n", f);
}

/* The n nodes of a call tree, one per line after indent: the whole run's
** or a spike frame's (ids are indexes into nodes either way). */
static void put_nodes(FILE *f, const li_profile *p, const li_pnode *nodes,
                      uint32_t n, const char *indent) {
  for (uint32_t i = 0; i < n; i++) {
    const li_pnode *nd = &nodes[i];
    fprintf(f, "%s\n%s{\"id\": %" PRIu32 ", \"parent\": ", i ? "," : "",
            indent, i);
    put_ref(f, nd->parent, i == 0 ? 0 : i);   /* the root has none */
    fputs(", \"function\": ", f);
    put_ref(f, nd->func, i == 0 ? 0 : p->nfuncs);
    fprintf(f, ", \"calls\": %" PRIu64 ", \"errors\": %" PRIu64
            ", \"total_ns\": %" PRIu64 ", \"self_ns\": %" PRIu64,
            nd->calls, nd->errors, nd->total_ns, nd->self_ns);
    fprintf(f, ", \"total_err_ns\": %" PRIu64 ", \"self_err_ns\": %" PRIu64,
            nd->total_err_ns, nd->self_err_ns);
    put_mem(f, &nd->mem, ", ");
    putc('}', f);
  }
}

static void put_tree(FILE *f, const li_profile *p) {
  fputs("  \"tree\": [", f);
  put_nodes(f, p, p->nodes, p->nnodes, "    ");
  fputs(p->nnodes ? "\n  ],\n" : "],\n", f);
}

static void put_frames(FILE *f, const li_profile *p) {
  uint64_t n = p->frames != NULL ? p->nframes : 0;
  fputs("  \"frames\": [", f);
  for (uint64_t i = 0; i < n; i++) {
    const li_pframe *fr = &p->frames[i];
    fprintf(f, "%s\n    {\"index\": %" PRIu64 ", \"start_ns\": %" PRIu64
            ", \"duration_ns\": %" PRIu64 ", \"busy_ns\": %" PRIu64
            ", \"idle_ns\": %" PRIu64 ", \"calls\": %" PRIu64
            ", \"alloc_bytes\": %" PRIu64 ", \"spike\": %s}", i ? "," : "",
            fr->index, fr->start_ns, fr->duration_ns, li_frame_busy(fr),
            fr->idle_ns, fr->calls, fr->alloc_bytes, boolean(fr->spike != 0));
  }
  fputs(n ? "\n  ],\n" : "],\n", f);
}

static void put_spikes(FILE *f, const li_profile *p) {
  uint32_t n = p->spikes != NULL ? p->nspikes : 0;
  fputs("  \"spikes\": [", f);
  for (uint32_t i = 0; i < n; i++) {
    const li_pspike *sp = &p->spikes[i];
    uint32_t nn = sp->nodes != NULL ? sp->nnodes : 0;
    fprintf(f, "%s\n    {\"frame\": %" PRIu64 ", \"duration_ns\": %" PRIu64
            ", \"tree\": [", i ? "," : "", sp->frame, sp->duration_ns);
    put_nodes(f, p, sp->nodes, nn, "      ");
    fputs(nn ? "\n    ]}" : "]}", f);
  }
  fputs(n ? "\n  ],\n" : "],\n", f);
}

/* One string per line of p->warnings. */
static void put_warnings(FILE *f, const char *w) {
  int first = 1;
  fputs("  \"warnings\": [", f);
  while (w != NULL && *w != '\0') {
    const char *nl = strchr(w, '\n');
    size_t len = nl != NULL ? (size_t)(nl - w) : strlen(w);
    fputs(first ? "\n    " : ",\n    ", f);
    li_json_lstring(f, w, len);
    first = 0;
    w += len + (nl != NULL);
  }
  fputs(first ? "],\n" : "\n  ],\n", f);
}

static void put_trace(FILE *f, const li_profile *p) {
  uint64_t n = p->events != NULL ? p->nevents : 0;
  fputs("  \"trace\": [", f);
  for (uint64_t i = 0; i < n; i++) {
    const li_pevent *ev = &p->events[i];
    int has_func = ev->kind == 'B' || ev->kind == 'E' || ev->kind == 'X';
    char kind[2] = { ev->kind, '\0' };
    fprintf(f, "%s\n    {\"ts_ns\": %" PRIu64 ", \"kind\": ", i ? "," : "",
            ev->ts_ns);
    li_json_string(f, kind);
    fprintf(f, ", \"thread\": %" PRIu32 ", \"function\": ", ev->thread);
    put_ref(f, ev->func, has_func ? p->nfuncs : 0);
    putc('}', f);
  }
  fputs(n ? "\n  ]\n" : "]\n", f);
}

int li_write_json(const li_profile *p, FILE *f) {
  fputs("{\n  \"format\": \"luainstr-profile\",\n  \"version\": 1,\n", f);
  if (p->version != NULL) {   /* the program's version, not the schema's */
    fputs("  \"luainstr\": ", f);
    li_json_string(f, p->version);
    fputs(",\n", f);
  }
  put_summary(f, p);
  put_functions(f, p);
  put_tree(f, p);
  put_frames(f, p);
  put_spikes(f, p);
  put_warnings(f, p->warnings);
  put_trace(f, p);
  fputs("}\n", f);
  return ferror(f) ? -1 : 0;
}
